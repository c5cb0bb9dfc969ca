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
}

/// Finds the place a point is in: the smallest circle or polygon place of its floor that
/// contains it, so that a desk inside a hall wins over the hall.
///
/// ```swift
/// let locator = PlaceLocator(venue)
/// locator.place(containing: PlanarPoint(x: 3, y: 2), floor: 0)?.id   // "desk"
/// ```
public struct PlaceLocator: Sendable {
    /// Places with a geometry, by floor, smallest area first (file order among equals).
    private let placesByFloor: [Int: [Venue.Place]]

    /// Indexes the places of a venue.
    public init(_ venue: Venue) {
        var sized: [Int: [(area: Double, order: Int, place: Venue.Place)]] = [:]
        for (order, place) in venue.places.enumerated() {
            guard let area = place.shape.area else { continue }
            sized[place.floor, default: []].append((area, order, place))
        }
        placesByFloor = sized.mapValues { list in
            list.sorted { ($0.area, $0.order) < ($1.area, $1.order) }.map(\.place)
        }
    }

    /// The smallest place of `floor` that contains `point`, or `nil` when none does.
    public func place(containing point: PlanarPoint, floor: Int) -> Venue.Place? {
        placesByFloor[floor]?.first { $0.shape.contains(point) }
    }
}
