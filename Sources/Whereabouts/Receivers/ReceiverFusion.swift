/// Fuses what fixed receivers hear into one scan per tag: the scans the engine locates a tag
/// from, as it locates a phone from beacons (``Venue/receiversAsBeacons()``).
///
/// Its input is each receiver's own scans: ``Scan/device`` names the receiver (a venue
/// ``Venue/Receiver``), the readings are the tags it heard, ``Scan/time`` is the receiver's
/// clock and ``Scan/arrival`` (when the report came over a network) the fusion's. Its output is,
/// per tag and for every ``Configuration/interval`` in which some receiver heard it, a scan named
/// after the tag with one reading per receiver that heard it within the
/// ``Configuration/window``: the mean RSSI of that receiver's sightings in the last
/// ``Configuration/averaging`` seconds, or else its latest. A scan is dated the mean time of the
/// sightings it averages (when what it says was heard), and given out once its interval is over;
/// a tag's first scan comes a whole interval after its first sighting, so that every receiver in
/// range has had its say, and holds every sighting so far. Intervals lie on a grid all tags
/// share, so that tags fall due together. A tag's scans carry no ``Scan/track``: a report's track
/// is its receiver's, not the tag's.
///
/// The defaults (a scan every 0.75 s averaging 2 s, 0.1 s of lateness) put every sighting into a
/// scan given out at most 0.85 s after it arrives, and a tag is located from them about as well
/// as from a scan a second of every receiver's instantaneous RSSI (within 5 % on simulated
/// rooms; Documentation/Accuracy.md gives the measurements): averaging more than an interval
/// cuts the RSSI's noise, and dating a scan at its sightings' mean time keeps that from lagging
/// the track.
///
/// Real receivers report on their own, at their own rate, with their own clock, losses,
/// duplicates and late arrivals:
/// - **Clocks.** Each receiver's offset is the median of arrival − stamp over its latest
///   reports, so that a sighting is placed on the fusion's clock by its own stamp (not by when a
///   batch happened to arrive), and a receiver whose clock steps is followed after a few reports.
///   A report stamped more than 5 s ahead of its receiver's estimated clock is refused.
/// - **Lateness.** A tag's scan for an interval is given out ``Configuration/lateness`` seconds
///   after the interval ends, so that sightings up to that late still count; a sighting later
///   than that still counts in the scans to come while they average its time, and is dropped and
///   counted when none does.
/// - **Duplicates** (the same receiver, tag, stamp and RSSI) are dropped and counted.
/// - **Silence.** A receiver's readings expire after the window; a tag that no receiver heard for
///   the window gets no more scans and is forgotten.
/// - **Bounds.** At most ``Configuration/maximumSightingsPerPair`` sightings per receiver and tag
///   are kept (the oldest go first, counted as flooded) and at most
///   ``Configuration/maximumTags`` tags (the one heard longest ago is forgotten first).
///
/// A reading of a venue beacon (a receiver can hear the fixed beacons too) is not a tag's and is
/// left out, as is an invalid RSSI. Scans come out in time order, tags of the same time by name.
///
/// ```swift
/// var fusion = ReceiverFusion(venue: venue)
/// for try await report in reports {             // receivers' scans, device = receiver id
///     for tagScan in fusion.process(report) { print(tagScan.device ?? "-", tagScan.readings.count) }
/// }
/// for tagScan in fusion.finish() { print(tagScan.device ?? "-", tagScan.readings.count) }
/// ```
public struct ReceiverFusion: Sendable {
    /// How sightings are gathered into a tag's scans.
    public struct Configuration: Hashable, Sendable {
        /// Seconds between a tag's scans while it is heard (default 0.75).
        public var interval: Double
        /// Seconds of a receiver's sightings one reading of a scan averages (default 2): at
        /// least the interval, at most the window. Longer averages less noise into a scan and
        /// follows a tag that walks less closely.
        public var averaging: Double
        /// Seconds a receiver's latest sighting of a tag stands in when it heard none in an
        /// interval (default 3): a receiver that reports less often than every interval still
        /// counts; one silent that long is left out, and a tag no receiver heard that long is away.
        public var window: Double
        /// Seconds a scan waits after its interval for sightings that arrive late (default 0.1):
        /// with the interval, the longest a sighting waits for the scan that holds it.
        public var lateness: Double
        /// The most tags followed at once (default 10,000).
        public var maximumTags: Int
        /// The most sightings kept per receiver and tag (default 32).
        public var maximumSightingsPerPair: Int

