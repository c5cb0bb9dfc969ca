import Foundation

/// The weighted centroid of the `k` strongest beacons heard, with linear-power weights
/// w = 10^(rssi/10): works from a single beacon, never leaves the beacons' hull.
///
/// Its accuracy radius is the weighted spread of the beacons used around the centroid, at least
/// half the venue's margin; with one beacon, at least the distance its RSSI implies (its range).
public struct WeightedCentroid: PositionSolver {
    /// The venue.
    public let venue: PositioningVenue
    /// How many of the strongest beacons to use.
    public var count: Int

    /// Creates the solver with the `count` strongest beacons (default 4).
    public init(venue: PositioningVenue, count: Int = 4) {
        self.venue = venue
        self.count = max(1, count)
    }

    /// `"centroid"`.
    public var name: String { "centroid" }

    /// The centroid, or `nil` when no beacon with a position was heard.
    public func locate(_ observation: Observation) -> PositionEstimate? {
        guard let weighted = weightedCenter(of: observation) else { return nil }
        let center = weighted.center
        // Weighted spread of the beacons used around the centroid.
        var spread = 0.0
        forEachUsedBeacon(of: observation, strongest: weighted.strongest) { position, weight in
            let dx = position.x - center.x, dy = position.y - center.y
            spread += weight * (dx * dx + dy * dy)
        }
        var radius = max((spread / weighted.totalWeight).squareRoot(), venue.margin / 2)
        if weighted.used == 1, let range = observation.ranges.first(where: { observation.floor == nil || $0.floor == observation.floor }) {
            radius = max(radius, range.planarDistance(receiverHeight: venue.receiverHeight))
        }
        return PositionEstimate(point: SpatialPoint(x: center.x, y: center.y, z: venue.receiverHeight),
                                accuracy: radius, beaconCount: weighted.used)
    }

    /// The plan position of ``locate(_:)``'s answer, bit for bit, without its radius; `nil` when it
    /// has none.
    func center(of observation: Observation) -> PlanarPoint? {
        weightedCenter(of: observation)?.center
    }

    /// The centroid, its total weight, the number of beacons used and the strongest RSSI heard.
    private func weightedCenter(of observation: Observation)
        -> (center: PlanarPoint, totalWeight: Double, used: Int, strongest: Double)? {
        var strongest = -Double.infinity
        for signal in observation.signals where signal.rssi.isFinite {
            strongest = max(strongest, signal.rssi)
        }
        guard strongest.isFinite else { return nil }
        var sumW = 0.0, sumX = 0.0, sumY = 0.0
        let used = forEachUsedBeacon(of: observation, strongest: strongest) { position, weight in
            sumW += weight
            sumX += weight * position.x
            sumY += weight * position.y
        }
        guard used > 0, sumW > 0 else { return nil }
        return (PlanarPoint(x: sumX / sumW, y: sumY / sumW), sumW, used, strongest)
    }

    /// Calls `body` with the position and weight of each beacon the centroid uses — the `count`
    /// strongest placed beacons (of the observation's floor, when set) — and returns how many.
    /// Weights are relative to the strongest RSSI, so that they stay in range whatever the RSSI.
    @discardableResult
    private func forEachUsedBeacon(of observation: Observation, strongest: Double,
                                   _ body: (SpatialPoint, Double) -> Void) -> Int {
        var used = 0
        for signal in observation.signals {
            guard used < count, signal.rssi.isFinite,
                  signal.beaconIndex >= 0, signal.beaconIndex < venue.positions.count,
                  let position = venue.positions[signal.beaconIndex] else { continue }
            if let floor = observation.floor, venue.floors[signal.beaconIndex] != floor { continue }
            body(position, pow10((signal.rssi - strongest) / 10))
            used += 1
        }
        return used
    }

    /// Whether `other` places every observation where this one does: the same count, beacon
    /// positions and floors.
    func placesLike(_ other: WeightedCentroid) -> Bool {
        count == other.count && venue.positions == other.venue.positions && venue.floors == other.venue.floors
    }
}

/// 10^x without Foundation's `pow` overhead for the common range.
@inline(__always) func pow10(_ x: Double) -> Double {
    exp(x * 2.302585092994046)
}
