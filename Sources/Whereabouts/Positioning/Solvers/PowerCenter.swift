/// IBeaconLocation's PowerCenter: the radical centre of the circles of three beacons, the point
/// with equal power with respect to the three circles (where their radical axes meet).
///
/// With k_i = (x_i² + y_i² − r_i²)/2 and D = (x1−x2)(y2−y3) − (y1−y2)(x2−x3):
/// x = [(k1−k2)(y2−y3) − (y1−y2)(k2−k3)]/D, y = [(x1−x2)(k2−k3) − (k1−k2)(x2−x3)]/D.
///
/// Unlike the original, which used the first three beacons ever added and crashed with fewer, the
/// three circles are the most certain well-shaped triple of *all* the observation's ranges (on the
/// observation's floor when it has one): among the eight ranges with the lowest standard
/// deviation, the triple with the smallest sum of standard deviations whose triangle's height is at
/// least a tenth of its longest side. The radii are the ranges' planar distances at the venue's
/// receiver height.
///
/// The answer is `nil` with fewer than three usable ranges, when every triple is (nearly)
/// collinear, or when the centre lies more than the venue's margin outside its bounds (inconsistent
/// ranges put it arbitrarily far away); a centre nearer than that is clamped onto the bounds. The
/// accuracy radius is the 68 % radius of the covariance the range uncertainties give through the
/// triangle's geometry, combined with the circles' root-mean-square misfit at the centre.
///
/// ```swift
/// let solver = PowerCenter(venue: PositioningVenue(venue))
/// if let estimate = solver.locate(observation) { print(estimate.point, estimate.accuracy) }
/// ```
public struct PowerCenter: PositionSolver {
    /// The venue.
    public let venue: PositioningVenue

    /// Creates the solver for a venue.
    public init(venue: PositioningVenue) {
        self.venue = venue
    }

    /// `"powercenter"`.
    public var name: String { "powercenter" }

    /// The radical centre of the best triple of ranges, or `nil` (see the type's discussion).
    public func locate(_ observation: Observation) -> PositionEstimate? {
        guard let (a, b, c) = RangeGeometry.bestTriple(observation, receiverHeight: venue.receiverHeight),
              let center = Self.radicalCenter(a, b, c) else { return nil }
        return RangeGeometry.estimate(center, a, b, c, venue: venue, observation: observation)
    }

    /// The radical centre of three circles, or `nil` when their centres are collinear.
    static func radicalCenter(_ a: RangeCircle, _ b: RangeCircle, _ c: RangeCircle) -> PlanarPoint? {
        let (x1, y1, x2, y2, x3, y3) = (a.x, a.y, b.x, b.y, c.x, c.y)
        let k1 = (x1 * x1 + y1 * y1 - a.radius * a.radius) / 2
        let k2 = (x2 * x2 + y2 * y2 - b.radius * b.radius) / 2
        let k3 = (x3 * x3 + y3 * y3 - c.radius * c.radius) / 2
        let d = (x1 - x2) * (y2 - y3) - (y1 - y2) * (x2 - x3)
        guard d != 0 else { return nil }
        let x = ((k1 - k2) * (y2 - y3) - (y1 - y2) * (k2 - k3)) / d
        let y = ((x1 - x2) * (k2 - k3) - (k1 - k2) * (x2 - x3)) / d
        guard x.isFinite, y.isFinite else { return nil }
        return PlanarPoint(x: x, y: y)
    }
}

extension RangeGeometry {
    /// The estimate of a three-circle solver: `point` bounded to the venue (``bounded(_:in:margin:)``)
    /// at the receiver height, with ``accuracy(at:_:_:_:cap:)``.
    static func estimate(_ point: PlanarPoint, _ a: RangeCircle, _ b: RangeCircle, _ c: RangeCircle,
                         venue: PositioningVenue, observation: Observation, extraSpread: Double = 0) -> PositionEstimate? {
        guard let bounds = bounds(venue, observation),
              let bounded = bounded(point, in: bounds, margin: venue.margin) else { return nil }
        let cap = diagonal(bounds)
        var radius = accuracy(at: bounded, a, b, c, cap: cap)
        if extraSpread > 0 { radius = min((radius * radius + extraSpread * extraSpread).squareRoot(), cap) }
        let estimate = PositionEstimate(point: SpatialPoint(x: bounded.x, y: bounded.y, z: venue.receiverHeight),
                                        accuracy: radius.isFinite ? radius : cap, beaconCount: 3)
        return estimate.isFinite ? estimate : nil
    }
}
