import Foundation
import Testing
@testable import Whereabouts

/// Two floors 3.5 m apart, each with four beacons (−59 dBm at 1 m, n = 2, 2.5 m above the floor)
/// at the corners of a 12 × 12 m square, upstairs turned by a quarter.
private let building = Venue(
    floors: [Venue.Floor(level: 0, elevation: 0), Venue.Floor(level: 1, elevation: 3.5)],
    beacons: [
        Venue.Beacon(id: "g1", x: 0, y: 0, z: 2.5, floor: 0), Venue.Beacon(id: "g2", x: 12, y: 0, z: 2.5, floor: 0),
        Venue.Beacon(id: "g3", x: 0, y: 12, z: 2.5, floor: 0), Venue.Beacon(id: "g4", x: 12, y: 12, z: 2.5, floor: 0),
        Venue.Beacon(id: "u1", x: 6, y: 0, z: 2.5, floor: 1), Venue.Beacon(id: "u2", x: 12, y: 6, z: 2.5, floor: 1),
        Venue.Beacon(id: "u3", x: 6, y: 12, z: 2.5, floor: 1), Venue.Beacon(id: "u4", x: 0, y: 6, z: 2.5, floor: 1),
    ])

/// The scans of a walk through `building`, 2 dB of noise, a slab costing `slab` dB, heard
/// down to −95 dBm.
private func scans(of waypoints: [Walk.Waypoint], slab: Double = 15, seed: UInt64 = 3) -> [Scan] {
    let radio = RadioModel(shadowing: 2, floorAttenuation: slab, sensitivity: -95, roundsRSSI: false)
    return Array(Simulator(venue: building, walk: Walk(waypoints: waypoints, device: "phone"), radio: radio, seed: seed))
}