        /// A configuration; values out of range are brought into it (an interval of at least
        /// 0.05 s, a window of at least the interval, an averaging between the interval and the
        /// window, a lateness within 0...10 s, at least one tag and one sighting per pair).
        ///
        /// ```swift
        /// // A scan a second of each receiver's sightings in that second, waiting 0.5 s for late ones.
        /// let configuration = ReceiverFusion.Configuration(interval: 1, averaging: 1, lateness: 0.5)
        /// ```
        public init(interval: Double = 0.75, window: Double = 3, averaging: Double = 2, lateness: Double = 0.1,
                    maximumTags: Int = 10_000, maximumSightingsPerPair: Int = 32) {
            let interval = interval.isFinite ? max(0.05, interval) : 0.75
            self.interval = interval
            let window = window.isFinite ? max(interval, window) : max(interval, 3)
            self.window = window
            self.averaging = averaging.isFinite ? min(window, max(interval, averaging)) : min(window, max(interval, 2))
            self.lateness = lateness.isFinite ? min(10, max(0, lateness)) : 0.1
            self.maximumTags = max(1, maximumTags)
            self.maximumSightingsPerPair = max(1, maximumSightingsPerPair)
        }
    }

    /// What became of the sightings so far.
    public struct Statistics: Hashable, Sendable {
        /// Tag readings taken in (each counted once, whatever became of it).
        public var sightings = 0
        /// Tag scans given out.
        public var scans = 0
        /// Readings in reports from a receiver the venue does not list (refused).
        public var unknownReceiver = 0
        /// Readings in reports stamped more than 5 s ahead of their receiver's clock (refused).
        public var future = 0
        /// Readings that came too late for any of their tag's scans still to come, which average
        /// the latest ``Configuration/averaging`` seconds (dropped).
        public var late = 0
        /// Readings that repeated one already taken: same receiver, tag, stamp and RSSI (dropped).
        public var duplicates = 0
        /// Readings of a venue beacon, not of a tag, or with an invalid RSSI (left out).
        public var notTags = 0
        /// Sightings pushed out by newer ones of the same receiver and tag (bounded memory).
        public var flooded = 0
        /// Tags forgotten to make room for a new one (bounded memory).
        public var tagsEvicted = 0
        /// The names of the first unknown receivers (at most 10), for a message.
        public var unknownReceivers: [String] = []

        /// Creates empty statistics.
        public init() {}
    }

    /// How sightings are gathered.
    public let configuration: Configuration
    /// What became of the sightings so far.
    public private(set) var statistics = Statistics()

    private let receivers: [Venue.Receiver]
    private let receiverIndex: [String: Int]
    private let beacons: BeaconDirectory
    private let tagNames: [BeaconReference: String]
    private var clocks: [ReceiverClock]
    private var tags: [String: TagState] = [:]
    /// The fusion's clock: the latest arrival or time it was told.
    private var now = -Double.infinity
    /// The earliest time a tag's scan is due, kept so that ``nextDeadline()`` costs nothing.
    private var earliestDue: Double?

    /// A fusion of the receivers `venue` lists, naming tags by its ``Venue/tags``.
    public init(venue: Venue, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        receivers = venue.receivers
        var index: [String: Int] = [:]
        for (offset, receiver) in venue.receivers.enumerated() where index[receiver.id] == nil { index[receiver.id] = offset }
        receiverIndex = index
        beacons = BeaconDirectory(venue)
        var names: [BeaconReference: String] = [:]
        for tag in venue.tags {
            if let identity = tag.iBeacon { names[.iBeacon(identity)] = tag.id }
            if let identity = tag.eddystone { names[.eddystone(identity)] = tag.id }
        }
        tagNames = names
        clocks = Array(repeating: ReceiverClock(), count: venue.receivers.count)
    }

    /// The name a reading's tag goes by: its venue ``Venue/Tag/id`` when listed, its identity
    /// otherwise (`uuid_Maj:major_Min:minor`, `namespace/instance`, or the id the reading gives).
    public func tagName(for reference: BeaconReference) -> String {
        if let name = tagNames[reference] { return name }
        switch reference {
        case .id(let id): return id
        case .iBeacon(let identity): return identity.description
        case .eddystone(let identity): return identity.description
        }
    }

