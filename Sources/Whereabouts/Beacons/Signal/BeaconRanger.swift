import Foundation

/// A beacon in range in one ranging round: what CoreLocation's `CLBeacon` carries (identity,
/// RSSI, distance, proximity), from any source of scans.
///
/// ```swift
/// RangedBeacon(beacon: .id("h3-1"), rssi: -62, distance: 0.4, proximity: .immediate, time: 12)
/// ```
public struct RangedBeacon: Hashable, Sendable {
    /// The beacon, as the readings named it.
    public var beacon: BeaconReference
    /// Its iBeacon identity: the reading's own, or the venue beacon's when the reading named it by
    /// venue id; `nil` when unknown.
    public var identity: IBeaconIdentity?
    /// The RSSI over the round (the mean of its readings), dBm.
    public var rssi: Double
    /// The estimated distance, metres: the source's own when it reported one, else the venue's
    /// log-distance model; `nil` when neither can tell.
    public var distance: Double?
    /// The proximity class of ``distance``.
    public var proximity: Proximity
    /// When the round ended: the time of its last scan.
    public var time: Double

    /// Creates a ranged beacon.
    public init(beacon: BeaconReference, identity: IBeaconIdentity? = nil, rssi: Double, distance: Double?,
                proximity: Proximity, time: Double) {
        self.beacon = beacon
        self.identity = identity
        self.rssi = rssi
        self.distance = distance
        self.proximity = proximity
        self.time = time
    }
}

/// Turns scans from any source (a replayed recording, a btsnoop capture, the BlueZ scanner,
/// CoreLocation) into ranging rounds, as CoreLocation's ranging reports beacons to an app: every
/// ``interval`` seconds of scan time, each beacon heard in that time with its mean RSSI, its
/// distance and its proximity, closest first.
///
/// The distance is the reading's own (``Reading/reportedDistance``, CoreLocation's `accuracy`)
/// when it has one, else d = 10^((txPower − rssi)/(10·n)) metres with the reading's advertised
/// txPower, else the venue beacon's (or the venue's default, −59 dBm), and the venue beacon's
/// path-loss exponent n (default 2). The proximity follows ``Proximity/init(distance:thresholds:)``.
///
/// With an interval of 0 every scan is a round of its own (a source that already ranges by the
/// second, such as CoreLocation); otherwise a round closes when a scan comes at least
/// `interval` seconds after the round's first one, and ``finish()`` closes the last. A live
/// source also lets time close rounds (``advance(to:)``, due at ``nextRoundEnd``): the open round
/// when its interval is over, then, if the next interval passes without a scan, one empty round,
/// as CoreLocation reports a round with no beacon when none is in range.
///
/// ```swift
/// var ranger = BeaconRanger(venue: venue)
/// for scan in scans {
///     for round in ranger.add(scan) { print(round.map { "\($0.beacon) \($0.proximity)" }) }
/// }
/// if let last = ranger.finish() { print(last) }
/// ```
public struct BeaconRanger: Sendable {
    /// Seconds of scan time a round covers; 0 makes every scan a round.
    public let interval: Double
    /// The distances that separate the proximity classes.
    public let thresholds: Proximity.Thresholds
    /// The most beacons one round holds; further beacons of a round are dropped (a bound on
    /// hostile input).
    public static let maximumBeaconsPerRound = 4_096

    private let directory: BeaconDirectory?
    private let venue: Venue?

    /// One beacon's readings in the open round.
    private struct Heard: Sendable {
        var beacon: BeaconReference
        var sum: Double
        var count: Int
        var txPower: Double?
        var reportedDistance: Double?
    }

    private var heard: [BeaconReference: Int] = [:]
    private var round: [Heard] = []
    private var roundStart: Double?
    private var lastTime = -Double.infinity
    /// When the empty round of a silent interval falls due, after a round closed on time.
    private var emptyRoundTime: Double?

    /// Creates a ranger; the venue (optional) names the beacons' identities and calibrations.
    public init(venue: Venue? = nil, interval: Double = 1, thresholds: Proximity.Thresholds = Proximity.Thresholds()) {
        self.venue = venue
        directory = venue.map(BeaconDirectory.init)
        self.interval = interval.isFinite && interval > 0 ? interval : 0
        self.thresholds = thresholds
    }