@Suite("Posterior solver: floors")
struct PosteriorFloorsTests {
    @Test func floorChangeSharesEachCellsMassEvenlyWithTheOtherFloors() throws {
        // One cell, three floors, no walking, no jumps; a floor change at rate ln 2 over 1 s: half
        // of each floor's mass goes, a quarter to each other floor.
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 1, maxY: 1),
                                              cellSize: 1, maximumCells: 1))
        let motion = GridFilter.Motion(speed: 0, stayProbability: 1, jumpRate: 0, floorChangeRate: log(2))
        let moved = try #require(GridFilter.transition([0.6, 0.3, 0.1], seconds: 1, motion: motion, grid: grid, layers: 3))
        // 0.5·0.6 + 0.25·(0.3 + 0.1), 0.5·0.3 + 0.25·(0.6 + 0.1), 0.5·0.1 + 0.25·(0.6 + 0.3).
        for (value, expected) in zip(moved, [0.4, 0.325, 0.275] as [Float]) { #expect(abs(value - expected) < 1e-6) }
        // Without the rate, the floors keep their mass.
        let still = GridFilter.Motion(speed: 0, stayProbability: 1, jumpRate: 0)
        #expect(GridFilter.transition([0.6, 0.3, 0.1], seconds: 1, motion: still, grid: grid, layers: 3) == [0.6, 0.3, 0.1])
    }

    @Test func walkingStaysOnItsFloorAndJumpsGoToEveryFloor() throws {
        // Three cells in a row, two floors; all the mass in the middle cell downstairs.
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 3, maxY: 1),
                                              cellSize: 1, maximumCells: 3))
        let walking = GridFilter.Motion(speed: 1, stayProbability: 0, jumpRate: 0)
        let walked = try #require(GridFilter.transition([0, 1, 0, 0, 0, 0], seconds: 1, motion: walking, grid: grid, layers: 2))
        #expect(walked[0] > 0.2 && walked[2] > 0.2 && abs(walked[0] - walked[2]) < 1e-6)
        #expect(walked[1] > 0 && walked[3...].allSatisfy { $0 == 0 })
        // Jumps at rate ln 2 over 1 s: half the mass spread over all six cells.
        let jumping = GridFilter.Motion(speed: 0, stayProbability: 1, jumpRate: log(2))
        let jumped = try #require(GridFilter.transition([0, 1, 0, 0, 0, 0], seconds: 1, motion: jumping, grid: grid, layers: 2))
        let sixth: Float = 0.5 / 6
        for (value, expected) in zip(jumped, [sixth, 0.5 + sixth, sixth, sixth, sixth, sixth]) { #expect(abs(value - expected) < 1e-6) }
        // The layers' probabilities and each layer's own summary.
        let filter = GridFilter(grid: grid, layers: 2, weights: [0, 0.1, 0.1, 0.8, 0, 0])
        #expect(filter.layerProbabilities.map { ($0 * 1e6).rounded() / 1e6 } == [0.2, 0.8])
        #expect(filter.summary(layer: 1).mean == PlanarPoint(x: 0.5, y: 0.5))
        #expect(filter.summary(layer: 0).mean.x == 2)
    }

    @Test func otherFloorsMeanIsTheModelThroughTheSlab() throws {
        let venue = PositioningVenue(building)
        // g1 at (0, 0), 2.5 m above floor 0; a receiver upstairs at (3, 0), 1.2 m above 3.5 m:
        // dz = 2.5 − 4.7 = −2.2, d = √(9 + 4.84) = 3.72022, −59 − 20·log10(3.72022) − 15 = −85.41136.
        let mean = RadioMap.crossFloorRSSI(venue: venue, beacon: 0, position: try #require(venue.positions[0]),
                                           at: PlanarPoint(x: 3, y: 0), level: 1, metresPerUnit: 1, attenuation: 15)
        #expect(abs(mean - -85.41136) < 1e-5)
        // The map holds it at the cell centred there, with the widened spread √(4² + 3²) = 5 dB.
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 12, maxY: 12),
                                              cellSize: 1, maximumCells: 144))
        let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4)
        #expect(map.levels == [0, 1] && map.floorAttenuation == RadioMap.defaultFloorAttenuation)
        let cell = try #require(grid.cell(containing: PlanarPoint(x: 3.5, y: 0.5)))
        let centre = grid.centre(of: cell)
        let expected = -59 - 20 * log10((centre.x * centre.x + centre.y * centre.y + 2.2 * 2.2).squareRoot()) - 15
        #expect(abs(Double(map.crossMeans[0][1][cell]) - expected) < 1e-3)
        #expect(map.crossMeans[0][0].isEmpty && map.crossSpreads.first == 5)
        // Not hearing g1 upstairs is weighed where it would come within 2 spreads and 10 dB of
        // the detection floor: at −75 dBm, −95 dBm, 11.2 m away, so rows 0–10 (row 11's nearest
        // centre, (0.5, 11.5), is 11.7 m away).
        let deaf = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4, detectionFloor: -75)
        #expect(deaf.crossReach[0][1] == 0..<(11 * 12) && !deaf.crossMeans[0][1].isEmpty)
        // A floor with no elevation is a storey of 3.5 m a level.
        var flat = building
        flat.floors = [Venue.Floor(level: 0), Venue.Floor(level: 1)]
        let unelevated = RadioMap.crossFloorRSSI(venue: PositioningVenue(flat), beacon: 0, position: try #require(venue.positions[0]),
                                                 at: PlanarPoint(x: 3, y: 0), level: 1, metresPerUnit: 1, attenuation: 15)
        #expect(abs(unelevated - mean) < 1e-9)
    }

    @Test func surveyMeasuresWhatASlabCosts() throws {
        // A survey of both floors (a spot every 3 m, 3 scans each) through slabs of 10 and 25 dB:
        // the fit, censored by the −95 dBm floor, finds each among the candidates.
        let spots = stride(from: 1.5, to: 12, by: 3).flatMap { x in stride(from: 1.5, to: 12, by: 3).map { (x, $0) } }
        let venue = PositioningVenue(building)
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 12, maxY: 12),
                                              cellSize: 1, maximumCells: 144))
        let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 2)
        let likelihood = ScanLikelihood(outlierWeight: 0.1, missProbability: 0.05, detectionFloor: -95)
        for slab in [10.0, 25] {
            let survey = scans(of: [0, 1].flatMap { floor in
                spots.map { Walk.Waypoint(x: $0.0, y: $0.1, floor: floor, dwell: 2) }
            }, slab: slab)
            #expect(PosteriorSolver.floorAttenuation(of: survey, venue: venue, map: map, likelihood: likelihood) == slab)
        }
        // Without truths naming floors, nothing to measure.
        let unnamed = scans(of: [Walk.Waypoint(x: 6, y: 6, dwell: 60)]).map { scan in
            var scan = scan
            scan.truth?.floor = nil
            return scan
        }
        #expect(PosteriorSolver.floorAttenuation(of: unnamed, venue: venue, map: map, likelihood: likelihood) == nil)
    }

    @Test func theFloorIsThePosteriorsAndFollowsTheStairs() throws {
        // Upstairs for 20 s, then downstairs: every floor's beacons weighed on every floor, the
        // locator's floor selection off, each fix with its floor's probability.
        let walk = scans(of: [Walk.Waypoint(x: 3, y: 9, floor: 1, dwell: 20), Walk.Waypoint(x: 3, y: 9, floor: 0, dwell: 20)])
        var configuration = LocatorConfiguration()
        configuration.choosesFilterAndTracking = true
        let setup = PositioningAlgorithm.posterior.setup(venue: building, configuration: configuration)
        #expect(setup.configuration.floorSelection == nil)
        var locator = Locator(venue: setup.venue, solver: setup.solver, configuration: setup.configuration)
        let fixes = walk.map { locator.locate($0) }
        let floors = fixes.map { $0?.floor }, truths = walk.map { $0.truth?.floor }
        // Right on every scan but the two after the change.
        let change = try #require(truths.firstIndex { $0 == 0 })
        let wrong = zip(floors, truths).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(wrong.allSatisfy { $0 >= change && $0 < change + 2 }, "wrong floors at \(wrong), the change at \(change)")
        let settled = fixes[(change + 3)...].compactMap { $0?.floorProbability }
        #expect(settled.count == fixes.count - change - 3 && settled.allSatisfy { $0 > 0.95 })
        #expect(fixes[5]?.floorProbability.map { $0 > 0.95 } == true)
        // A venue of one floor has no floor probability.
        let flat = PositioningAlgorithm.posterior.setup(venue: Venue(beacons: Array(building.beacons.prefix(4))))
        var flatLocator = Locator(venue: flat.venue, solver: flat.solver, configuration: flat.configuration)
        #expect(flatLocator.locate(walk[0])?.floorProbability == nil)
    }

    @Test func beaconsThroughTheSlabPlaceTheDevice() throws {
        // Upstairs at (3, 3) where only one beacon of its own floor is heard (u1) and the ground
        // floor's through a 15 dB slab: those keep it on its floor and near the truth (1.3 m,
        // untrained). Counted as outliers instead, they put fixes downstairs (and the error at
        // 1.6 m).
        let standing = scans(of: [Walk.Waypoint(x: 3, y: 3, floor: 1, dwell: 15)]).map { scan in
            var scan = scan
            scan.readings.removeAll { [.id("u2"), .id("u3"), .id("u4")].contains($0.beacon) }
            return scan
        }
        let solver = PosteriorSolver(venue: PositioningVenue(building))
        var locator = Locator(venue: PositioningVenue(building), solver: solver, configuration: {
            var configuration = LocatorConfiguration()
            configuration.floorSelection = nil
            return configuration
        }())
        let fixes = standing.compactMap { locator.locate($0) }
        #expect(fixes.count == standing.count && fixes.allSatisfy { $0.floor == 1 })
        let error = fixes.map { $0.point.planar.distance(to: PlanarPoint(x: 3, y: 3)) }.reduce(0, +) / Double(fixes.count)
        #expect(error < 1.45, "mean error \(error) m")
    }

    @Test func floorsShareTheStatesBound() throws {
        // Four floors of 20 × 20 m in cells of 0.2 m: about 11,000 cells a floor, so each layer is
        // coarsened to hold 16,384 ÷ 4 = 4,096, and a device's state stays within 64 KiB.
        let floors = (0..<4).map { Venue.Floor(level: $0, elevation: 3.5 * Double($0)) }
        var beacons: [Venue.Beacon] = []
        for level in 0..<4 {
            for (index, corner) in [(0.0, 0.0), (20.0, 0.0), (0.0, 20.0), (20.0, 20.0)].enumerated() {
                beacons.append(Venue.Beacon(id: "f\(level)-\(index)", x: corner.0, y: corner.1, floor: level))
            }
        }
        var options = PosteriorSolver.Options()
        options.cellSize = 0.2
        let venue = PositioningVenue(Venue(floors: floors, beacons: beacons))
        let grid = try #require(PosteriorSolver.grid(of: venue, options: options))
        #expect(grid.count <= 4096 && grid.count > 3000 && grid.cellSize > 0.3)
        let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4)
        let solver = PosteriorSolver(venue: venue, map: map, likelihood: ScanLikelihood(outlierWeight: 0.1, missProbability: 0.3,
                                                                                       detectionFloor: -100),
                                     motion: GridFilter.Motion(speed: 1, stayProbability: 0.5, jumpRate: 0.02), estimate: .mean,
                                     bandwidth: nil, accuracyScale: 1, maximumGap: 60, validationError: nil, offsetPriorSigma: 5)
        #expect(map.levels == [0, 1, 2, 3] && solver.stateBytes == grid.count * 4 * 4 && solver.stateBytes <= 65536)
        // One floor keeps the cells of its own bound.
        let ground = PositioningVenue(Venue(floors: [floors[0]], beacons: beacons.filter { $0.floor == 0 }))
        #expect(PosteriorSolver.grid(of: ground, options: options)?.count ?? 0 > 4096)
    }

    @Test func fixesWriteAndReadTheirFloorsProbability() throws {
        let fix = Fix(time: 1, point: SpatialPoint(x: 1, y: 2, z: 1.2), floor: 1, accuracy: 1.5, method: "posterior",
                      floorProbability: 0.98765)
        let line = FixCoding.line(for: fix, decimalPlaces: 3)
        #expect(line.contains("\"floor\":1,\"floorProbability\":0.9877,\"accuracy\""))
        #expect(try FixCoding.decode(line: line).floorProbability == 0.9877)
        #expect(throws: FormatError.self) {
            try FixCoding.decode(line: #"{"t": 1, "x": 0, "y": 0, "accuracy": 1, "floorProbability": 1.5}"#)
        }
    }
}
