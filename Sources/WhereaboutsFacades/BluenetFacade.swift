import Foundation
import Whereabouts

/// Bluenet Localization's API — `BluenetLocalization`, `on(topic, callback)`, `trackIBeacon`,
/// the indoor localization switch, `insertClassifier`, `TrainingHelper` and the basic classifier —
/// backed by the engine's `EventHub`, `FingerprintTrainingSession`, `BluenetTrainingData` and
/// `NaiveBayesPlaceClassifier` with Bluenet's options.
///
/// The namespace of the facade: its types are named as Bluenet Localization named them, under
/// `BluenetFacade.`, so that `import WhereaboutsFacades` adds no generic name to an app (declare a
/// `typealias` for the names you use unqualified).
public enum BluenetFacade {
    /// The closure ``BluenetLocalization/on(_:_:)`` returns: calling it unsubscribes.
    public typealias VoidCallback = @Sendable () -> Void

    /// What Bluenet's calls can refuse.
    public enum BluenetError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The UUID string is not a UUID.
        case invalidUUID(String)
        /// Training data is not Bluenet's JSON.
        case invalidTrainingData(String)

        /// What went wrong and what to do.
        public var description: String {
            switch self {
            case .invalidUUID(let text): "\"\(text)\" is not a UUID (expected e.g. 01234567-89AB-CDEF-0123-456789ABCDEF)"
            case .invalidTrainingData(let reason): "the training data is not Bluenet's JSON: \(reason)"
            }
        }
    }

    /// Bluenet Localization: iBeacon regions, their advertisements, and the room the device is in,
    /// as events by topic name — `iBeaconAdvertisement`, `enterRegion`, `exitRegion`,
    /// `enterLocation`, `exitLocation`, `currentLocation` (payloads: `MonitoringEvent`).
    ///
    /// Indoor localization starts off, as in Bluenet: location events flow only after
    /// ``startIndoorLocalization()`` and with a classifier inserted. Scans come from any source —
    /// ``startScanning(_:clock:)``, or ``process(_:)`` one at a time — and are timed by their own clock.
    /// The calls that change the hub are `async` (the hub is an actor); ``on(_:_:)`` is synchronous.
    ///
    /// ```swift
    /// let bluenet = BluenetLocalization()
    /// let unsubscribe = bluenet.on("enterRegion") { data in
    ///     if case .string(let referenceId) = data { print("entered", referenceId) }
    /// }
    /// try await bluenet.trackIBeacon(uuid: "01234567-89AB-CDEF-0123-456789ABCDEF", referenceId: "home")
    /// try await bluenet.startScanning(RecordingReader(url: recording))
    /// unsubscribe()
    /// ```
    public final class BluenetLocalization: Sendable {
        /// The engine's event hub behind the calls.
        public let hub: EventHub

        /// Creates the library, tracking nothing, indoor localization off. With a venue, readings
        /// that name beacons by venue id are resolved to their iBeacon identities.
        public init(venue: Venue? = nil, configuration: EventHub.Configuration = EventHub.Configuration(startsIndoorLocalization: false)) {
            hub = EventHub(configuration: configuration, venue: venue)
        }

        /// Subscribes to a topic; calling the returned closure unsubscribes.
        public func on(_ topic: String, _ callback: @escaping @Sendable (JSONValue) -> Void) -> VoidCallback {
            hub.on(topic, callback)
        }

        /// A rough location of the device (Bluenet's `requestLocation`): the venue's origin, when the
        /// venue has one.
        public func requestLocation() -> GeoCoordinate? {
            hub.roughLocation
        }

        /// Starts tracking every beacon of a UUID under a reference id.
        public func trackIBeacon(uuid: String, referenceId: String) async throws(BluenetError) {
            guard let parsed = UUID(uuidString: uuid) else { throw .invalidUUID(uuid) }
            await hub.watch(uuid: parsed, referenceId: referenceId)
        }

        /// Stops tracking a UUID (not resumed by ``resumeTracking()``).
        public func stopTrackingIBeacon(_ uuid: String) async throws(BluenetError) {
            guard let parsed = UUID(uuidString: uuid) else { throw .invalidUUID(uuid) }
            await hub.stopWatching(uuid: parsed)
        }

        /// Stops tracking every UUID and forgets them.
        public func clearTrackedBeacons() async {
            await hub.stopWatchingAll()
        }

        /// Ignores every scan until ``resumeTracking()``.
        public func pauseTracking() async {
            await hub.pause()
        }

        /// Tracks again; enter events fire again, once.
        public func resumeTracking() async {
            await hub.resume()
        }

        /// Forgets the entered regions, so that the next sighting fires a fresh `enterRegion`.
        public func forceClearActiveRegion() async {
            await hub.forceClearActiveRegion()
        }

        /// Loads a room classifier (see ``BasicClassifier``, or any `PlaceClassifier`).
        public func insertClassifier(_ classifier: any PlaceClassifier) async {
            await hub.insertClassifier(classifier)
        }

        /// Turns location events on.
        public func startIndoorLocalization() async {
            await hub.startIndoorLocalization()
        }

        /// Turns location events off.
        public func stopIndoorLocalization() async {
            await hub.stopIndoorLocalization()
        }

        /// Takes in one scan.
        public func process(_ scan: Scan) async {
            await hub.process(scan)
        }

        /// Lets time run on to `time` without a scan: the exits and the advertisement batch that
        /// fell due by then (a live source calls it; ``startScanning(_:clock:)`` does).
        public func advance(to time: Double) async {
            await hub.advance(to: time)
        }

        /// Takes in every scan of a source until it ends, then lets time run on until the exits
        /// still pending have fallen due and flushes the last advertisement batch. With a `clock` the
        /// source is live: `exitRegion` and `exitLocation` fall due on time (the exit timeout after
        /// the last sighting) while the source stays open, as the operating system told Bluenet.
        ///
        /// ```swift
        /// try await bluenet.startScanning(scanner, clock: ContinuousClock())
        /// ```
        public func startScanning<Scans: AsyncSequence>(_ scans: sending Scans, clock: (any Clock<Duration>)? = nil) async throws
        where Scans.Element == Scan {
            var timeline = ScanTimeline(scans: scans, pace: clock.map { .live($0) } ?? .replay)
            var stage = HubStage(hub: hub)
            try await timeline.run(&stage) { _ in }
        }

        /// The hub as a stage of a ``ScanTimeline``: its events reach the app through the
        /// subscriptions, so the stage gives out nothing itself.
        private struct HubStage: TimedStage {
            let hub: EventHub

            func process(_ scan: Scan) async -> [Never] {
                _ = await hub.process(scan)
                return []
            }

            func advance(to time: Double) async -> [Never] {
                _ = await hub.advance(to: time)
                return []
            }

            func nextDeadline() async -> Double? { await hub.nextDeadline() }

            func finish() async -> [Never] {
                _ = await hub.finish()
                return []
            }
        }
    }

    /// Bluenet's `TrainingHelper`: collects the advertisements of a ``BluenetLocalization`` while the
    /// user stands in one room, and hands back Bluenet's training JSON for the basic classifier.
    ///
    /// ```swift
    /// let helper = TrainingHelper(bluenetLocalization: bluenet)
    /// helper.startCollectingTrainingData()
    /// // … the user stands in the kitchen while scans come in …
    /// let kitchen = helper.finishCollectingTrainingData()   // [{"devices": {...}, "timestamp": ...}, ...]
    /// ```
    public final class TrainingHelper: Sendable {
        private let session = LockedValue(FingerprintTrainingSession())
        private let unsubscribe: VoidCallback

        /// Creates a helper fed by the advertisement events of `bluenetLocalization`.
        public init(bluenetLocalization: BluenetLocalization) {
            let session = session
            unsubscribe = bluenetLocalization.hub.subscribe { event in
                guard case .advertisements(let packets) = event.kind else { return }
                session.withValue { _ = $0.add(packets, at: event.time) }
            }
        }

        deinit { unsubscribe() }

        /// Starts collecting, dropping anything collected before.
        public func startCollectingTrainingData() { session.withValue { $0.start() } }

        /// Stops collecting for a while.
        public func pauseCollectingTrainingData() { session.withValue { $0.pause() } }

        /// Collects again.
        public func resumeCollectingTrainingData() { session.withValue { $0.resume() } }

        /// Stops and throws away what was collected.
        public func abortCollectingTrainingData() { session.withValue { $0.abort() } }

        /// Stops and returns what was collected as Bluenet's training JSON, or `nil` when
        /// collection never started.
        public func finishCollectingTrainingData() -> String? {
            session.withValue { $0.finish() }?.bluenetJSON
        }
    }

    /// Bluenet's basic classifier: Gaussian naive Bayes over the training data of each location
    /// (`NaiveBayesPlaceClassifier` with `NaiveBayesPlaceClassifier.Options.bluenet`): no answer
    /// without training data or with fewer than three known beacons heard.
    ///
    /// ```swift
    /// var classifier = BasicClassifier()
    /// try classifier.loadTrainingData("kitchen", referenceId: "home", trainingData: kitchenJSON)
    /// try classifier.loadTrainingData("hall", referenceId: "home", trainingData: hallJSON)
    /// await bluenet.insertClassifier(classifier.classifier)
    /// ```
    public struct BasicClassifier: Sendable {
        private var scans: [Scan] = []

        /// Creates a classifier with no training data.
        public init() {}

        /// Adds a location's training data, the JSON ``TrainingHelper/finishCollectingTrainingData()``
        /// returned; `referenceId` is the region it was collected in (kept for Bluenet's signature:
        /// the hub tells regions apart itself).
        public mutating func loadTrainingData(_ locationId: String, referenceId: String, trainingData: String) throws(BluenetError) {
            do {
                scans += try BluenetTrainingData.decode(JSONParser.parse(trainingData), place: locationId)
            } catch let error as JSONSyntaxError {
                throw .invalidTrainingData(String(describing: error))
            } catch {
                throw .invalidTrainingData(String(describing: error))
            }
        }

        /// The classifier of the training data loaded so far.
        public var classifier: any PlaceClassifier {
            NaiveBayesPlaceClassifier(training: PlaceTrainingSet(scans: scans), options: .bluenet)
        }
    }
}
