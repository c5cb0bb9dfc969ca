/// IBeaconLocation's EPTA, the Enhanced Positioning Trilateration Algorithm (Brida & Machaj,
/// 2013): intersect every pair of three circles, keep the intersection points that lie inside all
/// three (within a tolerance of 0.01 m), and return the centroid when two or three remain;
/// otherwise grow every radius by 10 % and try again, for at most ``maximumRounds`` rounds (the
/// original never returned a point).
///
/// When four or more points remain (one circle holds the lens of the two others), growing the radii
/// cannot reduce their number, so their centroid is returned too. The triple of ranges and the
/// bounds policy are those of ``PowerCenter``; radii below a thousandth of the triangle's longest
/// side are raised to it, so that a beacon heard right overhead still yields intersections. The
/// accuracy radius combines, in quadrature, the geometry term of ``PowerCenter`` at the centroid,
/// the root-mean-square distance of the kept points from the centroid, and how far the radii had
/// to grow (the growth times the mean original radius).
///
/// ```swift
/// let solver = EPTA(venue: PositioningVenue(venue))
/// let estimate = solver.locate(observation)
/// ```
public struct EPTA: PositionSolver {
    /// The venue.
    public let venue: PositioningVenue
    /// How many times the radii may grow before the solver gives up.
    public var maximumRounds: Int
    /// The factor the radii grow by each round.
    public var growth: Double

    /// Creates the solver; by default the radii grow by 10 % at most 100 times.
    public init(venue: PositioningVenue, maximumRounds: Int = 100, growth: Double = 1.1) {
        self.venue = venue
        self.maximumRounds = max(0, maximumRounds)
        self.growth = growth.isFinite && growth > 1 ? growth : 1.1
    }

    /// `"epta"`.
    public var name: String { "epta" }

    /// The EPTA point of the best triple of ranges, or `nil` (see ``PowerCenter``, and when no round
    /// leaves two or more points).
    public func locate(_ observation: Observation) -> PositionEstimate? {
        guard let (a, b, c) = RangeGeometry.bestTriple(observation, receiverHeight: venue.receiverHeight) else { return nil }
        let tolerance = 0.01 / (venue.venue.units.metres ?? 1)
        guard let result = Self.centroid(a, b, c, tolerance: tolerance, growth: growth, maximumRounds: maximumRounds)
        else { return nil }
        let meanRadius = (a.radius + b.radius + c.radius) / 3
        let stretch = (result.scale - 1) * meanRadius
        let extra = (result.spread * result.spread + stretch * stretch).squareRoot()
        return RangeGeometry.estimate(result.point, a, b, c, venue: venue, observation: observation, extraSpread: extra)
    }

    /// The EPTA centroid of three circles, the root-mean-square distance of the kept points from
    /// it and the factor the radii were grown by; `nil` when no round kept two or more points.
    static func centroid(_ a: RangeCircle, _ b: RangeCircle, _ c: RangeCircle, tolerance: Double, growth: Double,
                         maximumRounds: Int) -> (point: PlanarPoint, spread: Double, scale: Double)? {
        let abx = b.x - a.x, aby = b.y - a.y, acx = c.x - a.x, acy = c.y - a.y, bcx = c.x - b.x, bcy = c.y - b.y
        let longest = max(abx * abx + aby * aby, acx * acx + acy * acy, bcx * bcx + bcy * bcy).squareRoot()
        let least = longest * 1e-3
        var a = a, b = b, c = c
        a.radius = max(a.radius, least)
        b.radius = max(b.radius, least)
        c.radius = max(c.radius, least)
        var scale = 1.0
        for _ in 0...maximumRounds {
            var count = 0, sumX = 0.0, sumY = 0.0, sumSquares = 0.0
            func keep(_ p: PlanarPoint) {
                guard inside(p, a), inside(p, b), inside(p, c) else { return }
                count += 1
                sumX += p.x
                sumY += p.y
                sumSquares += p.x * p.x + p.y * p.y
            }
            func inside(_ p: PlanarPoint, _ circle: RangeCircle) -> Bool {
                let dx = p.x - circle.x, dy = p.y - circle.y
                return (dx * dx + dy * dy).squareRoot() <= circle.radius + tolerance
            }
            if let (p, q) = intersections(a, b) { keep(p); keep(q) }
            if let (p, q) = intersections(a, c) { keep(p); keep(q) }
            if let (p, q) = intersections(b, c) { keep(p); keep(q) }
            if count >= 2 {
                let n = Double(count)
                let point = PlanarPoint(x: sumX / n, y: sumY / n)
                let variance = max(sumSquares / n - (point.x * point.x + point.y * point.y), 0)
                return (point, variance.squareRoot(), scale)
            }
            a.radius *= growth
            b.radius *= growth
            c.radius *= growth
            scale *= growth
        }
        return nil
    }

    /// The two intersection points of two circles (equal when they touch), or `nil` when they do
    /// not meet or share their centre.
    static func intersections(_ a: RangeCircle, _ b: RangeCircle) -> (PlanarPoint, PlanarPoint)? {
        let dx = b.x - a.x, dy = b.y - a.y
        let d = (dx * dx + dy * dy).squareRoot()
        guard d > 0, d <= a.radius + b.radius, d >= abs(a.radius - b.radius) else { return nil }
        // Distance from a's centre to the chord, along the centre line, and half the chord.
        let along = (a.radius * a.radius - b.radius * b.radius + d * d) / (2 * d)
        let half = max(a.radius * a.radius - along * along, 0).squareRoot()
        let mx = a.x + along * dx / d, my = a.y + along * dy / d
        let ox = -dy / d * half, oy = dx / d * half
        return (PlanarPoint(x: mx + ox, y: my + oy), PlanarPoint(x: mx - ox, y: my - oy))
    }
}
