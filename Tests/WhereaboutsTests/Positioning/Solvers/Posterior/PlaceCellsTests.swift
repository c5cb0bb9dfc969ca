import Foundation
import Testing
@testable import Whereabouts

/// A 4 × 2 m hall with a desk (a circle around the centre of its south-west cell) and a room
/// of the same outline upstairs.
private let places = [
    Venue.Place(id: "hall", shape: .polygon([PlanarPoint(x: 0, y: 0), PlanarPoint(x: 4, y: 0),
                                             PlanarPoint(x: 4, y: 2), PlanarPoint(x: 0, y: 2)])),
    Venue.Place(id: "desk", shape: .circle(center: PlanarPoint(x: 0.5, y: 0.5), radius: 0.6, coordinate: nil)),
    Venue.Place(id: "upstairs", floor: 1, shape: .polygon([PlanarPoint(x: 0, y: 0), PlanarPoint(x: 4, y: 0),
                                                           PlanarPoint(x: 4, y: 2), PlanarPoint(x: 0, y: 2)])),
    Venue.Place(id: "sign", shape: .label),
]

@Suite("Place cells")
struct PlaceCellsTests {
    /// Eight cells of 1 m: row 0 is cells 0–3 (y 0–1), row 1 cells 4–7.
    private func grid() throws -> PosteriorGrid {
        try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 4, maxY: 2), cellSize: 1, maximumCells: 8))
    }

    @Test func eachCellCountsForTheSmallestPlaceOfItsFloor() throws {
        let cells = try PlaceCells(places: places, grid: grid())
        // The desk holds cell 0 (its centre 0.5, 0.5), the hall the seven others; upstairs all eight.
        let weights: [Float] = [0.30, 0.20, 0.10, 0.05, 0.15, 0.10, 0.05, 0.05]
        let ground = cells.probabilities(of: weights, floor: 0)
        #expect(ground.map { $0.place } == ["hall", "desk"])
        #expect(abs(ground[0].probability - 0.70) < 1e-6 && abs(ground[1].probability - 0.30) < 1e-6)
        let upstairs = cells.probabilities(of: weights, floor: 1)
        #expect(upstairs.map { $0.place } == ["upstairs"] && abs(upstairs[0].probability - 1) < 1e-6)
        #expect(cells.probabilities(of: weights, floor: 2).isEmpty)
        // Less than 10⁻³ is left out.
        let sure: [Float] = [0.0005, 0.9995, 0, 0, 0, 0, 0, 0]
        #expect(cells.probabilities(of: sure, floor: 0).map { $0.place } == ["hall"])
        // Labels and places off the grid hold nothing.
        let far = [Venue.Place(id: "annex", shape: .polygon([PlanarPoint(x: 10, y: 10), PlanarPoint(x: 12, y: 10),
                                                               PlanarPoint(x: 12, y: 12)])), places[3]]
        #expect(try PlaceCells(places: far, grid: grid()).isEmpty)
    }

    @Test func containmentSharesAFixAsItsPosteriorSays() {
        let containment = PlaceContainment(places: places)
        var fix = Fix(time: 0, point: SpatialPoint(x: 3.5, y: 1.5, z: 0), floor: 0, accuracy: 1, method: "posterior")
        // Without probabilities: the Gaussian of its radius, mostly in the hall.
        #expect(containment.distribution(of: fix).places.first?.place.id == "hall")
        // With them, as they say: the desk first; an unknown id, a label and another floor's place are left out.
        fix.placeProbabilities = [PlaceEstimate(place: "desk", probability: 0.6), PlaceEstimate(place: "hall", probability: 0.3),
                                  PlaceEstimate(place: "upstairs", probability: 0.05), PlaceEstimate(place: "nowhere", probability: 0.04),
                                  PlaceEstimate(place: "sign", probability: 0.01)]
        let shared = containment.distribution(of: fix)
        #expect(shared.places.map { $0.place.id } == ["desk", "hall"])
        #expect(abs(shared.places[0].probability - 0.6) < 1e-12 && abs(shared.none - 0.1) < 1e-12)
        let placement = containment.placement(of: fix)
        #expect(placement.place?.id == "desk" && abs(placement.probability - 0.6) < 1e-12 && !placement.isNearest)
        // More than 1 in all (rounding): scaled down to 1.
        fix.placeProbabilities = [PlaceEstimate(place: "hall", probability: 0.9), PlaceEstimate(place: "desk", probability: 0.3)]
        let scaled = containment.distribution(of: fix)
        #expect(abs(scaled.total - 1) < 1e-12 && abs(scaled.places[0].probability - 0.75) < 1e-12 && scaled.none == 0)
        // None: the nearest place within the radius, as for a Gaussian far from every place.
        fix.placeProbabilities = []
        #expect(containment.distribution(of: fix).none == 1)
        #expect(containment.placement(of: fix).isNearest)
    }

    @Test func posteriorFixesCarryThePlacesOfTheirPosterior() throws {
        // Two 5 × 10 m rooms between four beacons at the corners of a 10 × 10 m square.
        var venue = Venue(beacons: [
            Venue.Beacon(id: "a", x: 0, y: 0), Venue.Beacon(id: "b", x: 10, y: 0),
            Venue.Beacon(id: "c", x: 0, y: 10), Venue.Beacon(id: "d", x: 10, y: 10),
        ])
        func room(_ x0: Double) -> Venue.Place.Shape {
            .polygon([PlanarPoint(x: x0, y: 0), PlanarPoint(x: x0 + 5, y: 0), PlanarPoint(x: x0 + 5, y: 10), PlanarPoint(x: x0, y: 10)])
        }
        venue.places = [Venue.Place(id: "west", shape: room(0)), Venue.Place(id: "east", shape: room(5))]
        let setup = PositioningAlgorithm.posterior.setup(venue: venue)
        let solver = try #require(setup.solver as? PosteriorSolver)
        var locators = setup.makeLocators()
        // Near a and c, far from b and d (−59 − 20 log₁₀ d).
        let readings = [("a", 2.0), ("b", 8.2), ("c", 8.2), ("d", 11.4)].map { id, d in
            Reading(beacon: .id(id), rssi: (-59 - 20 * log10(d)).rounded())
        }
        let located = locators.locate(Scan(time: 0, device: "phone", readings: readings))
        let fix = try #require(located)
        let probabilities = try #require(fix.placeProbabilities)
        #expect(probabilities.first?.place == "west" && (probabilities.first?.probability ?? 0) > 0.5)
        // The rooms tile the grid's cells inside the venue: their masses are the posterior's
        // mass there, at most 1, and the same as the cells' weights add up to.
        let total = probabilities.reduce(0) { $0 + $1.probability }
        #expect(total <= 1 + 1e-6)
        let cells = try #require(solver.placeCells)
        #expect(cells.entries.map { $0.id }.sorted() == ["east", "west"])
        #expect(cells.entries.allSatisfy { abs($0.cells.count - 200) <= 20 }) // 5 × 10 m in cells of 0.5 m
        // Smoothing moves the point: the posterior's places are dropped with it.
        let locator = Locator(venue: setup.venue, solver: solver, configuration: setup.configuration)
        let smoothed = locator.smoothed(fix, by: PositionEstimate(point: SpatialPoint(x: 7, y: 5, z: 0), accuracy: 1, beaconCount: 4))
        #expect(smoothed.placeProbabilities == nil && smoothed.point.x == 7)
    }
}
