import Foundation
import Testing
@testable import Whereabouts

/// Two 5 × 5 m rooms side by side (a shared wall at x = 5) and a beacon in each, heights unknown
/// (−59 dBm at 1 m, n = 2).
private func twoRooms(cells: Bool = false) -> Venue {
    func square(_ x0: Double) -> [PlanarPoint] {
        [PlanarPoint(x: x0, y: 0), PlanarPoint(x: x0 + 5, y: 0), PlanarPoint(x: x0 + 5, y: 5), PlanarPoint(x: x0, y: 5)]
    }
    return Venue(beacons: [Venue.Beacon(id: "w", x: 1, y: 2.5), Venue.Beacon(id: "e", x: 9, y: 2.5)],
                 places: [Venue.Place(id: "west", shape: .polygon(square(0))), Venue.Place(id: "east", shape: .polygon(square(5)))])
}

/// A survey every half metre of both rooms, each reading the model less `loss` dB per wall crossed.
private func survey(of venue: Venue, loss: Double) -> [Scan] {
    let walls = VenueWalls(venue)
    var scans: [Scan] = []
    for x in stride(from: 0.25, to: 10, by: 0.5) {
        for y in stride(from: 0.25, to: 5, by: 0.5) {
            let point = PlanarPoint(x: x, y: y)
            let readings = venue.beacons.map { beacon -> Reading in
                let at = PlanarPoint(x: beacon.x ?? 0, y: beacon.y ?? 0)
                let rssi = -59 - 20 * log10(max(point.distance(to: at), 0.5)) - loss * Double(walls.crossings(from: at, to: point, floor: 0))
                return Reading(beacon: .id(beacon.id), rssi: rssi)
            }
            scans.append(Scan(time: Double(scans.count), device: "survey", readings: readings, truth: GroundTruth(x: x, y: y)))
        }
    }
    return scans
}

@Suite("Wall loss")
struct WallLossTests {
    @Test func wallsAreThePolygonsEdgesOnceEachAndCountWhenCrossed() {
        let walls = VenueWalls(twoRooms())
        // West to east through the shared wall: one crossing (the shared edge counted once).
        #expect(walls.crossings(from: PlanarPoint(x: 1, y: 2.5), to: PlanarPoint(x: 9, y: 2.5), floor: 0) == 1)
        // Leaving the building through the west wall and the shared one: two.
        #expect(walls.crossings(from: PlanarPoint(x: -1, y: 2.5), to: PlanarPoint(x: 6, y: 2.5), floor: 0) == 2)
        // Inside a room, along a wall, or on another floor: none.
        #expect(walls.crossings(from: PlanarPoint(x: 1, y: 1), to: PlanarPoint(x: 4, y: 4), floor: 0) == 0)
        #expect(walls.crossings(from: PlanarPoint(x: 5, y: 1), to: PlanarPoint(x: 5, y: 4), floor: 0) == 0)
        #expect(walls.crossings(from: PlanarPoint(x: 1, y: 2.5), to: PlanarPoint(x: 9, y: 2.5), floor: 1) == 0)
        #expect(VenueWalls(Venue(beacons: [])).isEmpty && !walls.isEmpty)
    }

    @Test func fitFindsWhatAWallCostsAndLeavesTheModelElsewhere() throws {
        let venue = PositioningVenue(twoRooms())
        let loss = try #require(WallLoss(venue: venue, training: survey(of: twoRooms(), loss: 5)))
        #expect(abs(loss.attenuation - 5) < 1e-6)
        for refit in loss.refits { #expect(abs(refit.level) < 1e-6 && abs(refit.slope) < 1e-6) }
        // The map across the wall: the model less 5 dB; within the beacon's room, the model.
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 10, maxY: 5),
                                              cellSize: 0.5, maximumCells: 1000))
        let plain = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4)
        let walled = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4, walls: loss)
        let east = try #require(grid.cell(containing: PlanarPoint(x: 8, y: 2.5)))
        let west = try #require(grid.cell(containing: PlanarPoint(x: 2, y: 2.5)))
        #expect(try abs(#require(walled.mean(beacon: 0, cell: east)) - #require(plain.mean(beacon: 0, cell: east)) + 5) < 1e-4)
        #expect(try abs(#require(walled.mean(beacon: 0, cell: west)) - #require(plain.mean(beacon: 0, cell: west))) < 1e-4)
        #expect(abs((walled.wallAttenuation ?? 0) - 5) < 1e-6 && plain.wallAttenuation == nil)
    }

    @Test func edgesThatCostNothingFitNoLossAndAVenueWithoutPolygonsNone() throws {
        let loss = try #require(WallLoss(venue: PositioningVenue(twoRooms()), training: survey(of: twoRooms(), loss: 0)))
        #expect(abs(loss.attenuation) < 1e-6)
        // A wall that seems to help (readings stronger beyond it) is not believed: 0, not negative.
        let helping = try #require(WallLoss(venue: PositioningVenue(twoRooms()), training: survey(of: twoRooms(), loss: -3)))
        #expect(helping.attenuation == 0)
        var open = twoRooms()
        open.places = []
        #expect(WallLoss(venue: PositioningVenue(open), training: survey(of: twoRooms(), loss: 5)) == nil)
        // A survey of one room never crosses the wall: nothing to fit.
        let westOnly = survey(of: twoRooms(), loss: 5).filter { ($0.truth?.x ?? 0) < 5 }
            .map { scan in var scan = scan; scan.readings.removeLast(); return scan }
        #expect(WallLoss(venue: PositioningVenue(twoRooms()), training: westOnly) == nil)
    }

    @Test func ridgeLineIsLeastSquaresPulledTowardNone() {
        // y = 1 + 2x through (0, 1), (1, 3), (2, 5).
        let exact = WallLoss.line([(0, 1), (1, 3), (2, 5)], ridge: 0)
        #expect(abs(exact.level - 1) < 1e-12 && abs(exact.slope - 2) < 1e-12)
        // With a ridge of 1 on both: n = 4, Σx = 3, Σx² = 6, Σy = 9, Σxy = 13 →
        // level = (6·9 − 3·13)/(4·6 − 9) = 1, slope = (4·13 − 3·9)/15 = 5/3.
        let ridged = WallLoss.line([(0, 1), (1, 3), (2, 5)], ridge: 1)
        #expect(abs(ridged.level - 1) < 1e-12 && abs(ridged.slope - 5.0 / 3) < 1e-12)
    }
}
