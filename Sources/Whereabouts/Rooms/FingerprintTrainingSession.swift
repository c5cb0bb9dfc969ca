/// A fingerprint training session (Bluenet's `TrainingHelper`): collect the scans heard while
/// standing in one place, then keep them as training data for the room classifiers.
///
/// The session starts idle; ``start(place:)`` begins collecting (for a place, or, as Bluenet's
/// `startCollectingTrainingData`, for a place named later by whoever stores the result), ``pause()`` and
/// ``resume()`` interrupt it, ``abort()`` throws everything away and ``finish()`` returns what
/// was collected (or `nil` when collection never started). Scans ``add(_:)``-ed while not
/// running are ignored, as are readings with an RSSI of 0 or above.
///
/// ```swift
/// var session = FingerprintTrainingSession()
/// session.start(place: "kitchen")
/// for scan in scans { session.add(scan) }
/// if let training = session.finish() {
///     print(training.bluenetJSON)               // Bluenet's training string
///     try recordingWriter.write(training.scans)  // or scans with truth.place = "kitchen"
/// }
/// ```
public struct FingerprintTrainingSession: Sendable {
    /// Where a session is.
    public enum State: Hashable, Sendable {
        /// Not started (or finished, or aborted).
        case idle
        /// Collecting.
        case running
        /// Started, but not collecting for now.
        case paused
    }

    /// What a finished session collected.
    public struct Result: Sendable {
        /// The place trained, when the session was started for one.
        public var place: String?
        /// The scans collected, each with `truth.place` when the session has a place (and
        /// `truth.floor` when the venue knows the place).
        public var scans: [Scan]
        /// The same data in Bluenet's training format.
        public var bluenetJSON: String
    }

    /// The state.
    public private(set) var state = State.idle
    /// The place being trained, while started.
    public private(set) var place: String?
    /// The scans collected so far.
    public private(set) var scans: [Scan] = []
    /// The venue that names beacons and gives places their floors, when known.
    public let venue: Venue?

    /// Creates an idle session.
    public init(venue: Venue? = nil) { self.venue = venue }

    /// Starts collecting, for a place when given, dropping anything collected before.
    public mutating func start(place: String? = nil) {
        self.place = place
        scans = []
        state = .running
    }

    /// Stops collecting for a while (no effect unless running).
    public mutating func pause() { if state == .running { state = .paused } }

    /// Collects again after ``pause()`` (no effect unless paused).
    public mutating func resume() { if state == .paused { state = .running } }

    /// Stops and forgets everything collected.
    public mutating func abort() {
        state = .idle
        place = nil
        scans = []
    }

    /// Adds a scan when running; returns whether it was collected.
    @discardableResult
    public mutating func add(_ scan: Scan) -> Bool {
        guard state == .running else { return false }
        var scan = scan
        scan.readings.removeAll { !$0.isValid }
        if let place {
            var truth = scan.truth ?? GroundTruth()
            truth.place = place
            if truth.floor == nil { truth.floor = venue?.places.first { $0.id == place }?.floor }
            scan.truth = truth
        }
        scans.append(scan)
        return true
    }

    /// Adds one advertisement batch of an ``EventHub`` (its `iBeaconAdvertisement` event) as one
    /// entry, as Bluenet's `TrainingHelper` did; returns whether it was collected.
    ///
    /// ```swift
    /// let stop = hub.subscribe { event in
    ///     if case .advertisements(let packets) = event.kind { session.withValue { _ = $0.add(packets, at: event.time) } }
    /// }
    /// ```
    @discardableResult
    public mutating func add(_ packets: [BeaconPacket], at time: Double) -> Bool {
        add(Scan(time: time, readings: packets.map { Reading(beacon: .iBeacon($0.identity), rssi: $0.rssi) }))
    }

    /// Ends the session and returns what it collected, or `nil` when it was never started (or
    /// was aborted). The session is idle afterwards.
    public mutating func finish() -> Result? {
        guard state != .idle else { return nil }
        let result = Result(place: place, scans: scans,
                            bluenetJSON: JSONWriter().string(from: BluenetTrainingData.encode(scans, venue: venue)))
        abort()
        return result
    }
}
