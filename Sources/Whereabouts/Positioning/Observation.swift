/// One beacon heard in an ``Observation``: which venue beacon, and how loud after filtering.
public struct BeaconSignal: Hashable, Sendable {
    /// Index of the beacon in the venue's `beacons`.
    public var beaconIndex: Int
    /// The RSSI the solver should use (filtered when the engine filters), dBm.
    public var rssi: Double
    /// The RSSI of the latest raw reading, dBm.
    public var rawRSSI: Double

    /// Creates a signal; `rawRSSI` defaults to `rssi`.
    public init(beaconIndex: Int, rssi: Double, rawRSSI: Double? = nil) {
        self.beaconIndex = beaconIndex
        self.rssi = rssi
        self.rawRSSI = rawRSSI ?? rssi
    }
}

/// The distance to one beacon with a known position, as a range-based solver uses it.
public struct BeaconRange: Hashable, Sendable {
    /// Index of the beacon in the venue's `beacons`.
    public var beaconIndex: Int
    /// Where the beacon is, in venue units.
    public var position: SpatialPoint
    /// The beacon's floor level.
    public var floor: Int
    /// Estimated distance from the receiver to the beacon, venue units (3-D).
    public var distance: Double
    /// Standard deviation of ``distance``, venue units; solvers weight ranges by it.
    public var standardDeviation: Double
    /// The RSSI the distance came from, dBm.
    public var rssi: Double

    /// Creates a range.
    public init(beaconIndex: Int, position: SpatialPoint, floor: Int = 0, distance: Double,
                standardDeviation: Double, rssi: Double) {
        self.beaconIndex = beaconIndex
        self.position = position
        self.floor = floor
        self.distance = distance
        self.standardDeviation = standardDeviation
        self.rssi = rssi
    }

    /// The distance projected on the plan of the receiver: `sqrt(d² − Δz²)` with Δz the height
    /// between beacon and receiver, never negative.
    public func planarDistance(receiverHeight: Double) -> Double {
        let dz = position.z - receiverHeight
        let squared = distance * distance - dz * dz
        return squared > 0 ? squared.squareRoot() : 0
    }
}

/// What a solver gets for one moment: the venue beacons heard (filtered RSSI) and, for those
/// with a known position, their ranges.
///
/// The engine builds observations from scans (resolving readings to venue beacons, filtering,
/// turning RSSI into ranges with the venue's calibration); a test or a custom pipeline may build
/// them by hand.
///
/// ```swift
/// let observation = Observation(time: 12, signals: [BeaconSignal(beaconIndex: 0, rssi: -65)],
///                               ranges: [BeaconRange(beaconIndex: 0, position: SpatialPoint(x: 0, y: 0, z: 2),
///                                                    distance: 2.1, standardDeviation: 0.9, rssi: -65)])
/// ```
public struct Observation: Sendable {
    /// Time of the observation, seconds.
    public var time: Double
    /// The device observed, if known.
    public var device: String?
    /// The floor the engine chose for this observation, if it chose one; solvers then use only
    /// that floor's beacons.
    public var floor: Int?
    /// Every venue beacon heard, strongest first.
    public var signals: [BeaconSignal]
    /// The ranges of the heard beacons that have a position, shortest first.
    public var ranges: [BeaconRange]

    /// Creates an observation; `signals` and `ranges` are sorted (strongest, shortest first; ties
    /// by beacon index, so that the order never depends on how the caller collected them).
    public init(time: Double, device: String? = nil, floor: Int? = nil, signals: [BeaconSignal], ranges: [BeaconRange]) {
        self.time = time
        self.device = device
        self.floor = floor
        self.signals = signals.sorted { ($0.rssi, $1.beaconIndex) > ($1.rssi, $0.beaconIndex) }
        self.ranges = ranges.sorted { ($0.distance, $0.beaconIndex) < ($1.distance, $1.beaconIndex) }
    }

    /// An observation whose arrays are already in order (``sortSignals(_:)``, ``sortRanges(_:)``).
    init(time: Double, device: String?, floor: Int? = nil, sortedSignals: [BeaconSignal], sortedRanges: [BeaconRange]) {
        self.time = time
        self.device = device
        self.floor = floor
        signals = sortedSignals
        ranges = sortedRanges
    }

    /// Sorts signals as ``init(time:device:floor:signals:ranges:)`` does (strongest first, ties by
    /// beacon index), in place: insertion sort for the few signals of a scan when every RSSI is a
    /// number (the order is then total, so any sort gives the same one), the standard sort otherwise.
    static func sortSignals(_ signals: inout [BeaconSignal]) {
        guard signals.count <= 48, !signals.contains(where: { $0.rssi.isNaN }) else {
            signals.sort { ($0.rssi, $1.beaconIndex) > ($1.rssi, $0.beaconIndex) }
            return
        }
        signals.withUnsafeMutableBufferPointer { buffer in
            guard buffer.count > 1 else { return }
            for next in 1..<buffer.count {
                let item = buffer[next]
                var slot = next
                while slot > 0, item.rssi > buffer[slot - 1].rssi
                        || (item.rssi == buffer[slot - 1].rssi && item.beaconIndex < buffer[slot - 1].beaconIndex) {
                    buffer[slot] = buffer[slot - 1]
                    slot -= 1
                }
                buffer[slot] = item
            }
        }
    }

    /// Sorts ranges as ``init(time:device:floor:signals:ranges:)`` does (shortest first, ties by
    /// beacon index), in place; see ``sortSignals(_:)``.
    static func sortRanges(_ ranges: inout [BeaconRange]) {
        guard ranges.count <= 48, !ranges.contains(where: { $0.distance.isNaN }) else {
            ranges.sort { ($0.distance, $0.beaconIndex) < ($1.distance, $1.beaconIndex) }
            return
        }
        ranges.withUnsafeMutableBufferPointer { buffer in
            guard buffer.count > 1 else { return }
            for next in 1..<buffer.count {
                let item = buffer[next]
                var slot = next
                while slot > 0, item.distance < buffer[slot - 1].distance
                        || (item.distance == buffer[slot - 1].distance && item.beaconIndex < buffer[slot - 1].beaconIndex) {
                    buffer[slot] = buffer[slot - 1]
                    slot -= 1
                }
                buffer[slot] = item
            }
        }
    }
}

extension Observation {
    /// How badly a point fits the ranges: the root-mean-square, over the ranges (of the
    /// observation's floor, when it has one), of |distance on the plan from the point to the beacon
    /// − the range's planar distance at `receiverHeight`|, venue units; `nil` without ranges.
    /// A solver of the caller's that gives only a point can take it as its accuracy radius.
    public func rangeMisfit(at point: PlanarPoint, receiverHeight: Double) -> Double? {
        var sum = 0.0, count = 0
        for range in ranges where floor == nil || range.floor == floor {
            let dx = point.x - range.position.x, dy = point.y - range.position.y
            let residual = (dx * dx + dy * dy).squareRoot() - range.planarDistance(receiverHeight: receiverHeight)
            sum += residual * residual
            count += 1
        }
        guard count > 0 else { return nil }
        let misfit = (sum / Double(count)).squareRoot()
        return misfit.isFinite ? misfit : nil
    }
}
