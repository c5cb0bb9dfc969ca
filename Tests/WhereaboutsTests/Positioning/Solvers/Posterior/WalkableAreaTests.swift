import Foundation
import Testing
@testable import Whereabouts

/// A 20 × 6 m building of two rooms, its three beacons on the north wall (y = 6): a device in
/// it has a mirror image north of the wall, outside the building, with the same distances.
private func building(places: Bool = true) -> Venue {
    func room(_ x0: Double) -> [PlanarPoint] {
        [PlanarPoint(x: x0, y: 0), PlanarPoint(x: x0 + 10, y: 0), PlanarPoint(x: x0 + 10, y: 6), PlanarPoint(x: x0, y: 6)]
    }
    return Venue(beacons: [Venue.Beacon(id: "w", x: 2, y: 6), Venue.Beacon(id: "m", x: 10, y: 6), Venue.Beacon(id: "e", x: 18, y: 6)],
                 places: places ? [Venue.Place(id: "west", shape: .polygon(room(0))), Venue.Place(id: "east", shape: .polygon(room(10)))] : [])
}

@Suite("Walkable area")
struct WalkableAreaTests {
    private func grid() throws -> PosteriorGrid {
        try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: -2, minY: -2, maxX: 22, maxY: 10), cellSize: 1,
                                   maximumCells: 1000))
    }

    @Test func placesThatTileTheFloorAreItsArea() throws {
        let grid = try grid()
        let area = WalkableArea(venue: PositioningVenue(building()), grid: grid)
        let prior = try #require(area.logPrior(floor: 0))
        func value(_ x: Double, _ y: Double) throws -> Float { try prior[#require(grid.cell(containing: PlanarPoint(x: x, y: y)))] }
        #expect(try value(5, 3) == 0 && value(15, 0.5) == 0)
        #expect(try value(5, 8) == WalkableArea.outsideLogPrior && value(-1.5, 3) == WalkableArea.outsideLogPrior)
        #expect(area.logPrior(floor: 1) == nil && area.surveyReach == nil && area.floors == [0])
        // A point of interest covers too little of the floor to say where people go: no area.
        var poi = building(places: false)
        poi.places = [Venue.Place(id: "desk", shape: .circle(center: PlanarPoint(x: 10, y: 3), radius: 1, coordinate: nil))]
        #expect(WalkableArea(venue: PositioningVenue(poi), grid: grid).logPrior(floor: 0) == nil)
    }

    @Test func theSurveyReachesHalfAgainItsSpacing() throws {
        let grid = try grid()
        // Spots 3 m apart along y = 2.5 (cell centres): the reach is 1.5 × 3 = 4.5 m.
        let survey = stride(from: 2.5, through: 17.5, by: 3).map { x in
            Scan(time: x, device: "survey", readings: [], truth: GroundTruth(x: x, y: 2.5))
        }
        let area = WalkableArea(venue: PositioningVenue(building(places: false)), grid: grid, training: survey)
        #expect(try abs(#require(area.surveyReach) - 4.5) < 1e-9)
        let prior = try #require(area.logPrior(floor: 0))
        func value(_ x: Double, _ y: Double) throws -> Float { try prior[#require(grid.cell(containing: PlanarPoint(x: x, y: y)))] }
        // 4 m north of a spot: reached; 5 m: not; beyond the last spot by 4.5 m in x: reached.
        #expect(try value(2.5, 6.5) == 0 && value(2.5, 7.5) == WalkableArea.outsideLogPrior)
        #expect(try value(21.5, 2.5) == 0 && value(-1.5, 6.5) == WalkableArea.outsideLogPrior)
        // Spots closer than 2 m still reach 2 m.
        let dense = [Scan(time: 0, device: "s", readings: [], truth: GroundTruth(x: 5.5, y: 2.5)),
                     Scan(time: 1, device: "s", readings: [], truth: GroundTruth(x: 6.5, y: 2.5))]
        #expect(WalkableArea(venue: PositioningVenue(building(places: false)), grid: grid, training: dense).surveyReach == 2)
    }

    @Test func filterWeighsItsPriorUntempered() throws {
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 2, maxY: 1),
                                              cellSize: 1, maximumCells: 10))
        var filter = GridFilter(grid: grid)
        // Likelihoods e⁰ and e⁻² tempered by ½, the second cell's prior e⁻¹ not: ∝ 1, e⁻¹·e⁻¹.
        filter.update(logLikelihood: [0, -2], temper: 0.5, logPrior: [0, -1])
        #expect(abs(Double(filter.weights[1]) - exp(-2.0) / (1 + exp(-2.0))) < 1e-6)
        // Without evidence: the prior alone, e⁻² · e⁻¹ against 1.
        filter.weigh(logPrior: [0, -1])
        #expect(abs(Double(filter.weights[1]) - exp(-3.0) / (1 + exp(-3.0))) < 1e-6)
        // A prior of another size is ignored.
        let before = filter.weights
        filter.weigh(logPrior: [0])
        #expect(filter.weights == before)
    }

    @Test func posteriorStaysInTheBuildingAndNotInTheMirrorOfItsBeacons() throws {
        // A phone stands 1 m south of the middle beacon, inside; its mirror, 1 m north, is
        // outside. Without the area the posterior is symmetric about the wall (its mean on it);
        // with it, it stays inside.
        let venue = PositioningVenue(building())
        var options = PosteriorSolver.Options()
        options.missProbability = 0.1
        options.temper = 0.5
        options.speed = 1
        func meanY(weighingArea: Bool) throws -> Double {
            var chosen = options
            chosen.weighsWalkableArea = weighingArea
            let solver = PosteriorSolver(venue: venue, options: chosen)
            #expect((solver.area != nil) == weighingArea)
            var locator = Locator(venue: venue, solver: solver, configuration: LocatorConfiguration(filter: nil, beaconTimeout: 0))
            let spot = PlanarPoint(x: 10, y: 5)
            var last: Fix?
            for second in 0..<10 {
                let readings = building().beacons.map { beacon in
                    let d = max(spot.distance(to: PlanarPoint(x: beacon.x ?? 0, y: beacon.y ?? 0)), 0.5)
                    return Reading(beacon: .id(beacon.id), rssi: (-59 - 20 * log10(d)).rounded())
                }
                last = locator.locate(Scan(time: Double(second), device: "phone", readings: readings)) ?? last
            }
            return try #require(last).point.y
        }
        let without = try meanY(weighingArea: false), with = try meanY(weighingArea: true)
        #expect(abs(without - 6) < 0.3, "symmetric: \(without)")
        #expect(with < 5.6 && with > 4, "inside: \(with)")
    }
}
