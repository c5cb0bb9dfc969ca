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
        var sumW = 0.0, sumX = 0.0, sumY = 0.0, sumZ = 0.0, used = 0
        var maxRSSI = -Double.infinity
        for signal in observation.signals where signal.rssi.isFinite {
            maxRSSI = max(maxRSSI, signal.rssi)
        }
        guard maxRSSI.isFinite else { return nil }
        for signal in observation.signals {
            guard used < count, signal.rssi.isFinite,
                  signal.beaconIndex >= 0, signal.beaconIndex < venue.positions.count,
                  let position = venue.positions[signal.beaconIndex] else { continue }
            if let floor = observation.floor, venue.floors[signal.beaconIndex] != floor { continue }
            // Relative to the strongest, so that the weights stay in range whatever the RSSI.
            let weight = pow10((signal.rssi - maxRSSI) / 10)
            sumW += weight
            sumX += weight * position.x
            sumY += weight * position.y
            sumZ += weight * position.z
            used += 1
        }
        guard used > 0, sumW > 0 else { return nil }
        let center = SpatialPoint(x: sumX / sumW, y: sumY / sumW, z: venue.receiverHeight)
        // Weighted spread of the beacons used around the centroid.
        var spread = 0.0, seen = 0
        for signal in observation.signals {
            guard seen < used, signal.rssi.isFinite, signal.beaconIndex >= 0, signal.beaconIndex < venue.positions.count,
                  let position = venue.positions[signal.beaconIndex] else { continue }
            if let floor = observation.floor, venue.floors[signal.beaconIndex] != floor { continue }
            let weight = pow10((signal.rssi - maxRSSI) / 10)
            let dx = position.x - center.x, dy = position.y - center.y
            spread += weight * (dx * dx + dy * dy)
            seen += 1
        }
        var radius = max((spread / sumW).squareRoot(), venue.margin / 2)
        if used == 1, let range = observation.ranges.first(where: { observation.floor == nil || $0.floor == observation.floor }) {
            radius = max(radius, range.planarDistance(receiverHeight: venue.receiverHeight))
        }
        return PositionEstimate(point: center, accuracy: radius, beaconCount: used)
    }

    /// The plan position of ``locate(_:)``'s answer, bit for bit, without its radius; `nil` when it
    /// has none.
    func center(of observation: Observation) -> PlanarPoint? {
        var sumW = 0.0, sumX = 0.0, sumY = 0.0, used = 0
        var maxRSSI = -Double.infinity
        for signal in observation.signals where signal.rssi.isFinite {
            maxRSSI = max(maxRSSI, signal.rssi)
        }
        guard maxRSSI.isFinite else { return nil }
        for signal in observation.signals {
            guard used < count, signal.rssi.isFinite,
                  signal.beaconIndex >= 0, signal.beaconIndex < venue.positions.count,
                  let position = venue.positions[signal.beaconIndex] else { continue }
            if let floor = observation.floor, venue.floors[signal.beaconIndex] != floor { continue }
            let weight = pow10((signal.rssi - maxRSSI) / 10)
            sumW += weight
            sumX += weight * position.x
            sumY += weight * position.y
            used += 1
        }
        guard used > 0, sumW > 0 else { return nil }
        return PlanarPoint(x: sumX / sumW, y: sumY / sumW)
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
