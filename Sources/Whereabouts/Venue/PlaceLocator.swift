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
