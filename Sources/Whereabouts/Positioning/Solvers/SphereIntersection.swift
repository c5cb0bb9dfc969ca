/// IBeaconLocation's SphereIntersection: textbook trilateration of three beacons in the frame of
/// the first beacon, with the original's two formula errors corrected.
///
/// e_x = (P2−P1)/d, i = e_x·(P3−P1), e_y = normalised(P3 − P1 − i·e_x), j = e_y·(P3−P1),
/// x = (r1² − r2² + d²)/2d, y = (r1² − r3² + i² + j²)/2j − (i/j)·x, P = P1 + x·e_x + y·e_y.
///
/// It works on the plan (the circles of the ranges' planar distances at the venue's receiver
/// height), where it solves the same two linear equations as ``PowerCenter`` in another frame and
/// so gives the same point to rounding. The triple of ranges, the bounds policy (`nil` when more
/// than the venue's margin outside its bounds, clamped when nearer) and the accuracy radius are
/// those of ``PowerCenter``.
///
/// ```swift
/// let solver = SphereIntersection(venue: PositioningVenue(venue))
/// let estimate = solver.locate(observation)
/// ```
public struct SphereIntersection: PositionSolver {
    /// The venue.
    public let venue: PositioningVenue

    /// Creates the solver for a venue.
    public init(venue: PositioningVenue) {
        self.venue = venue
    }

    /// `"sphereintersection"`.
    public var name: String { "sphereintersection" }

    /// The trilateration of the best triple of ranges, or `nil` (see ``PowerCenter``).
    public func locate(_ observation: Observation) -> PositionEstimate? {
        guard let (a, b, c) = RangeGeometry.bestTriple(observation, receiverHeight: venue.receiverHeight),
              let point = Self.trilaterate(a, b, c) else { return nil }
        return RangeGeometry.estimate(point, a, b, c, venue: venue, observation: observation)
    }

    /// The textbook trilateration of three circles, or `nil` when their centres are collinear.
    static func trilaterate(_ a: RangeCircle, _ b: RangeCircle, _ c: RangeCircle) -> PlanarPoint? {
        let dx = b.x - a.x, dy = b.y - a.y
        let d = (dx * dx + dy * dy).squareRoot()
        guard d > 0 else { return nil }
        let exX = dx / d, exY = dy / d
        let i = exX * (c.x - a.x) + exY * (c.y - a.y)
        let eyRawX = c.x - a.x - i * exX, eyRawY = c.y - a.y - i * exY
        let eyLength = (eyRawX * eyRawX + eyRawY * eyRawY).squareRoot()
        guard eyLength > 0 else { return nil }
        let eyX = eyRawX / eyLength, eyY = eyRawY / eyLength
        let j = eyX * (c.x - a.x) + eyY * (c.y - a.y)
        guard j != 0 else { return nil }
        let r1 = a.radius * a.radius, r2 = b.radius * b.radius, r3 = c.radius * c.radius
        let x = (r1 - r2 + d * d) / (2 * d)
        let y = (r1 - r3 + i * i + j * j) / (2 * j) - (i / j) * x
        let point = PlanarPoint(x: a.x + x * exX + y * eyX, y: a.y + x * exY + y * eyY)
        return point.x.isFinite && point.y.isFinite ? point : nil
    }
}
