import Foundation

/// Where a person may stand on each floor, as a log-prior per cell of a ``PosteriorGrid``: 0 in
/// the area, ``outsideLogPrior`` outside it. ``PosteriorSolver`` adds it at every scan, so the
/// posterior does not settle in the margin around a venue or behind its outer walls, where a ring
/// of equal RSSI around a line of beacons has a mirror image nobody walks in.
///
/// A floor's area is the union of
/// - its places with an area (circles and polygons), when together they cover at least half of
///   what encloses the floor's beacons and places: places that tile the plan say where people
///   go, a few points of interest do not;
/// - the neighbourhood of the survey's true positions on the floor: cells within
///   ``surveyReach`` of a surveyed spot, the reach 1.5 × the median distance from a spot to its
///   nearest other spot, at least 2 m (the walker went there, and between neighbouring spots).
///
/// A floor with neither has no prior (every cell as likely). Outside the area a cell is not
/// excluded, only less likely at each scan: places may leave out a corridor, and the evidence
/// can still hold a device there.
///
/// ```swift
/// let area = WalkableArea(venue: venue, grid: grid, training: survey)
/// area.logPrior(floor: 0)   // [Float] per cell, or nil
/// ```
public struct WalkableArea: Sendable {
    /// The log-prior of a cell outside the area, added at each scan: a tenth as likely.
    public static let outsideLogPrior: Float = -2.3
    /// The fewest metres a survey spot reaches.
    public static let minimumSurveyReach = 2.0
    /// The share of a floor's extent its places must cover to count as its area.
    public static let placeCoverage = 0.5
    /// The most survey spots measured for their spacing (the rest are still reached).
    static let spacingSample = 512

    /// Per floor with an area, the log-prior of each cell.
    private let priors: [Int: [Float]]
    /// The reach of a survey spot, venue units; `nil` without survey.
    public let surveyReach: Double?

    /// The walkable area of `venue` on `grid`, from its places and `training`'s true positions.
    public init(venue: PositioningVenue, grid: PosteriorGrid, training: [Scan] = []) {
        let metres = venue.venue.units.metres ?? 1
        var inside: [Int: [Bool]] = [:]
        // Places that tile their floor.
        var placesByFloor: [Int: [Venue.Place.Shape]] = [:]
        for place in venue.venue.places {
            guard let area = place.shape.area, area > 0, area.isFinite else { continue }
            placesByFloor[place.floor, default: []].append(place.shape)
        }
        for (floor, shapes) in placesByFloor {
            let covered = shapes.reduce(0) { $0 + ($1.area ?? 0) }
            guard let extent = Self.extent(of: floor, venue: venue, places: shapes) else { continue }
            let extentArea = (extent.maxX - extent.minX) * (extent.maxY - extent.minY)
            guard extentArea > 0, covered >= Self.placeCoverage * extentArea else { continue }
            var flags = [Bool](repeating: false, count: grid.count)
            for cell in 0..<grid.count {
                let centre = grid.centre(of: cell)
                flags[cell] = shapes.contains { $0.contains(centre) }
            }
            inside[floor] = flags
        }
        // The survey's spots and their neighbourhood.
        var spotsByFloor: [Int: Set<Int>] = [:]
        for scan in training {
            guard let point = scan.truth?.planarPoint, let cell = grid.cell(containing: point) else { continue }
            spotsByFloor[scan.truth?.floor ?? 0, default: []].insert(cell)
        }
        let groups = spotsByFloor.keys.sorted().map { spotsByFloor[$0, default: []].sorted().map(grid.centre(of:)) }
        let reach = max(Self.minimumSurveyReach / metres, 1.5 * Self.medianSpacing(of: groups))
        surveyReach = spotsByFloor.isEmpty ? nil : reach
        let radius = Int((reach / grid.cellSize).rounded(.up))
        for (floor, spots) in spotsByFloor {
            var flags = inside[floor] ?? [Bool](repeating: false, count: grid.count)
            let limit = reach * reach
            for spot in spots {
                let centre = grid.centre(of: spot)
                let column = spot % grid.columns, row = spot / grid.columns
                for r in max(row - radius, 0)...min(row + radius, grid.rows - 1) {
                    for c in max(column - radius, 0)...min(column + radius, grid.columns - 1) {
                        let cell = r * grid.columns + c
                        let other = grid.centre(of: cell)
                        let dx = other.x - centre.x, dy = other.y - centre.y
                        if dx * dx + dy * dy <= limit { flags[cell] = true }
                    }
                }
            }
            inside[floor] = flags
        }
        priors = inside.mapValues { flags in flags.map { $0 ? 0 : Self.outsideLogPrior } }
    }

    /// The log-prior of each cell on `floor`; `nil` when the floor has no area.
    public func logPrior(floor: Int) -> [Float]? { priors[floor] }

    /// The floors with an area.
    public var floors: [Int] { priors.keys.sorted() }

    /// A floor's extent: what encloses its beacons and its places.
    static func extent(of floor: Int, venue: PositioningVenue, places: [Venue.Place.Shape]) -> PositioningVenue.Extent? {
        var points = zip(venue.positions, venue.floors).compactMap { $0.1 == floor ? $0.0?.planar : nil }
        for box in places.compactMap(SurveyArea.box(of:)) {
            points += [PlanarPoint(x: box.minX, y: box.minY), PlanarPoint(x: box.maxX, y: box.maxY)]
        }
        return PositioningVenue.Extent(enclosing: points)
    }

    /// The median distance from a point to its nearest other point of the same group (a
    /// floor's spots), over at most ``spacingSample`` points of each group (evenly taken); 0
    /// when no group has two.
    static func medianSpacing(of groups: [[PlanarPoint]]) -> Double {
        var nearest: [Double] = []
        for points in groups where points.count >= 2 {
            let stride = max(points.count / spacingSample, 1)
            for index in Swift.stride(from: 0, to: points.count, by: stride) {
                var best = Double.infinity
                for other in points.indices where other != index {
                    best = min(best, points[index].distance(to: points[other]))
                }
                if best.isFinite { nearest.append(best) }
            }
        }
        nearest.sort()
        return nearest.isEmpty ? 0 : nearest[nearest.count / 2]
    }
}
