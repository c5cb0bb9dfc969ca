import Foundation
@testable import Whereabouts

/// Small venues and hand-made observations for the solver tests.
enum SolverFixture {
    /// A venue with one beacon per point (ids "b0", "b1", …), on floor 0 unless `floors` says
    /// otherwise; the beacons' heights are known only when `heights` is set.
    static func venue(_ points: [SpatialPoint], floors: [Int]? = nil, heights: Bool = false) -> PositioningVenue {
        let beacons = points.enumerated().map { index, point in
            Venue.Beacon(id: "b\(index)", x: point.x, y: point.y, z: heights ? point.z : nil,
                         floor: floors?[index] ?? 0)
        }
        return PositioningVenue(Venue(beacons: beacons))
    }

    /// A venue of beacons on the plan (z = 0, heights unknown, so the receiver height is 0 too).
    static func venue(_ points: [(Double, Double)]) -> PositioningVenue {
        venue(points.map { SpatialPoint(x: $0.0, y: $0.1, z: 0) })
    }

    /// An observation of the venue's first `distances.count` beacons at the given distances and
    /// standard deviations; signals get an RSSI that falls with distance (n = 2, −59 dBm at 1 m).
    static func observation(_ venue: PositioningVenue, distances: [Double], sigmas: [Double], floor: Int? = nil) -> Observation {
        var signals: [BeaconSignal] = []
        var ranges: [BeaconRange] = []
        for (index, distance) in distances.enumerated() {
            guard let position = venue.positions[index] else { continue }
            let rssi = -59 - 20 * log10(max(distance, 1e-3))
            signals.append(BeaconSignal(beaconIndex: index, rssi: rssi))
            ranges.append(BeaconRange(beaconIndex: index, position: position, floor: venue.floors[index],
                                      distance: distance, standardDeviation: sigmas[index], rssi: rssi))
        }
        return Observation(time: 0, floor: floor, signals: signals, ranges: ranges)
    }

    /// The exact 3-D distances from `truth` to every placed beacon of the venue (0 for unplaced ones).
    static func exactDistances(_ venue: PositioningVenue, to truth: SpatialPoint) -> [Double] {
        venue.positions.map { $0.map { $0.distance(to: truth) } ?? 0 }
    }

    /// Every range solver, for the tests that hold for all of them.
    static func solvers(_ venue: PositioningVenue) -> [any PositionSolver] {
        [PowerCenter(venue: venue), SphereIntersection(venue: venue), EPTA(venue: venue),
         Multilateration(venue: venue),
         Multilateration(venue: venue, options: .init(loss: .cauchy, residual: .logDistance)),
         Multilateration(venue: venue, options: .init(loss: .squared, weighting: .uniform, dimensions: .planar))]
    }
}
