/// Plane geometry on polygons and segments, in venue units.
enum PlanarGeometry {
    /// The area of a simple polygon (shoelace formula), whatever its winding.
    static func area(_ vertices: [PlanarPoint]) -> Double {
        var twice = 0.0
        for (i, a) in vertices.enumerated() {
            let b = vertices[(i + 1) % vertices.count]
            twice += a.x * b.y - b.x * a.y
        }
        return abs(twice) / 2
    }

    /// Whether `point` lies inside the polygon (even–odd ray casting).
    static func contains(_ vertices: [PlanarPoint], _ point: PlanarPoint) -> Bool {
        var inside = false
        var j = vertices.count - 1
        for i in vertices.indices {
            let a = vertices[i], b = vertices[j]
            if (a.y > point.y) != (b.y > point.y),
               point.x < (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x {
                inside.toggle()
            }
            j = i
        }
        return inside
    }

    private static func orientation(_ a: PlanarPoint, _ b: PlanarPoint, _ c: PlanarPoint) -> Double {
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }

    /// Whether segments pq and ab cross at a point inside both (touching an end, or running
    /// along each other, does not count).
    static func segmentsCross(_ p: PlanarPoint, _ q: PlanarPoint, _ a: PlanarPoint, _ b: PlanarPoint) -> Bool {
        let d1 = orientation(a, b, p), d2 = orientation(a, b, q)
        let d3 = orientation(p, q, a), d4 = orientation(p, q, b)
        return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
    }

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
