/// Where a simulated site survey stands: the spots a person could be located at, drawn
/// uniformly.
///
/// - When the venue has places with a geometry (circles and polygons), the spots are drawn
///   uniformly over the union of each floor's places, every floor in proportion to its places'
///   area: the venue says where people go, and the radius is promised there, not in the
///   corridors between buildings that no beacon covers.
/// - Otherwise each spot is on one of the beacons' floors, drawn with equal chance, and uniformly
///   within the extent of that floor's beacons (the whole venue's extent when the floor's beacons
///   span no area): a floor with a few beacons in one corner is not surveyed across the whole
///   building.
struct SurveyArea: Sendable {
    /// A place to draw from: its floor, shape, area and bounding box.
    private struct Region: Sendable {
        var floor: Int
        var shape: Venue.Place.Shape
        var area: Double
        var box: PositioningVenue.Extent
    }

    /// The places, when the venue has any with a positive area.
    private let regions: [Region]
    /// The running sum of the regions' areas, for drawing one in proportion to its area.
    private let cumulativeAreas: [Double]
    /// Without places: each beacon floor with the extent its spots are drawn from.
    private let floorExtents: [(floor: Int, extent: PositioningVenue.Extent)]

    /// The area of `venue`; `nil` when it has neither places nor placed beacons.
    init?(venue: PositioningVenue) {
        var regions: [Region] = []
        for place in venue.venue.places {
            guard let area = place.shape.area, area > 0, area.isFinite, let box = Self.box(of: place.shape),
                  [box.minX, box.minY, box.maxX, box.maxY].allSatisfy(\.isFinite) else { continue }
            regions.append(Region(floor: place.floor, shape: place.shape, area: area, box: box))
        }
        self.regions = regions
        var total = 0.0
        cumulativeAreas = regions.map { region in
            total += region.area
            return total
        }
        var pointsByFloor: [Int: [PlanarPoint]] = [:]
        for (position, floor) in zip(venue.positions, venue.floors) {
            if let point = position?.planar { pointsByFloor[floor, default: []].append(point) }
        }
        floorExtents = pointsByFloor.keys.sorted().compactMap { floor in
            guard let own = pointsByFloor[floor].flatMap(PositioningVenue.Extent.init(enclosing:)) else { return nil }
            let spansArea = own.maxX > own.minX && own.maxY > own.minY
            guard let extent = spansArea ? own : venue.extent else { return nil }
            return (floor, extent)
        }
        if regions.isEmpty, floorExtents.isEmpty { return nil }
    }

    /// Whether a point of a floor lies in the area.
    func contains(_ point: PlanarPoint, floor: Int) -> Bool {
        if regions.isEmpty {
            return floorExtents.contains { $0.floor == floor && $0.extent.contains(point) }
        }
        return regions.contains { $0.floor == floor && $0.shape.contains(point) }
    }

    /// A spot drawn uniformly over the area.
    func spot(using random: inout SeededRandom) -> (point: PlanarPoint, floor: Int) {
        guard let total = cumulativeAreas.last else {
            let index = min(Int(random.nextUniform() * Double(floorExtents.count)), floorExtents.count - 1)
            let (floor, extent) = floorExtents[index]
            return (Self.point(in: extent, using: &random), floor)
        }
        // A region in proportion to its area, a point inside it, kept with a chance of one over
        // the number of the floor's regions that hold it: uniform over their union.
        var spot: (point: PlanarPoint, floor: Int)?
        for _ in 0..<1000 {
            let target = random.nextUniform() * total
            let index = min(cumulativeAreas.firstIndex { $0 > target } ?? regions.count - 1, regions.count - 1)
            let region = regions[index]
            var point = Self.point(in: region.box, using: &random)
            var inside = region.shape.contains(point)
            for _ in 0..<100 where !inside {
                point = Self.point(in: region.box, using: &random)
                inside = region.shape.contains(point)
            }
            guard inside else { continue }
            spot = spot ?? (point, region.floor)
            let holders = regions.reduce(0) { count, other in
                count + (other.floor == region.floor && other.shape.contains(point) ? 1 : 0)
            }
            if random.nextUniform() * Double(max(holders, 1)) < 1 { return (point, region.floor) }
        }
        // Only reached with vanishing probability (a region that is nearly all overlap or a
        // sliver of its box); the first point found inside still lies in the area.
        if let spot { return spot }
        let region = regions[0]
        return (PlanarPoint(x: (region.box.minX + region.box.maxX) / 2, y: (region.box.minY + region.box.maxY) / 2), region.floor)
    }

    private static func point(in extent: PositioningVenue.Extent, using random: inout SeededRandom) -> PlanarPoint {
        PlanarPoint(x: extent.minX + random.nextUniform() * (extent.maxX - extent.minX),
                    y: extent.minY + random.nextUniform() * (extent.maxY - extent.minY))
    }

    /// The box enclosing a shape; `nil` for a label.
    static func box(of shape: Venue.Place.Shape) -> PositioningVenue.Extent? {
        switch shape {
        case .label:
            return nil
        case .circle(let center, let radius, _):
            return PositioningVenue.Extent(minX: center.x - radius, minY: center.y - radius,
                                           maxX: center.x + radius, maxY: center.y + radius)
        case .polygon(let vertices):
            return PositioningVenue.Extent(enclosing: vertices)
        }
    }
}