    /// One receiver's report seen from each tag it heard, unfused: per valid tag reading, a scan
    /// named after the tag with the receiver's one reading, at the report's time and with its
    /// truth — what a calibration fits each receiver's offset and path loss from, one sighting
    /// at a time. Empty for a receiver the venue does not list.
    ///
    /// Receivers that advertise too (a gateway can) hear each other: a reading that names
    /// another receiver (by its id, or by an identity the venue's ``Venue/tags`` give that id)
    /// gets that receiver's place in the venue as its truth, so that receivers are fitted from
    /// hearing each other without anyone walking; a receiver's reading of itself is left out.
    ///
    /// ```swift
    /// var calibration = Calibration(venue: venue.receiversAsBeacons())
    /// for report in reports { for sighting in fusion.sightings(in: report) { calibration.add(sighting) } }
    /// ```
    public func sightings(in report: Scan) -> [Scan] {
        guard let device = report.device, let receiver = receiverIndex[device] else { return [] }
        return report.readings.compactMap { reading in
            guard reading.isValid, beacons.index(for: reading.beacon) == nil else { return nil }
            let tag = tagName(for: reading.beacon)
            var truth = report.truth
            if let advertiser = receiverIndex[tag] {
                // Another receiver, advertising: it stands where the venue has it, a truth that
                // needs no walk. A receiver never counts as hearing itself.
                let other = receivers[advertiser]
                guard advertiser != receiver, let x = other.x, let y = other.y else { return nil }
                truth = GroundTruth(x: x, y: y, z: other.z, floor: other.floor)
            }
            return Scan(time: report.time, device: tag,
                        readings: [Reading(beacon: .id(receivers[receiver].id), rssi: reading.rssi, txPower: reading.txPower)],
                        truth: truth)
        }
    }

    /// Takes in one receiver's report and returns the tag scans that fell due by its arrival,
    /// in time order.
    public mutating func process(_ report: Scan) -> [Scan] {
        let arrival = report.arrival ?? report.time
        guard arrival.isFinite, report.time.isFinite else {
            statistics.sightings += report.readings.count
            statistics.notTags += report.readings.count
            return []
        }
        let due = advance(to: arrival)
        statistics.sightings += report.readings.count
        guard let device = report.device, let receiver = receiverIndex[device] else {
            statistics.unknownReceiver += report.readings.count
            let name = report.device ?? "(none)"
            if statistics.unknownReceivers.count < 10, !statistics.unknownReceivers.contains(name) {
                statistics.unknownReceivers.append(name)
            }
            return due
        }
        let offset = clocks[receiver].record(arrival - report.time)
        let time = report.time + offset
        guard time <= arrival + Self.futureTolerance else {
            statistics.future += report.readings.count
            return due
        }
        for reading in report.readings {
            guard reading.isValid, beacons.index(for: reading.beacon) == nil else {
                statistics.notTags += 1
                continue
            }
            take(Sighting(time: time, stamp: report.time, rssi: reading.rssi), of: tagName(for: reading.beacon),
                 by: receiver, txPower: reading.txPower, truth: report.truth)
        }
        return due
    }

    /// Lets the fusion's clock run on to `time` without a report: the tag scans due by then.
    public mutating func advance(to time: Double) -> [Scan] {
        guard time.isFinite else { return [] }
        now = max(now, time)
        guard let earliestDue, earliestDue <= now else { return [] }
        let lateness = configuration.lateness, now = now
        return emit { $0 + lateness <= now }
    }

    /// When the next tag interval falls due (its end plus the lateness), or `nil` when no tag is
    /// heard.
    public func nextDeadline() -> Double? {
        earliestDue
    }

    /// The end of the input: each tag's scans up to its interval holding its latest sighting (at
    /// least one scan for a tag heard).
    public mutating func finish() -> [Scan] {
        emit(all: true) { _ in true }
    }

    // MARK: Sightings

    /// How far ahead of its receiver's clock a report may be stamped, seconds.
    static let futureTolerance = 5.0

    private struct Sighting: Sendable {
        /// On the fusion's clock.
        var time: Double
        /// On the receiver's clock (to tell duplicates).
        var stamp: Double
        var rssi: Double
    }

