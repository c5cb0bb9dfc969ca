import Foundation

/// Fixed receivers hearing a tag carried along a ``Walk``: each receiver's reports as they reach
/// a fusion (FORMATS.md §8), with what real networks of receivers do — each receiver reports on
/// its own schedule, with its own clock, over a network that delays, loses and repeats reports.
///
/// The venue's receivers (or, when it lists none, its beacons taken as receivers) listen; the
/// walk's `device` (or `"tag"`) is the tag. Each receiver reports every
/// ``Network/reportInterval`` seconds from a phase of its own, give or take
/// ``Network/jitter``, what it heard at that moment through the ``RadioModel`` (a packet lost by
/// the radio is not reported); it stamps the report with its clock, off by up to
/// ``Network/clockOffset`` either way; the report arrives after a delay drawn from
/// ``Network/delay``, unless it is lost (``Network/reportLoss``), and is sometimes repeated
/// (``Network/duplicates``). The reports come out in the order they arrive, each with the tag's
/// true position when it was heard. The same seed always gives the same reports.
///
/// ```swift
/// let preset = SimulationPreset.espresenseRoom
/// let simulator = ReceiverReportSimulator(venue: preset.venue, walk: preset.walk, radio: preset.radio, seed: 1)
/// for report in simulator.reports().prefix(3) { print(report.device ?? "-", report.time, report.arrival ?? 0) }
/// ```
public struct ReceiverReportSimulator: Sendable {
    /// How the receivers report over the network.
    public struct Network: Hashable, Sendable {
        /// Seconds between a receiver's reports (default 1).
        public var reportInterval: Double
        /// Seconds a report's moment may fall either side of its schedule (default 0.1).
        public var jitter: Double
        /// Seconds a receiver's clock may be off either way (default 0.5).
        public var clockOffset: Double
        /// Seconds a report takes to arrive, drawn uniformly (default 0.02...0.2).
        public var delay: ClosedRange<Double>
        /// Share of reports lost on the way, 0–1 (default 0.1).
        public var reportLoss: Double
        /// Share of reports that arrive twice, 0–1 (default 0.05).
        public var duplicates: Double

        /// A network; values out of range are brought into it.
        public init(reportInterval: Double = 1, jitter: Double = 0.1, clockOffset: Double = 0.5,
                    delay: ClosedRange<Double> = 0.02...0.2, reportLoss: Double = 0.1, duplicates: Double = 0.05) {
            self.reportInterval = reportInterval.isFinite ? max(0.01, reportInterval) : 1
            self.jitter = jitter.isFinite ? min(max(0, jitter), self.reportInterval / 2 * 0.9) : 0
            self.clockOffset = clockOffset.isFinite ? min(max(0, clockOffset), 3_600) : 0
            self.delay = delay.lowerBound.isFinite && delay.upperBound.isFinite
                ? max(0, delay.lowerBound)...max(0, delay.upperBound, delay.lowerBound) : 0...0
            self.reportLoss = reportLoss.isFinite ? min(max(0, reportLoss), 1) : 0
            self.duplicates = duplicates.isFinite ? min(max(0, duplicates), 1) : 0
        }
    }

    /// The venue whose receivers listen (its beacons when it lists no receivers).
    public var venue: Venue
    /// The path the tag follows.
    public var walk: Walk
    /// How the receivers hear the tag.
    public var radio: RadioModel
    /// How the reports travel.
    public var network: Network
    /// The seed of the random numbers.
    public var seed: UInt64

    /// The most reports one simulation makes (a bound on a long walk with many receivers).
    public static let maximumReports = 10_000_000

    /// Creates a simulator.
    public init(venue: Venue, walk: Walk, radio: RadioModel = RadioModel(), network: Network = Network(), seed: UInt64 = 0) {
        self.venue = venue
        self.walk = walk
        self.radio = radio
        self.network = network
        self.seed = seed
    }

    /// The venue with its listeners as ``Venue/receivers`` (its beacons moved there, their
    /// calibration as an RSSI offset, when it lists no receivers): the venue to fuse the reports in.
    public var receiverVenue: Venue {
        guard venue.receivers.isEmpty else { return venue }
        var receivers = venue
        receivers.receivers = venue.beacons.map { beacon in
            Venue.Receiver(id: beacon.id, x: beacon.x, y: beacon.y, z: beacon.z, coordinate: beacon.coordinate,
                           floor: beacon.floor, rssiOffset: (beacon.txPower ?? venue.defaults.txPower) - venue.defaults.txPower,
                           pathLossExponent: beacon.pathLossExponent)
        }
        receivers.beacons = []
        return receivers
    }

    /// The reports, in the order they arrive (at most ``maximumReports``).
    public func reports() -> [Scan] {
        let listeners = receiverVenue.receiversAsBeacons()
        let world = Simulator.World(venue: listeners, radio: radio, seed: radio.shadowingFieldSeed ?? seed)
        let schedule = Walk.Schedule(walk)
        let duration = schedule.duration
        guard duration.isFinite, duration >= 0 else { return [] }
        let tag = walk.device ?? "tag"
        var random = SeededRandom(seed: seed)
        var reports: [(report: Scan, order: Int)] = []
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUniform()
        }
        for beacon in world.beacons {
            let clock = uniform(-network.clockOffset...network.clockOffset)
            var scheduled = uniform(0...network.reportInterval)
            var cursor = 0
            while scheduled <= duration, reports.count < Self.maximumReports {
                let moment = min(duration, max(0, scheduled + uniform(-network.jitter...network.jitter)))
                scheduled += network.reportInterval
                let lost = random.nextUniform() < network.reportLoss
                let repeated = random.nextUniform() < network.duplicates
                let position = schedule.position(atOffset: moment, cursor: &cursor)
                guard let rssi = radio.sample(mean: world.meanRSSI(of: beacon, at: position), using: &random), !lost else { continue }
                let truth = GroundTruth(x: position.x, y: position.y, z: radio.receiverHeight, floor: position.floor,
                                        place: world.place(containing: position))
                var report = Scan(time: walk.start + moment + clock, device: beacon.id, track: walk.track,
                                  readings: [Reading(beacon: .id(tag), rssi: rssi)], truth: truth)
                report.arrival = walk.start + moment + uniform(network.delay)
                reports.append((report, reports.count))
                if repeated, let arrival = report.arrival {
                    report.arrival = arrival + uniform(network.delay)
                    reports.append((report, reports.count))
                }
            }
        }
        // In arrival order; a receiver's reports keep theirs, so its stamps never go back.
        reports.sort { ($0.report.arrival ?? 0, $0.order) < ($1.report.arrival ?? 0, $1.order) }
        var last: [String: Double] = [:]
        var ordered: [Scan] = []
        ordered.reserveCapacity(reports.count)
        for (report, _) in reports {
            let device = report.device ?? ""
            guard report.time >= (last[device] ?? -.infinity) else { continue }
            last[device] = report.time
            ordered.append(report)
        }
        return ordered
    }
}
