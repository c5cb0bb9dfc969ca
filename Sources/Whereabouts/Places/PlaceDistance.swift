extension Venue.Place.Shape {
    /// The signed distance in venue units from a point of the plan to the shape's edge: positive
    /// outside, negative inside, 0 on the edge; `+∞` for a label, which has no geometry.
    ///
    /// For a circle it is the distance to the centre minus the radius — Hekaerge's "distance of a
    /// place" — and for a polygon the distance to its nearest edge, negated inside.
    ///
    /// ```swift
    /// let hall = Venue.Place.Shape.circle(center: PlanarPoint(x: 0, y: 0), radius: 50, coordinate: nil)
    /// hall.signedDistance(from: PlanarPoint(x: 30, y: 40))   // 0: on the edge
    /// hall.signedDistance(from: PlanarPoint(x: 0, y: 10))    // −40: inside
    /// ```
    public func signedDistance(from point: PlanarPoint) -> Double {
        switch self {
        case .label:
            return .infinity
        case .circle(let center, let radius, _):
            return center.distance(to: point) - radius
        case .polygon(let vertices):
            let edge = PlanarGeometry.distanceToBoundary(vertices, point)
            return PlanarGeometry.contains(vertices, point) ? -edge : edge
        }
    }
}

extension PlanarGeometry {
    /// The distance from `point` to the nearest edge of a closed polygon.
    static func distanceToBoundary(_ vertices: [PlanarPoint], _ point: PlanarPoint) -> Double {
        guard let last = vertices.last else { return .infinity }
        var best = Double.infinity
        var a = last
        for b in vertices {
            best = Swift.min(best, distanceToSegment(point, a, b))
            a = b
        }
        return best
    }

    /// The distance from `p` to the segment `ab`.
    static func distanceToSegment(_ p: PlanarPoint, _ a: PlanarPoint, _ b: PlanarPoint) -> Double {
        let abx = b.x - a.x, aby = b.y - a.y
        let length2 = abx * abx + aby * aby
        var t = length2 > 0 ? ((p.x - a.x) * abx + (p.y - a.y) * aby) / length2 : 0
        t = Swift.max(0, Swift.min(1, t))
        let dx = p.x - (a.x + t * abx), dy = p.y - (a.y + t * aby)
        return (dx * dx + dy * dy).squareRoot()
    }
}
