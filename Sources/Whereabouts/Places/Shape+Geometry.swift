extension Venue.Place.Shape {
    /// The area in square venue units, or `nil` for a label.
    public var area: Double? {
        switch self {
        case .label: nil
        case .circle(_, let radius, _): Double.pi * radius * radius
        case .polygon(let vertices): PlanarGeometry.area(vertices)
        }
    }

    /// Whether a point of the plan lies inside the shape (on a circle's edge counts as inside; a
    /// label contains nothing).
    public func contains(_ point: PlanarPoint) -> Bool {
        switch self {
        case .label: false
        case .circle(let center, let radius, _): center.distance(to: point) <= radius
        case .polygon(let vertices): PlanarGeometry.contains(vertices, point)
        }
    }

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
