import Foundation
import Testing
@testable import Whereabouts

/// Four beacons at the corners of a 10 × 10 m square (−59 dBm at 1 m, n = 2).
private let square = Venue(beacons: [
    Venue.Beacon(id: "a", x: 0, y: 0), Venue.Beacon(id: "b", x: 10, y: 0),
    Venue.Beacon(id: "c", x: 0, y: 10), Venue.Beacon(id: "d", x: 10, y: 10),
])

/// Two floors with a beacon each: one at a corner downstairs, one mid-side upstairs.
private let building = Venue(
    floors: [Venue.Floor(level: 0, elevation: 0), Venue.Floor(level: 1, elevation: 3.5)],
    beacons: [
        Venue.Beacon(id: "g", x: 0, y: 0, z: 2.5, floor: 0), Venue.Beacon(id: "u", x: 15, y: 0, z: 2.5, floor: 1),
    ])

@Suite("Posterior solver: the likelihood on the filter's support")
struct PosteriorSupportTests {
    /// A grid of `columns` × `rows` cells of 1 m.
    private func grid(columns: Int, rows: Int) throws -> PosteriorGrid {
        try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: Double(columns), maxY: Double(rows)),
                                   cellSize: 1, maximumCells: columns * rows))
    }

    @Test func supportHoldsTheCellsFromItsShareOfTheLargestWithShortGapsClosed() throws {
        // 10 × 3 cells, the largest weight 1: from 0.01 up a cell is in. Row 0: cells 1 and 2,
        // then 7 four cells on (its own run), 8 under the share; row 1: 14 and 17, three apart
        // (one run, the gap with them); row 2: none.
        let grid = try grid(columns: 10, rows: 3)
        var weights = [Float](repeating: 0.001, count: 30)
        for (cell, weight) in [(1, 1), (2, 0.5), (7, 0.01), (8, 0.009), (14, 0.3), (17, 0.2)] as [(Int, Float)] {
            weights[cell] = weight
        }
        let support = try #require(PosteriorSolver.supportRuns(of: weights, grid: grid, layers: 1))
        #expect(support.runs == [[1..<3, 7..<8, 14..<18]])
        #expect(support.inside.indices.filter { support.inside[$0] } == [1, 2, 7, 14, 15, 16, 17])
        // Two layers, the largest weight 2 upstairs: from 0.02 up (cell 7 out), each layer its
        // runs in its own cells.
        let layered = try #require(PosteriorSolver.supportRuns(of: weights + [Float](repeating: 0, count: 29) + [2],
                                                               grid: grid, layers: 2))
        #expect(layered.runs == [[1..<3, 14..<18], [29..<30]])
        #expect(layered.inside.indices.filter { layered.inside[$0] } == [1, 2, 14, 15, 16, 17, 59])
        // Half the cells or more, or nothing held: every cell is weighed.
        #expect(PosteriorSolver.supportRuns(of: [Float](repeating: 1, count: 30), grid: grid, layers: 1) == nil)
        #expect(PosteriorSolver.supportRuns(of: [Float](repeating: 0, count: 30), grid: grid, layers: 1) == nil)
        #expect(PosteriorSolver.supportRuns(of: weights, grid: grid, layers: 2) == nil)   // not as many weights
    }

    @Test func blockMapHoldsEachBlocksCentreCell() throws {
        // 10 × 10 cells in blocks of 3: 4 × 4 blocks, the last column and row of them one cell
        // wide, each the map at its centre cell (the last ones at their own cell).
        let venue = PositioningVenue(square)
        let grid = try grid(columns: 10, rows: 10)
        let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4)
        let blocks = map.sampled(every: 3)
        #expect(blocks.grid.columns == 4 && blocks.grid.rows == 4 && blocks.grid.cellSize == 3)
        #expect(blocks.grid.minX == grid.minX && blocks.grid.minY == grid.minY)
        for (block, cell) in [(0, 11), (1, 14), (3, 19), (4, 41), (15, 99)] {
            #expect(grid.sampledCell(of: block, factor: 3) == cell)
            for beacon in 0..<4 {
                #expect(blocks.mean(beacon: beacon, cell: block) == map.mean(beacon: beacon, cell: cell))
                #expect(blocks.spread(beacon: beacon, cell: block) == map.spread(beacon: beacon, cell: cell))
            }
        }
        // The block's centre cell's centre is the block's centre.
        #expect(blocks.grid.centre(of: 5) == grid.centre(of: grid.sampledCell(of: 5, factor: 3)))
    }

    @Test func blockMapReachesTheOtherFloorsBlockRowsWhoseCentreRowItReaches() throws {
        // 30 × 30 cells of 1 m; through a slab of 20 dB the upstairs beacon at the south edge
        // reaches the south rows downstairs and not the north ones: a block row is in reach when
        // its centre row is.
        let venue = PositioningVenue(building)
        let grid = try grid(columns: 30, rows: 30)
        let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4, floorAttenuation: 20, detectionFloor: -80)
        let reach = map.crossReach[1][0]
        #expect(!reach.isEmpty && reach.upperBound < grid.count, "the fixture needs a partial reach: \(reach)")
        let blocks = map.sampled(every: 3)
        let blockReach = blocks.crossReach[1][0]
        for blockRow in 0..<blocks.grid.rows {
            let centreRow = grid.sampledCell(of: blockRow * blocks.grid.columns, factor: 3) / grid.columns
            #expect(blockReach.contains(blockRow * blocks.grid.columns) == reach.contains(centreRow * grid.columns),
                    "block row \(blockRow)")
        }
        for block in [0, 37, 99] {
            let cell = grid.sampledCell(of: block, factor: 3)
            #expect(blocks.crossMeans[1][0][block] == map.crossMeans[1][0][cell])
        }
    }

    @Test func likelihoodIsExactOnTheSupportAndTheBlocksCentresElsewhere() throws {
        // Cells of 0.5 m over the square (20 × 20), a track's prediction peaked at (3, 3): on the
        // support each cell's log-likelihood and offset are those of weighing every cell, bit for
        // bit; elsewhere its block's centre cell's.
        let venue = PositioningVenue(square)
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 10, maxY: 10),
                                              cellSize: 0.5, maximumCells: 400))
        let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4)
        let solver = PosteriorSolver(venue: venue, map: map,
                                     likelihood: ScanLikelihood(outlierWeight: 0.1, missProbability: 0.2, detectionFloor: -75),
                                     motion: GridFilter.Motion(speed: 1, stayProbability: 0.5, jumpRate: 0.02),
                                     estimate: .mean, bandwidth: nil, accuracyScale: 1, maximumGap: 10,
                                     validationError: nil, offsetPriorSigma: 4)
        #expect(solver.blockMap?.grid.count == 49)
        let predicted = (0..<grid.count).map { cell -> Float in
            let centre = grid.centre(of: cell)
            return Float(exp(-((centre.x - 3) * (centre.x - 3) + (centre.y - 3) * (centre.y - 3)) / 2))
        }
        let support = try #require(PosteriorSolver.supportRuns(of: predicted, grid: grid, layers: 1))
        let held = support.inside.filter { $0 }.count
        #expect(held > 50 && held < 200)
        // b heard, the others not (the detection floor within reach of the far corner).
        let observation = Observation(time: 0, signals: [BeaconSignal(beaconIndex: 0, rssi: -70),
                                                         BeaconSignal(beaconIndex: 1, rssi: -79)], ranges: [])
        let every = try #require(solver.logLikelihood(of: observation, map: map, offset: 1, offsetVariance: 9))
        let sparse = try #require(solver.logLikelihood(of: observation, map: map, offset: 1, offsetVariance: 9,
                                                       predicted: predicted))
        #expect(sparse.used == every.used)
        for cell in 0..<grid.count {
            let column = cell % grid.columns, row = cell / grid.columns
            let source = support.inside[cell]
                ? cell : grid.sampledCell(of: (row / 3) * 7 + column / 3, factor: 3)
            #expect(sparse.logs[cell] == every.logs[source] && sparse.offsets[cell] == every.offsets[source],
                    "cell \(cell) from \(source)")
        }
        #expect(sparse.logs != every.logs)
        // No prediction, or one spread over the venue: every cell weighed.
        let none = try #require(solver.logLikelihood(of: observation, map: map, offset: 1, offsetVariance: 9, predicted: nil))
        #expect(none.logs == every.logs)
        let flat = try #require(solver.logLikelihood(of: observation, map: map, offset: 1, offsetVariance: 9,
                                                     predicted: [Float](repeating: 1, count: grid.count)))
        #expect(flat.logs == every.logs)
    }
}