    private struct TagState: Sendable {
        /// The end of the tag's next interval.
        var next: Double
        /// The end of its last interval given out.
        var last = -Double.infinity
        /// Whether a sighting dated before ``last`` came in since: too late for its own
        /// interval's scan, it is news for the next one.
        var lateNews = false
        /// The latest sighting's time.
        var heard: Double
        /// Per receiver index, its sightings in time order.
        var sightings: [Int: [Sighting]] = [:]
        /// The time of the last scan given out (scans of a tag never go back in time).
        var given = -Double.infinity
        var txPower: Double?
        /// The latest truths the reports gave, with their times (for evaluation).
        var truths: [(time: Double, value: GroundTruth)] = []

        /// Keeps a report's truth, the latest few only.
        mutating func note(_ truth: GroundTruth?, at time: Double) {
            guard let truth else { return }
            truths.append((time, truth))
            if truths.count > 8 { truths.removeFirst(truths.count - 8) }
        }
    }

    private mutating func take(_ sighting: Sighting, of name: String, by receiver: Int, txPower: Double?,
                               truth: GroundTruth?) {
        if var tag = tags[name] {
            // Late only when no scan still to come averages its time (the next one averages
            // back to its end less the averaging).
            let oldestCounted = tag.last == -.infinity ? -Double.infinity : tag.next - configuration.averaging
            guard sighting.time > oldestCounted, sighting.time > now - configuration.window else {
                statistics.late += 1
                return
            }
            // Taken out while edited, so that its arrays are not copied.
            tags[name] = nil
            var kept = tag.sightings.removeValue(forKey: receiver) ?? []
            if kept.contains(where: { $0.stamp == sighting.stamp && $0.rssi == sighting.rssi }) {
                statistics.duplicates += 1
                tag.sightings[receiver] = kept
                tags[name] = tag
                return
            }
            insert(sighting, into: &kept)
            tag.sightings[receiver] = kept
            if sighting.time <= tag.last { tag.lateNews = true }
            tag.heard = max(tag.heard, sighting.time)
            if let txPower { tag.txPower = txPower }
            tag.note(truth, at: sighting.time)
            tags[name] = tag
        } else {
            guard sighting.time > now - configuration.window else {
                statistics.late += 1
                return
            }
            if tags.count >= configuration.maximumTags, let oldest = tags.min(by: { ($0.value.heard, $0.key) < ($1.value.heard, $1.key) }) {
                tags[oldest.key] = nil
                statistics.tagsEvicted += 1
                earliestDue = tags.values.map(\.next).min().map { $0 + configuration.lateness }
            }
            // Intervals on a grid shared by every tag (so that a round of tags falls due at once),
            // the first one ending a whole interval after the first sighting: by then every
            // receiver in range has had its say.
            let interval = configuration.interval
            let next = ((sighting.time / interval).rounded(.up) + 1) * interval
            var tag = TagState(next: next, heard: sighting.time)
            tag.sightings[receiver] = [sighting]
            tag.txPower = txPower
            tag.note(truth, at: sighting.time)
            tags[name] = tag
            let due = next + configuration.lateness
            earliestDue = min(earliestDue ?? due, due)
        }
    }

    /// Inserts a sighting in time order, keeping at most the configured number (the oldest go).
    private mutating func insert(_ sighting: Sighting, into kept: inout [Sighting]) {
        var index = kept.endIndex
        while index > kept.startIndex, kept[index - 1].time > sighting.time { index -= 1 }
        kept.insert(sighting, at: index)
        let excess = kept.count - configuration.maximumSightingsPerPair
        if excess > 0 {
            kept.removeFirst(excess)
            statistics.flooded += excess
        }
    }

    // MARK: Giving out scans

    /// Gives out every tag scan whose time passes `isDue` (`all`: also those of the end of the
    /// input, up to each tag's latest sighting), in time order, tags of one time by name.
    private mutating func emit(all: Bool = false, _ isDue: (Double) -> Bool) -> [Scan] {
        var out: [Scan] = []
        let names = tags.keys.sorted()
        for name in names {
            guard var tag = tags[name] else { continue }
            tags[name] = nil
            var alive = true
            while isDue(tag.next), !all || tag.last == -.infinity || tag.next - configuration.interval < tag.heard {
                switch round(of: name, &tag) {
                case .scan(let scan): out.append(scan)
                case .quiet: continue
                case .away: alive = false
                }
                if !alive { break }
            }
            if alive, !all { tags[name] = tag }
        }
        earliestDue = tags.values.map(\.next).min().map { $0 + configuration.lateness }
        out.sort { ($0.time, $0.device ?? "") < ($1.time, $1.device ?? "") }
        statistics.scans += out.count
        return out
    }

