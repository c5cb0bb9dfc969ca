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

    /// A tag carried along a walk, heard through a radio model of its own (a tag's power, a
    /// phone's gain).
    public struct Visit: Sendable {
        /// The path the tag follows; its `device` names the tag (`"tag"` when it has none).
        public var walk: Walk
        /// How the receivers hear this tag.
        public var radio: RadioModel

        /// A visit.
        public init(walk: Walk, radio: RadioModel) {
            self.walk = walk
            self.radio = radio
        }
    }

    /// The venue whose receivers listen (its beacons when it lists no receivers).
    public var venue: Venue
    /// The tags' walks, heard by the same receivers (with the same clocks).
    public var visits: [Visit]
    /// How the reports travel.
    public var network: Network
    /// The seed of the random numbers.
    public var seed: UInt64

    /// The most reports one simulation makes (a bound on a long walk with many receivers).
    public static let maximumReports = 10_000_000

    /// A simulator of one tag's walk.
    public init(venue: Venue, walk: Walk, radio: RadioModel = RadioModel(), network: Network = Network(), seed: UInt64 = 0) {
        self.init(venue: venue, visits: [Visit(walk: walk, radio: radio)], network: network, seed: seed)
    }

    /// A simulator of several tags' walks (at the same time or one after the other).
    public init(venue: Venue, visits: [Visit], network: Network = Network(), seed: UInt64 = 0) {
        self.venue = venue
        self.visits = visits
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

    /// The reports, in the order they arrive (at most ``maximumReports``). Each receiver's reach
    /// the fusion in the order it sent them, as over one connection.
    public func reports() -> [Scan] {
        let listeners = receiverVenue.receiversAsBeacons()
        var random = SeededRandom(seed: seed)
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUniform()
        }
        // Each receiver's clock, the same for every tag it hears.
        var clocks: [String: Double] = [:]
        for receiver in listeners.beacons where clocks[receiver.id] == nil {
            clocks[receiver.id] = uniform(-network.clockOffset...network.clockOffset)
        }
        var byReceiver: [String: [(moment: Double, report: Scan, repeated: Bool)]] = [:]
        var count = 0
        for visit in visits {
            let world = Simulator.World(venue: listeners, radio: visit.radio, seed: visit.radio.shadowingFieldSeed ?? seed)
            let schedule = Walk.Schedule(visit.walk)
            let duration = schedule.duration
            guard duration.isFinite, duration >= 0 else { continue }
            let tag = visit.walk.device ?? "tag"
            for beacon in world.beacons {
                let clock = clocks[beacon.id] ?? 0
                var scheduled = uniform(0...network.reportInterval)
                var cursor = 0
                while scheduled <= duration, count < Self.maximumReports {
                    let moment = min(duration, max(0, scheduled + uniform(-network.jitter...network.jitter)))
                    scheduled += network.reportInterval
                    let lost = random.nextUniform() < network.reportLoss
                    let repeated = random.nextUniform() < network.duplicates
                    let position = schedule.position(atOffset: moment, cursor: &cursor)
                    guard let rssi = visit.radio.sample(mean: world.meanRSSI(of: beacon, at: position), using: &random), !lost else { continue }
                    let truth = GroundTruth(x: position.x, y: position.y, z: visit.radio.receiverHeight, floor: position.floor,
                                            place: world.place(containing: position))
                    let report = Scan(time: visit.walk.start + moment + clock, device: beacon.id, track: visit.walk.track,
                                      readings: [Reading(beacon: .id(tag), rssi: rssi)], truth: truth)
                    byReceiver[beacon.id, default: []].append((visit.walk.start + moment, report, repeated))
                    count += repeated ? 2 : 1
                }
            }
        }
        // Per receiver, in the order it heard: each report arrives after its delay, but never
        // before the one sent before it; a repeated one arrives again right after.
        var arrived: [(report: Scan, order: Int)] = []
        arrived.reserveCapacity(count)
        for id in byReceiver.keys.sorted() {
            var last = -Double.infinity
            for (moment, report, repeated) in (byReceiver[id] ?? []).sorted(by: { $0.moment < $1.moment }) {
                var sent = report
                last = max(last, moment + uniform(network.delay))
                sent.arrival = last
                arrived.append((sent, arrived.count))
                if repeated {
                    last += uniform(network.delay)
                    sent.arrival = last
                    arrived.append((sent, arrived.count))
                }
            }
        }
        arrived.sort { ($0.report.arrival ?? 0, $0.order) < ($1.report.arrival ?? 0, $1.order) }
        return arrived.map(\.report)
    }
}
