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

/// A solver over `square` on cells of 0.5 m over `extent` (a map of 2 dB spreads, ε 0.1, m 0.2,
/// heard down to −85 dBm, the likelihood tempered by `temper`); a prediction peaked at (3, 3)
/// (σ √2 m); a scan heard near (2, 2): a, b and c as the model has them there, d not.
private func nearTheCorner(extent: PositioningVenue.Extent, temper: Double) throws
    -> (solver: PosteriorSolver, map: RadioMap, predicted: [Float], observation: Observation) {
    let venue = PositioningVenue(square)
    let grid = try #require(PosteriorGrid(extent: extent, cellSize: 0.5, maximumCells: 6400))
    let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 2)
    let likelihood = ScanLikelihood(outlierWeight: 0.1, missProbability: 0.2, detectionFloor: -85, temper: temper)
    let solver = PosteriorSolver(venue: venue, map: map, likelihood: likelihood,
                                 motion: GridFilter.Motion(speed: 1, stayProbability: 0.5, jumpRate: 0.02),
                                 estimate: .mean, bandwidth: nil, accuracyScale: 1, maximumGap: 10,
                                 validationError: nil, offsetPriorSigma: 4)
    let predicted = (0..<grid.count).map { cell -> Float in
        let centre = grid.centre(of: cell)
        return Float(exp(-((centre.x - 3) * (centre.x - 3) + (centre.y - 3) * (centre.y - 3)) / 4))
    }
    let observation = Observation(time: 0, signals: [BeaconSignal(beaconIndex: 0, rssi: -68),
                                                     BeaconSignal(beaconIndex: 1, rssi: -77),
                                                     BeaconSignal(beaconIndex: 2, rssi: -77)], ranges: [])
    return (solver, map, predicted, observation)
}

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
        #expect(support == [[1..<3, 7..<8, 14..<18]])
        // Two layers, the largest weight 2 upstairs: from 0.02 up (cell 7 out), each layer its
        // runs in its own cells.
        let layered = try #require(PosteriorSolver.supportRuns(of: weights + [Float](repeating: 0, count: 29) + [2],
                                                               grid: grid, layers: 2))
        #expect(layered == [[1..<3, 14..<18], [29..<30]])
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

    @Test func neighbourhoodMaximaTakeTheLargestOfTheEightNeighboursOnTheirLayer() throws {
        // 4 × 3 blocks, two layers: 1 at the corner (0, 0) of the first, 5 at (3, 2) of the second.
        let grid = try grid(columns: 4, rows: 3)
        var values = [Float](repeating: 0, count: 24)
        values[0] = 1
        values[12 + 11] = 5
        let maxima = PosteriorSolver.neighbourhoodMaxima(of: values, grid: grid, layers: 2)
        #expect(maxima == [1, 1, 0, 0,
                           1, 1, 0, 0,
                           0, 0, 0, 0,
                           0, 0, 0, 0,
                           0, 0, 5, 5,
                           0, 0, 5, 5])
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

    @Test func likelihoodIsExactWhereThePosteriorHoldsItsMassAndTheBlocksCentresElsewhere() throws {
        // Cells of 0.5 m over 40 × 40 m around the square (80 × 80, blocks of 5: 16 × 16). Each
        // cell's log-likelihood and offset are either those of weighing every cell, bit for bit,
        // or its block's centre cell's; every cell holding a tenth of the largest posterior mass
        // is weighed exactly, and not every cell is. Without a prediction (a fresh track) the
        // same, from the blocks' posterior alone.
        let (solver, map, peaked, observation) = try nearTheCorner(
            extent: PositioningVenue.Extent(minX: -15, minY: -15, maxX: 25, maxY: 25), temper: 1)
        let grid = map.grid, factor = PosteriorSolver.blockFactor
        let across = (grid.columns + factor - 1) / factor
        #expect(grid.columns == 80 && solver.blockMap?.grid.count == across * across)
        let every = try #require(solver.logLikelihood(of: observation, map: map, offset: 1, offsetVariance: 0.01))
        for predicted in [peaked, nil] {
            let sparse = try #require(solver.logLikelihood(of: observation, map: map, offset: 1, offsetVariance: 0.01,
                                                           predicted: predicted))
            #expect(sparse.used == every.used)
            let prior = predicted ?? [Float](repeating: 1, count: grid.count)
            let posterior = (0..<grid.count).map { Double(prior[$0]) * exp(Double(every.logs[$0])) }
            let largest = try #require(posterior.max())
            var exact = 0
            for cell in 0..<grid.count {
                let column = cell % grid.columns, row = cell / grid.columns
                let centre = grid.sampledCell(of: (row / factor) * across + column / factor, factor: factor)
                let isExact = sparse.logs[cell] == every.logs[cell] && sparse.offsets[cell] == every.offsets[cell]
                let isBlock = sparse.logs[cell] == every.logs[centre] && sparse.offsets[cell] == every.offsets[centre]
                #expect(isExact || isBlock, "cell \(cell)")
                if posterior[cell] >= 0.1 * largest { #expect(isExact, "cell \(cell) holds mass") }
                if isExact { exact += 1 }
            }
            #expect(exact < grid.count && sparse.logs != every.logs)
        }
        // A prediction spread over the venue and a flat scan: the blocks' posterior holds half the
        // cells or more, every cell weighed.
        let silent = Observation(time: 0, signals: [BeaconSignal(beaconIndex: 0, rssi: -79)], ranges: [])
        let flat = try #require(solver.logLikelihood(of: silent, map: map, offset: 1, offsetVariance: 0.01,
                                                     predicted: [Float](repeating: 1, count: grid.count)))
        #expect(flat.logs == solver.logLikelihood(of: silent, map: map, offset: 1, offsetVariance: 0.01)?.logs)
    }

    @Test func cellsNearABeaconAreNotLeftToTheirBlockWhereTheyHoldMass() throws {
        // Over the square alone (20 × 20 cells of 0.5 m), a scan heard strongly from a corner: the
        // likelihood changes fastest near the beacon, where a block's centre cell is a poor
        // judge of its other cells; each block's neighbours bound it, and every cell holding a
        // tenth of the largest posterior mass is weighed exactly.
        let (solver, map, predicted, observation) = try nearTheCorner(
            extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 10, maxY: 10), temper: 0.5)
        let grid = map.grid
        let every = try #require(solver.logLikelihood(of: observation, map: map, offset: 1, offsetVariance: 9))
        let sparse = try #require(solver.logLikelihood(of: observation, map: map, offset: 1, offsetVariance: 9,
                                                       predicted: predicted))
        let posterior = (0..<grid.count).map { Double(predicted[$0]) * exp(0.5 * Double(every.logs[$0])) }
        let largest = try #require(posterior.max())
        for cell in 0..<grid.count where posterior[cell] >= 0.1 * largest {
            #expect(sparse.logs[cell] == every.logs[cell], "cell \(cell) holds \(posterior[cell] / largest) of the largest")
        }
        #expect(sparse.logs != every.logs)
    }

    @Test func aBoxWalksAsTheWholeGridWouldWithNothingOutside() throws {
        // 13 × 9 values, zero outside columns 3..<9 and rows 2..<7: the box blurred with the
        // grid's margins beyond it is the whole grid blurred, bit for bit, on the box's cells.
        var random = SeededRandom(seed: 5)
        var values = [Float](repeating: 0, count: 13 * 9)
        for row in 2..<7 { for column in 3..<9 { values[row * 13 + column] = Float(random.nextUniform()) } }
        let raw = (-3...3).map { Float(exp(-Double($0 * $0) / 2)) }
        let kernel = raw.map { $0 / raw.reduce(0, +) }
        let whole = GridFilter.blurred(values, columns: 13, rows: 9, kernel: kernel, radius: 3)
        func inBox(_ grid: [Float]) -> [Float] {
            var cells: [Float] = []
            for row in 2..<7 { cells += grid[(row * 13 + 3)..<(row * 13 + 9)] }
            return cells
        }
        let walked = GridFilter.blurred(inBox(values), columns: 6, rows: 5, kernel: kernel, radius: 3,
                                        margins: (3, 4, 2, 2))
        let expected = inBox(whole)
        #expect(walked == expected)
    }

    @Test func onlyTheCellsWithinTheWalksReachOfTheMassWalk() throws {
        // 12 × 10 cells of 1 m; weights 1 at (2, 2), 0.5 at (3, 2), 0.005 at (10, 8) (under 1 % of
        // the largest). Walking σ 1 m over 1 s (a reach of 3 cells), half the mass staying, no
        // jumps: the box of columns 0..<7 and rows 0..<6 walks as the whole grid would with
        // nothing outside it; the cell at (10, 8) stays whole.
        let grid = try grid(columns: 12, rows: 10)
        // By hand first: on 4 × 3, cells (0, 1), (0, 2) and (2, 2) from 1 up, one cell around.
        let small: [Float] = [0, 0, 0.5, 0, 2, 0, 0, 0, 1, 0, 3, 0]
        let smallBox = try #require(GridFilter.box(of: small, from: 0, grid: try self.grid(columns: 4, rows: 3),
                                                   atLeast: 1, margin: 1))
        #expect(smallBox.columns == 0..<4 && smallBox.rows == 0..<3)
        let tight = try #require(GridFilter.box(of: small, from: 0, grid: try self.grid(columns: 4, rows: 3),
                                                atLeast: 1, margin: 0))
        #expect(tight.columns == 0..<3 && tight.rows == 1..<3)
        var weights = [Float](repeating: 0, count: 120)
        weights[2 * 12 + 2] = 1
        weights[2 * 12 + 3] = 0.5
        weights[8 * 12 + 10] = 0.005
        let box = try #require(GridFilter.box(of: weights, from: 0, grid: grid, atLeast: 0.01, margin: 3))
        #expect(box.columns == 0..<7 && box.rows == 0..<6)
        #expect(GridFilter.box(of: weights, from: 0, grid: grid, atLeast: 2, margin: 3) == nil)
        var filter = GridFilter(grid: grid, weights: weights)
        filter.predict(seconds: 1, motion: GridFilter.Motion(speed: 1, stayProbability: 0.5, jumpRate: 0), walkingShare: 0.01)
        var near = weights
        near[8 * 12 + 10] = 0
        let raw = (-3...3).map { Float(exp(-Double($0 * $0) / 2)) }
        let walked = GridFilter.blurred(near, columns: 12, rows: 10, kernel: raw.map { $0 / raw.reduce(0, +) }, radius: 3)
        var expected = weights
        for row in 0..<6 {
            for column in 0..<7 {
                let cell = row * 12 + column
                expected[cell] = 0.5 * weights[cell] + 0.5 * walked[cell]
            }
        }
        let total: Float = expected.reduce(0, +)
        for cell in 0..<120 {
            #expect(abs(filter.weights[cell] - expected[cell] / total) < 1e-6, "cell \(cell)")
        }
        #expect(filter.weights[7 * 12 + 2] == 0 && filter.weights[2 * 12 + 7] == 0)
        // A share that is not finite: every cell walks.
        var everyCell = GridFilter(grid: grid, weights: weights), notFinite = everyCell
        everyCell.predict(seconds: 1, motion: GridFilter.Motion(speed: 1, stayProbability: 0.5, jumpRate: 0))
        notFinite.predict(seconds: 1, motion: GridFilter.Motion(speed: 1, stayProbability: 0.5, jumpRate: 0), walkingShare: .nan)
        #expect(notFinite.weights == everyCell.weights && everyCell.weights[7 * 12 + 10] > 0)
    }
}