    /// Takes in a scan; returns the rounds it closed (none, or one: the round before it, or with
    /// an interval of 0 the scan's own).
    public mutating func add(_ scan: Scan) -> [[RangedBeacon]] {
        var closed: [[RangedBeacon]] = []
        if let roundStart, scan.time >= roundStart + interval || scan.time < roundStart, interval > 0,
           let previous = finish() {
            closed.append(previous)
        }
        if roundStart == nil { roundStart = scan.time }
        emptyRoundTime = nil
        for reading in scan.readings where reading.isValid {
            if let index = heard[reading.beacon] {
                round[index].sum += reading.rssi
                round[index].count += 1
                if let txPower = reading.txPower { round[index].txPower = txPower }
                round[index].reportedDistance = reading.reportedDistance
            } else if round.count < Self.maximumBeaconsPerRound {
                heard[reading.beacon] = round.count
                round.append(Heard(beacon: reading.beacon, sum: reading.rssi, count: 1, txPower: reading.txPower,
                                   reportedDistance: reading.reportedDistance))
            }
        }
        lastTime = scan.time
        if interval == 0, let own = finish() { closed.append(own) }
        return closed
    }

    /// When the open round ends, or the empty round of a silent interval falls due; `nil` when
    /// neither is pending (or the interval is 0: each scan is its own round).
    public var nextRoundEnd: Double? {
        guard interval > 0 else { return nil }
        if let roundStart { return roundStart + interval }
        return emptyRoundTime
    }

    /// Lets time run on to `time` without a scan (a live source's silence) and returns the rounds
    /// that ended by then: the open round once its interval is over, then, once another interval
    /// passed with no scan, an empty round (nothing in range), once.
    public mutating func advance(to time: Double) -> [[RangedBeacon]] {
        guard interval > 0, time.isFinite else { return [] }
        var closed: [[RangedBeacon]] = []
        if let roundStart, time >= roundStart + interval, let round = finish() {
            closed.append(round)
            emptyRoundTime = roundStart + 2 * interval
        }
        if let emptyRoundTime, time >= emptyRoundTime {
            closed.append([])
            self.emptyRoundTime = nil
        }
        return closed
    }

    /// Closes the open round and returns it (`nil` when no scan came since the last round).
    public mutating func finish() -> [RangedBeacon]? {
        guard roundStart != nil else { return nil }
        let time = lastTime
        let beacons = round.map { heard in
            let rssi = heard.sum / Double(heard.count)
            let distance = heard.reportedDistance ?? distance(of: heard.beacon, rssi: rssi, txPower: heard.txPower)
            return RangedBeacon(beacon: heard.beacon, identity: identity(of: heard.beacon), rssi: rssi, distance: distance,
                                proximity: Proximity(distance: distance, thresholds: thresholds), time: time)
        }
        round.removeAll(keepingCapacity: true)
        heard.removeAll(keepingCapacity: true)
        roundStart = nil
        return beacons.sorted { ($0.proximity, -$0.rssi) < ($1.proximity, -$1.rssi) }
    }

    /// The log-distance distance of an RSSI, metres (see the type's discussion).
    public func distance(of beacon: BeaconReference, rssi: Double, txPower: Double? = nil) -> Double? {
        let venueBeacon = directory?.index(for: beacon).flatMap { venue?.beacons[$0] }
        let power = txPower ?? venueBeacon?.txPower ?? venue?.defaults.txPower ?? Venue.Defaults().txPower
        let exponent = venueBeacon?.pathLossExponent ?? venue?.defaults.pathLossExponent ?? LogDistancePathLossModel.defaultExponent
        return LogDistancePathLossModel(exponent: exponent)?.distance(rssi: rssi, txPower: power)
    }

    /// The iBeacon identity of a beacon reference: its own, or its venue beacon's.
    public func identity(of beacon: BeaconReference) -> IBeaconIdentity? {
        switch beacon {
        case .iBeacon(let identity): identity
        case .id, .eddystone: directory?.index(for: beacon).flatMap { venue?.beacons[$0].iBeacon }
        }
    }
}
