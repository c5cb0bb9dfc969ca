/// The walls of a venue's plan as the radio sees them: every edge of its polygon places, once
/// per floor however many polygons share it, and how many of them a straight line crosses.
///
/// A venue does not say which edges are walls: an open plan cut into cells has edges that cost
/// nothing. What a wall costs is measured where it can be (``PosteriorSolver`` fits it on the
/// survey; the simulator is told it).
///
/// ```swift
/// let walls = VenueWalls(venue)
/// walls.crossings(from: PlanarPoint(x: 1, y: 1), to: PlanarPoint(x: 9, y: 1), floor: 0)
/// ```
public struct VenueWalls: Sendable {
    /// One wall: a segment, its ends in a fixed order.
    struct Wall: Hashable, Sendable {
        let a: PlanarPoint
        let b: PlanarPoint
    }

    /// The walls of each floor.
    private let walls: [Int: [Wall]]

    /// The walls of `venue`'s polygon places (circles and labels have none).
    public init(_ venue: Venue) {
        var walls: [Int: [Wall]] = [:]
        var seen: Set<Wall> = []
        for place in venue.places {
            guard case .polygon(let vertices) = place.shape else { continue }
            for (i, a) in vertices.enumerated() {
                let b = vertices[(i + 1) % vertices.count]
                guard a != b else { continue }
                // One wall per edge, whichever way round and however many polygons share it.
                let wall = (a.x, a.y) < (b.x, b.y) ? Wall(a: a, b: b) : Wall(a: b, b: a)
                if seen.insert(wall).inserted { walls[place.floor, default: []].append(wall) }
            }
        }
        self.walls = walls
    }

    /// Whether no floor has a wall.
    public var isEmpty: Bool { walls.values.allSatisfy(\.isEmpty) }

    /// How many walls of `floor` the segment from `p` to `q` crosses properly (touching an end
    /// of a wall, or running along one, does not count).
    public func crossings(from p: PlanarPoint, to q: PlanarPoint, floor: Int) -> Int {
        guard let list = walls[floor] else { return 0 }
        var count = 0
        for wall in list where PlanarGeometry.segmentsCross(p, q, wall.a, wall.b) { count += 1 }
        return count
    }
}