    /// What a tag's next interval gives.
    private enum Round {
        /// A scan: some receiver heard the tag in the interval.
        case scan(Scan)
        /// No receiver heard it in the interval, but some within the window: no scan.
        case quiet
        /// No receiver heard it within the window: it is away, and forgotten.
        case away
    }

    /// The tag's round for its next interval, moving it on. A scan holds a reading per receiver
    /// that heard the tag within the window (the mean of its sightings in the last averaging
    /// seconds — since the first sighting, for a tag's first scan — or else its latest) and is
    /// dated the mean time of the sightings it averages: when what it says was heard, not when it
    /// was given out. An interval with no new sighting (one of its own, or one that came too late
    /// for the scan before) gives no scan: it would only repeat the last one.
    private func round(of name: String, _ tag: inout TagState) -> Round {
        let end = tag.next
        let windowStart = end - configuration.window
        let first = tag.last == -.infinity
        let averagedStart = first ? -Double.infinity : end - configuration.averaging
        let freshStart = first ? -Double.infinity : end - configuration.interval
        var readings: [Reading] = []
        var timeSum = 0.0, timeCount = 0, fresh = tag.lateNews
        tag.lateNews = false
        for receiver in tag.sightings.keys.sorted() {
            guard var kept = tag.sightings[receiver] else { continue }
            kept.removeAll { $0.time <= windowStart }
            tag.sightings[receiver] = kept.isEmpty ? nil : kept
            var sum = 0.0, count = 0
            var latest: Sighting?
            for sighting in kept where sighting.time <= end {
                if sighting.time > averagedStart {
                    sum += sighting.rssi
                    count += 1
                    timeSum += sighting.time
                    timeCount += 1
                    if sighting.time > freshStart { fresh = true }
                }
                latest = sighting
            }
            if let rssi = count > 0 ? sum / Double(count) : latest?.rssi {
                readings.append(Reading(beacon: .id(receivers[receiver].id), rssi: rssi, txPower: tag.txPower))
            }
        }
        tag.last = end
        tag.next = end + configuration.interval
        guard !readings.isEmpty else { return .away }
        guard fresh, timeCount > 0 else { return .quiet }
        let time = max(timeSum / Double(timeCount), tag.given)
        tag.given = time
        var scan = Scan(time: time, device: name, readings: readings)
        scan.truth = Self.truth(at: time, from: tag.truths)
        return .scan(scan)
    }

    /// The truth at `time`: interpolated between the reports' truths either side of it when both
    /// give a position on the same floor, the nearest one's otherwise.
    static func truth(at time: Double, from truths: [(time: Double, value: GroundTruth)]) -> GroundTruth? {
        let before = truths.filter { $0.time <= time }.max { $0.time < $1.time }
        let after = truths.filter { $0.time > time }.min { $0.time < $1.time }
        guard let before else { return after?.value }
        guard let after else { return before.value }
        let nearest = time - before.time <= after.time - time ? before.value : after.value
        guard let x0 = before.value.x, let y0 = before.value.y, let x1 = after.value.x, let y1 = after.value.y,
              before.value.floor == after.value.floor, after.time > before.time else { return nearest }
        let w = (time - before.time) / (after.time - before.time)
        var truth = nearest
        truth.x = x0 + w * (x1 - x0)
        truth.y = y0 + w * (y1 - y0)
        return truth
    }
}

/// A receiver's clock against the fusion's: the median of arrival − stamp over its latest
/// reports.
private struct ReceiverClock: Sendable {
    private var differences: [Double] = []
    private var next = 0

    /// How many reports the median looks at.
    static let history = 15

    /// Adds one report's arrival − stamp and returns the offset to add to its stamps.
    mutating func record(_ difference: Double) -> Double {
        if differences.count < Self.history {
            differences.append(difference)
        } else {
            differences[next] = difference
            next = (next + 1) % Self.history
        }
        let sorted = differences.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
