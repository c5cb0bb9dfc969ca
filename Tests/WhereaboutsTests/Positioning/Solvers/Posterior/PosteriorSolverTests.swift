import Foundation
import Testing
@testable import Whereabouts

/// Four beacons at the corners of a 10 × 10 m square (−59 dBm at 1 m, n = 2, heights unknown).
private let square = Venue(beacons: [
    Venue.Beacon(id: "a", x: 0, y: 0), Venue.Beacon(id: "b", x: 10, y: 0),
    Venue.Beacon(id: "c", x: 0, y: 10), Venue.Beacon(id: "d", x: 10, y: 10),
])

/// A scan at `point` in the square with the model's RSSI plus Gaussian noise of `noise` dB.
private func scan(at point: PlanarPoint, time: Double, noise: Double, random: inout SeededRandom) -> Scan {
    let readings = square.beacons.map { beacon in
        let d = max(point.distance(to: PlanarPoint(x: beacon.x ?? 0, y: beacon.y ?? 0)), 0.5)
        let rssi = (-59 - 20 * log10(d) + noise * random.nextGaussian()).rounded()
        return Reading(beacon: .id(beacon.id), rssi: rssi)
    }
    return Scan(time: time, device: "phone", readings: readings, truth: GroundTruth(x: point.x, y: point.y))
}

@Suite("Posterior solver")
struct PosteriorSolverTests {
    @Test func likelihoodIsAGaussianWithAUniformTailAndCountsMisses() {
        let likelihood = ScanLikelihood(outlierWeight: 0.1, outlierRange: 60, missProbability: 0.2, detectionFloor: -100)
        // log(0.8·(0.9·φ(0)/4 + 0.1/60)), φ(0) = 1/√(2π).
        #expect(abs(likelihood.logHeard(rssi: -70, mean: -70, spread: 4) - -2.615339618156577) < 1e-12)
        // 12 dB off at σ 4: z = 3, the tail keeps it from vanishing: log(0.8·(0.9·φ(3)/4 + 0.1/60)).
        #expect(abs(likelihood.logHeard(rssi: -58, mean: -70, spread: 4) - -6.151132932689369) < 1e-12)
        // Not heard where the mean is at the floor: log(0.2 + 0.8·½).
        #expect(abs(likelihood.logUnheard(mean: -100, spread: 4) - log(0.6)) < 1e-12)
        // Not heard where it should be 8 dB above it: log(0.2 + 0.8·Φ(−2)).
        #expect(abs(likelihood.logUnheard(mean: -92, spread: 4) - -1.5223427218136072) < 1e-12)
    }

    @Test func unheardTableGivesTheLogAndItsDerivatives() {
        let likelihood = ScanLikelihood(outlierWeight: 0.1, missProbability: 0.2, detectionFloor: -100)
        let table = UnheardTable(likelihood: likelihood)
        // log P(z) exactly: a beacon of spread 1 whose mean is z below the floor.
        func exact(_ z: Double) -> Double { likelihood.logUnheard(mean: -100 - z, spread: 1) }
        // z = 0: P = 0.2 + 0.8·½ = 0.6, g = 0.8·φ(0)/0.6, h = −g·(0 + g).
        let g0 = 0.8 / (2 * Double.pi).squareRoot() / 0.6
        let atZero = table.terms(at: 0)
        #expect(abs(Double(atZero.value) - log(0.6)) < 1e-6)
        #expect(abs(Double(atZero.g) - g0) < 1e-6 && abs(Double(atZero.h) - -g0 * g0) < 1e-6)
        // Against finite differences of the exact log at z = −1.5.
        let z = -1.5, step = 0.1
        let slope = (exact(z + step) - exact(z - step)) / (2 * step)
        let bend = (exact(z + step) - 2 * exact(z) + exact(z - step)) / (step * step)
        let found = table.terms(at: Float(z))
        #expect(abs(Double(found.g) - slope) < 0.01 && abs(Double(found.h) - bend) < 0.02)
        // log P along g from the nearest point: within ½·|h|·0.01² of the exact log.
        var worst = 0.0
        for index in 0..<1400 {
            let z = -9.99 + Double(index) * 0.0142
            worst = max(worst, abs(Double(table.terms(at: Float(z)).value) - exact(Double(Float(z)))))
        }
        #expect(worst < 1e-4, "log P: worst difference \(worst)")
        // Beyond the table: the end's log P, no slope; NaN as below it.
        let beyond = table.terms(at: 11), below = table.terms(at: .nan)
        #expect(abs(Double(beyond.value) - exact(10)) < 1e-6 && beyond.g == 0 && beyond.h == 0)
        #expect(abs(Double(below.value) - exact(-10)) < 1e-6 && below.g == 0 && below.h == 0)
    }

    @Test func unheardTermsEightCellsAtATimeAreTheTablesCellByCell() {
        let table = UnheardTable(likelihood: ScanLikelihood(outlierWeight: 0.1, missProbability: 0.2, detectionFloor: -100))
        // 40 cells, z from below the table to above it, a NaN, exactly on a point, half-way
        // between two; the beacon weighed on cells 2..<37 (four rounds of eight and three alone).
        let count = 40
        var means = (0..<count).map { -100 - Float($0 - 20) * 0.55 }
        let inverses = (0..<count).map { 1 / (1.5 + Float($0 % 5)) }
        let offsets = (0..<count).map { Float($0 % 3) - 1 }
        means[3] = .nan
        means[5] = -300   // far below the floor: z above the table
        means[30] = 100   // far above it: z below the table
        means[12] = -100 - offsets[12] - 0.5 / inverses[12]   // z = 0.5, a point
        means[13] = -100 - offsets[13] - 0.51 / inverses[13]  // half-way between 0.5 and 0.52
        let cells = 2..<37
        func run(scratchCells: Int) -> (logs: [Float], gradient: [Float], curvature: [Float]) {
            var logs = [Float](repeating: 0.5, count: count), gradient = [Float](repeating: 0.25, count: count)
            var curvature = [Float](repeating: -0.75, count: count), mutableOffsets = offsets
            let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: 5 * scratchCells)
            defer { scratch.deallocate() }
            means.withUnsafeBufferPointer { means in
                inverses.withUnsafeBufferPointer { inverses in
                    table.terms.withUnsafeBufferPointer { terms in
                        mutableOffsets.withUnsafeMutableBufferPointer { offsets in
                            logs.withUnsafeMutableBufferPointer { logs in
                                gradient.withUnsafeMutableBufferPointer { gradient in
                                    curvature.withUnsafeMutableBufferPointer { curvature in
                                        UnheardTable.accumulate(cells: cells, floor: -100, means: means, inverses: inverses,
                                                                offsets: offsets, terms: terms, logs: logs, gradient: gradient,
                                                                curvature: curvature, scratch: scratch)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            return (logs, gradient, curvature)
        }
        var logs = [Float](repeating: 0.5, count: count), gradient = [Float](repeating: 0.25, count: count)
        var curvature = [Float](repeating: -0.75, count: count)
        for cell in cells {
            let (value, g, h) = table.terms(at: (-100 - means[cell] - offsets[cell]) * inverses[cell])
            logs[cell] += value
            gradient[cell] -= g * inverses[cell]
            curvature[cell] += h * inverses[cell] * inverses[cell]
        }
        // The same values to the last bit, with scratch space for the lanes and without.
        for scratchCells in [count, 0] {
            let found = run(scratchCells: scratchCells)
            #expect(found.logs == logs && found.gradient == gradient && found.curvature == curvature,
                    "scratch for \(scratchCells) cells")
        }
        #expect(logs[3].isFinite && logs[0] == 0.5 && logs[37] == 0.5)
    }

    @Test func vectorMathIsExpLogAndSoftplusWithinItsBounds() {
        var worstExp = 0.0, worstLog = 0.0, worstSoftplus = 0.0
        for step in 0...10_000 {
            let y = -10 * Double(step) / 10_000
            worstExp = max(worstExp, abs(Double(VectorMath.exp(Float(y))) / exp(Double(Float(y))) - 1))
            let u = Double(step) / 10_000
            worstLog = max(worstLog, abs(Double(VectorMath.log1p(Float(u))) - log1p(Double(Float(u)))))
            let x = Double(Float(-30 + 60 * Double(step) / 10_000))
            let exact = x > 0 ? x + log1p(exp(-x)) : log1p(exp(x))
            worstSoftplus = max(worstSoftplus, abs(Double(VectorMath.softplus(Float(x))) - exact))
        }
        #expect(worstExp < 1e-6, "exp: worst relative error \(worstExp)")
        #expect(worstLog < 3e-7, "log1p: worst error \(worstLog)")
        // Up to half a Float's step at |x| = 30 (1.9·10⁻⁶) in the sum max(x, 0) + log(1 + e^(−|x|)).
        #expect(worstSoftplus < 2e-6, "softplus: worst error \(worstSoftplus)")
        // The far ends: e⁻⁸⁷ and below, the smallest normal Floats, not 0 or infinite.
        #expect(abs(Double(VectorMath.exp(-87)) / exp(Double(-87)) - 1) < 1e-5)
        #expect(VectorMath.exp(-1000) == VectorMath.exp(-87) && VectorMath.exp(0) == 1)
        #expect(abs(VectorMath.softplus(0) - Float(log(2.0))) < 3e-7)
        #expect(VectorMath.softplus(100) == 100 && VectorMath.softplus(-100) > 0)
    }

    @Test func sumsRunSideBySideAndGiveTheSums() {
        // 1…19: 190 exactly (two lanes' worth and three left over); none: 0; 1,000 values of
        // one sign within 10⁻⁶ of their sum in Double.
        #expect(VectorMath.sum((1...19).map(Float.init)) == 190)
        #expect(VectorMath.sum([]) == 0)
        var random = SeededRandom(seed: 9)
        let values = (0..<1_000).map { _ in Float(random.nextUniform()) * 1e-3 }
        let exact = values.reduce(0.0) { $0 + Double($1) }
        #expect(abs(Double(VectorMath.sum(values)) - exact) < 1e-6 * exact)
        // Σ w·x and Σ w·x² by hand, five cells (a group of four and one more, which counts):
        // 0.5·2 − 0.25·4 + 0.25·1 = 0.25 and 0.5·4 + 0.25·16 + 0.25·1 = 6.25; counts that
        // differ give nothing.
        let moments = PosteriorSolver.weightedMoments(of: [2, -4, 8, 100, 1], weights: [0.5, 0.25, 0, 0, 0.25])
        #expect(moments.mean == 0.25 && moments.square == 6.25)
        let mismatched = PosteriorSolver.weightedMoments(of: [1], weights: [1, 2])
        #expect(mismatched.mean == 0 && mismatched.square == 0)
    }

    @Test func scanLogLikelihoodIsTheSumOfEachBeaconsTerms() throws {
        // With the offset pinned at 0 (a prior of σ 0.001 dB), each cell's log-likelihood is
        // Σ logHeard over the heard beacons + Σ logUnheard over the unheard ones, the scan's
        // likelihood exactly as ``ScanLikelihood`` gives it — under a survey's spreads that differ
        // from cell to cell, and with no tail at all.
        let venue = PositioningVenue(square)
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 10, maxY: 10),
                                              cellSize: 1, maximumCells: 100))
        let residuals = RadioMap.Residuals(spots: [
            [RadioMap.Residuals.Spot(point: PlanarPoint(x: 2, y: 3), count: 8, mean: 3, meanSquare: 40)], [],
            [RadioMap.Residuals.Spot(point: PlanarPoint(x: 4, y: 7), count: 4, mean: -5, meanSquare: 60)], [],
        ])
        let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4, residuals: residuals,
                           correction: RadioMap.SurveyCorrection(bandwidth: 2))
        #expect(map.spread(beacon: 0, cell: 32) != map.spread(beacon: 0, cell: 99))
        let observation = Observation(time: 0, signals: [BeaconSignal(beaconIndex: 0, rssi: -62),
                                                         BeaconSignal(beaconIndex: 2, rssi: -81)], ranges: [])
        for outlierWeight in [0.1, 0] {
            let likelihood = ScanLikelihood(outlierWeight: outlierWeight, missProbability: 0.2, detectionFloor: -90)
            let solver = PosteriorSolver(venue: venue, map: map, likelihood: likelihood,
                                         motion: GridFilter.Motion(speed: 1, stayProbability: 0.5, jumpRate: 0.02),
                                         estimate: .mean, bandwidth: nil, accuracyScale: 1, maximumGap: 10,
                                         validationError: nil, offsetPriorSigma: 4)
            let result = try #require(solver.logLikelihood(of: observation, map: map, offset: 0, offsetVariance: 1e-6))
            #expect(result.used == 2 && result.logs.count == grid.count)
            var worst = 0.0
            for cell in 0..<grid.count {
                var expected = 0.0
                for (beacon, rssi) in [(0, -62.0), (2, -81.0)] {
                    expected += likelihood.logHeard(rssi: rssi, mean: try #require(map.mean(beacon: beacon, cell: cell)),
                                                    spread: try #require(map.spread(beacon: beacon, cell: cell)))
                }
                for beacon in [1, 3] {
                    expected += likelihood.logUnheard(mean: try #require(map.mean(beacon: beacon, cell: cell)),
                                                      spread: try #require(map.spread(beacon: beacon, cell: cell)))
                }
                #expect(abs(Double(result.offsets[cell])) < 0.01)
                worst = max(worst, abs(Double(result.logs[cell]) - expected) / max(1, abs(expected)))
            }
            #expect(worst < 1e-4, "ε \(outlierWeight): worst relative error \(worst)")
        }
    }

    @Test func unheardBeaconsAreWeighedAtTheSteppedOffsetToSecondOrder() throws {
        // A phone whose offset is free (σ 5 dB): at each cell the offset takes a Newton step from
        // the heard readings' estimate, and the unheard beacons' log-probability at the stepped
        // offset is taken to second order about the first (one pass over them, not two). Against
        // the scan's likelihood at the stepped offset, exactly: within thousandths where the
        // step is small, hundredths where it is large.
        let venue = PositioningVenue(square)
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 10, maxY: 10),
                                              cellSize: 1, maximumCells: 100))
        let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4)
        let likelihood = ScanLikelihood(outlierWeight: 0.1, missProbability: 0.2, detectionFloor: -80)
        let solver = PosteriorSolver(venue: venue, map: map, likelihood: likelihood,
                                     motion: GridFilter.Motion(speed: 1, stayProbability: 0.5, jumpRate: 0.02),
                                     estimate: .mean, bandwidth: nil, accuracyScale: 1, maximumGap: 10,
                                     validationError: nil, offsetPriorSigma: 5)
        // Near beacon a (0, 0): a and b heard, c and d (10 m up) not, though strong enough at
        // many cells to pull the offset down there.
        let observation = Observation(time: 0, signals: [BeaconSignal(beaconIndex: 0, rssi: -66),
                                                         BeaconSignal(beaconIndex: 1, rssi: -78)], ranges: [])
        let result = try #require(solver.logLikelihood(of: observation, map: map, offset: 0, offsetVariance: 25))
        var worst = 0.0, worstSmallStep = 0.0, largestStep = 0.0
        for cell in 0..<grid.count {
            let shift = Double(result.offsets[cell])
            var expected = -0.5 * shift * shift / 25
            for (beacon, rssi) in [(0, -66.0), (1, -78.0)] {
                expected += likelihood.logHeard(rssi: rssi - shift, mean: try #require(map.mean(beacon: beacon, cell: cell)),
                                                spread: 4)
            }
            for beacon in [2, 3] {
                expected += likelihood.logUnheard(mean: try #require(map.mean(beacon: beacon, cell: cell)) + shift, spread: 4)
            }
            let error = abs(Double(result.logs[cell]) - expected)
            worst = max(worst, error)
            // The step from the heard readings' estimate (the prior's and theirs, precision-weighted).
            var weighted = 0.0, precision = 1.0 / 25
            for (beacon, rssi) in [(0, -66.0), (1, -78.0)] {
                weighted += (rssi - (try #require(map.mean(beacon: beacon, cell: cell)))) / 16
                precision += 1.0 / 16
            }
            let step = abs(shift - weighted / precision)
            largestStep = max(largestStep, step)
            if step < 1 { worstSmallStep = max(worstSmallStep, error) }
        }
        // Measured: 0.0011 under 1 dB, 0.031 at most, the largest step 2.2 dB.
        #expect(largestStep > 2, "the unheard beacons move the offset by \(largestStep) dB at most")
        #expect(worstSmallStep < 0.003, "worst error where the step is under 1 dB: \(worstSmallStep)")
        #expect(worst < 0.05, "worst error: \(worst)")
    }

    @Test func offsetLearntFromCensoredReadingsDoesNotRunAway() throws {
        // Six beacons along a 30 m corridor; a phone with no offset stands at its west end. The
        // far beacons arrive only when their noise lifts them above −85 dBm, so the heard readings
        // alone read strong: an offset learnt from them came to +2.7 dB in two minutes here (and
        // ran to 8–11 dB on simulated venues); the unheard beacons' pull holds it near 0 (0.8).
        let corridor = Venue(beacons: (0..<6).map { Venue.Beacon(id: "c\($0)", x: 3 + 6 * Double($0), y: 3) })
        var options = PosteriorSolver.Options()
        options.missProbability = 0.05
        options.detectionFloor = -85
        options.temper = 1
        options.speed = 1
        let solver = PosteriorSolver(venue: PositioningVenue(corridor), options: options)
        var locator = Locator(venue: PositioningVenue(corridor), solver: solver,
                              configuration: LocatorConfiguration(filter: nil, beaconTimeout: 0))
        var random = SeededRandom(seed: 11)
        let spot = PlanarPoint(x: 2, y: 3)
        for second in 0..<120 {
            let readings = corridor.beacons.compactMap { beacon -> Reading? in
                let d = max(spot.distance(to: PlanarPoint(x: beacon.x ?? 0, y: beacon.y ?? 0)), 0.5)
                let rssi = (-59 - 20 * log10(d) + 4 * random.nextGaussian()).rounded()
                return rssi >= -85 ? Reading(beacon: .id(beacon.id), rssi: rssi) : nil
            }
            _ = locator.locate(Scan(time: Double(second), device: "phone", readings: readings))
        }
        let learnt = try #require((locator.solver as? PosteriorSolver)?.learntOffset)
        #expect(abs(learnt.mean) < 1.5, "learnt offset \(learnt.mean) dB")
    }

    @Test func radioMapIsTheModelCorrectedByTheSurvey() throws {
        let venue = PositioningVenue(Venue(beacons: [Venue.Beacon(id: "a", x: 0, y: 0)]))
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 4, maxY: 2),
                                              cellSize: 1, maximumCells: 100))
        #expect(grid.count == 8)
        #expect(grid.centre(of: 5) == PlanarPoint(x: 1.5, y: 1.5))
        let model = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4)
        // Cell 0, centred at (0.5, 0.5): −59 − 20·log10 √0.5; cell 3 at (3.5, 0.5): −59 − 20·log10 √12.5.
        #expect(abs(try #require(model.mean(beacon: 0, cell: 0)) - -55.98970004336019) < 1e-4)
        #expect(abs(try #require(model.mean(beacon: 0, cell: 3)) - -69.96910013008056) < 1e-4)
        #expect(model.spread(beacon: 0, cell: 3) == 4)
        // Five readings at (0.5, 0.5), residuals averaging +4 dB with a mean square of 17 dB²; a
        // 1 m kernel and a prior worth 5 readings: at the spot the shift is 5·4/(5 + 5) = 2 dB and
        // the spread √((5·17 − 2·2·20 + 2²·5 + 5·4²)/10) = √10.5; a cell 1 m away weighs them by
        // e^(−½): 1.5102 dB and 3.5605 dB.
        let residuals = RadioMap.Residuals(spots: [[RadioMap.Residuals.Spot(point: PlanarPoint(x: 0.5, y: 0.5), count: 5,
                                                                             mean: 4, meanSquare: 17)]])
        let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4, residuals: residuals,
                           correction: RadioMap.SurveyCorrection(bandwidth: 1, priorReadings: 5))
        #expect(abs(try #require(map.mean(beacon: 0, cell: 0)) - (-55.98970004336019 + 2)) < 1e-4)
        #expect(abs(try #require(map.spread(beacon: 0, cell: 0)) - 10.5.squareRoot()) < 1e-5)
        #expect(abs(try #require(map.mean(beacon: 0, cell: 1)) - (-59 - 20 * log10(2.5.squareRoot()) + 1.5101626751925816)) < 1e-4)
        #expect(abs(try #require(map.spread(beacon: 0, cell: 1)) - 3.560530020159799) < 1e-5)
        // The residuals of a survey: a reading of −55 dBm at (0.5, 0.5) is 0.9897 dB above the model.
        let surveyed = RadioMap.Residuals(venue: venue, training: [
            Scan(time: 0, readings: [Reading(beacon: .id("a"), rssi: -55)], truth: GroundTruth(x: 0.5, y: 0.5)),
            Scan(time: 1, readings: [Reading(beacon: .id("a"), rssi: -57)], truth: GroundTruth(x: 0.5, y: 0.5)),
        ])
        let spot = try #require(surveyed.spots[0].first)
        #expect(surveyed.spots[0].count == 1 && spot.count == 2)
        #expect(abs(spot.mean - (-56 + 55.98970004336019)) < 1e-9)
        #expect(abs(spot.meanSquare - (pow(-55 + 55.98970004336019, 2) + pow(-57 + 55.98970004336019, 2)) / 2) < 1e-9)
    }

    @Test func heldOutErrorsHoldOutEachSpotsFoldOnItsBeaconsFloor() {
        // Two spots of a floor-1 beacon, 2 m apart in two 1.5 m blocks (two folds), residuals +4
        // and +2 dB, one reading each. A 1 m kernel, a prior worth 1 reading: each is predicted by
        // the other, e^−2·r/(e^−2 + 1), errors |4 − 0.238| and |2 − 0.477|, mean 2.642; none: 3.
        // (Folds of floored truths were once looked up without a floor: every spot skipped.)
        let spots = [RadioMap.Residuals.Spot(point: PlanarPoint(x: 0.5, y: 0.5), count: 1, mean: 4, meanSquare: 16),
                     RadioMap.Residuals.Spot(point: PlanarPoint(x: 2.5, y: 0.5), count: 1, mean: 2, meanSquare: 4)]
        let folds = SpatialFolds(locations: spots.map { ($0.point, 1) }, blockSize: 1.5, folds: 5)
        #expect(folds.count == 2)
        let errors = RadioMap.heldOutErrors(residuals: RadioMap.Residuals(spots: [[], spots]),
                                            corrections: [nil, RadioMap.SurveyCorrection(bandwidth: 1, priorReadings: 1)],
                                            folds: folds, floors: [0, 1], metresPerUnit: 1)
        #expect(abs(errors[0] - 3) < 1e-12 && abs(errors[1] - 2.6423912339336475) < 1e-12)
    }

    @Test func filterMovesAndWeighsItsGrid() throws {
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 3, maxY: 1),
                                              cellSize: 1, maximumCells: 100))
        var filter = GridFilter(grid: grid)
        // Likelihoods e⁰, e⁻¹, e⁻² from a uniform prior: weights ∝ 1, e⁻¹, e⁻².
        filter.update(logLikelihood: [0, -1, -2], temper: 1)
        let total = 1 + exp(-1.0) + exp(-2.0)
        #expect(abs(Double(filter.weights[0]) - 1 / total) < 1e-6)
        #expect(abs(Double(filter.weights[2]) - exp(-2.0) / total) < 1e-6)
        // Standing still for sure, no jumps: nothing moves.
        let before = filter.weights
        filter.predict(seconds: 1, motion: GridFilter.Motion(speed: 5, stayProbability: 1, jumpRate: 0))
        #expect(filter.weights == before)
        // Certain to have jumped (rate ∞): uniform.
        filter.predict(seconds: 1, motion: GridFilter.Motion(speed: 0, stayProbability: 1, jumpRate: .infinity))
        #expect(filter.weights.allSatisfy { abs($0 - 1 / 3) < 1e-6 })
    }

    /// The posterior's mean, per-axis variance (plus a cell's own, size²/12) and most probable
    /// cell (the first of equals) on a layer, against the sums written cell by cell.
    @Test func summaryIsTheLayersMomentsAndItsFirstLargestCell() throws {
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: -2, minY: 1, maxX: 5, maxY: 6),
                                              cellSize: 1, maximumCells: 35))
        var random = SeededRandom(seed: 11)
        var weights = (0..<70).map { _ in Float(random.nextUniform()) }
        weights[40] = 2
        weights[47] = 2   // a tie, later: the first stays the mode
        let filter = GridFilter(grid: grid, layers: 2, weights: weights)
        for layer in 0..<2 {
            let cells = filter.weights[(layer * 35)..<((layer + 1) * 35)]
            let total = cells.reduce(0.0) { $0 + Double($1) }
            var mx = 0.0, my = 0.0, mxx = 0.0, myy = 0.0
            for (index, weight) in cells.enumerated() {
                let centre = grid.centre(of: index), w = Double(weight) / total
                mx += w * centre.x
                my += w * centre.y
                mxx += w * centre.x * centre.x
                myy += w * centre.y * centre.y
            }
            let summary = filter.summary(layer: layer)
            #expect(abs(summary.mean.x - mx) < 1e-9 && abs(summary.mean.y - my) < 1e-9)
            #expect(abs(summary.variance.x - (mxx - mx * mx + 1.0 / 12)) < 1e-9)
            #expect(abs(summary.variance.y - (myy - my * my + 1.0 / 12)) < 1e-9)
            let largest = try #require(cells.max())
            let mode = try #require(cells.indices.first { cells[$0] == largest }) - layer * 35
            #expect(summary.mode == grid.centre(of: mode))
        }
        #expect(filter.summary(layer: 1).mode == grid.centre(of: 5))
    }

    /// The update's weights are e^(evidence − the largest) within 10⁻⁶ relatively (the
    /// exponential in ``VectorMath``), and exactly 0 where the evidence is −∞ or so far under the
    /// largest that a `Float` would hold a denormal of it.
    @Test func updateWeighsByTheExponentialAndRulesOutMinusInfinity() throws {
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 6, maxY: 1),
                                              cellSize: 1, maximumCells: 6))
        var filter = GridFilter(grid: grid)
        let logs: [Float] = [0, -3, -7.5, -20, -.infinity, -200]
        filter.update(logLikelihood: logs, temper: 0.8, logPrior: [0, 0, 0, 0, 0, 1])
        let expected = [0, -2.4, -6, -16, -Double.infinity, -159].map { exp($0) }
        let total = expected.reduce(0, +)
        for (weight, value) in zip(filter.weights, expected).prefix(4) {
            #expect(abs(Double(weight) - value / total) <= 1e-6 * value / total, "\(weight) against \(value / total)")
        }
        #expect(filter.weights[4] == 0 && filter.weights[5] == 0)
    }

    /// The motion's blur, tap by tap over whole rows, gives bit for bit what the convolution
    /// cell by cell gives (each cell's sums in the same order), edges renormalised included; and
    /// by hand, one row of three under the kernel (1, 2, 1)/4: the middle keeps the mean, each
    /// edge its own renormalised (2·a + b)/3.
    @Test func blurIsTheCellByCellConvolutionExactly() {
        let row = GridFilter.blurred([4, 8, 16], columns: 3, rows: 1, kernel: [0.25, 0.5, 0.25], radius: 1)
        let left: Float = (0.5 * 4 + 0.25 * 8) / 0.75, middle: Float = 0.25 * 4 + 0.5 * 8 + 0.25 * 16
        let right: Float = (0.25 * 8 + 0.5 * 16) / 0.75
        #expect(row == [left, middle, right])
        var random = SeededRandom(seed: 3)
        for (columns, rows, radius) in [(7, 5, 1), (13, 9, 4), (3, 17, 6), (1, 4, 2), (20, 1, 3)] {
            let values = (0..<(columns * rows)).map { _ in Float(random.nextUniform()) }
            let raw = (-radius...radius).map { Float(exp(-Double($0 * $0) / 4)) }
            let total = raw.reduce(0, +)
            let kernel = raw.map { $0 / total }
            #expect(GridFilter.blurred(values, columns: columns, rows: rows, kernel: kernel, radius: radius)
                        == Self.blurredCellByCell(values, columns: columns, rows: rows, kernel: kernel, radius: radius),
                    "\(columns) × \(rows), radius \(radius)")
        }
    }

    /// The convolution as written cell by cell: rows, then columns, each cell renormalised by
    /// the kernel's weight inside the grid.
    static func blurredCellByCell(_ values: [Float], columns: Int, rows: Int, kernel: [Float], radius: Int) -> [Float] {
        func pass(_ input: [Float], horizontally: Bool) -> [Float] {
            var output = [Float](repeating: 0, count: input.count)
            for row in 0..<rows {
                for column in 0..<columns {
                    let at = horizontally ? column : row, length = horizontally ? columns : rows
                    var acc: Float = 0, mass: Float = 0
                    for source in max(at - radius, 0)...min(at + radius, length - 1) {
                        let index = horizontally ? row * columns + source : source * columns + column
                        acc += kernel[source - at + radius] * input[index]
                        mass += kernel[source - at + radius]
                    }
                    output[row * columns + column] = mass > 0 ? acc / mass : 0
                }
            }
            return output
        }
        return pass(pass(values, horizontally: true), horizontally: false)
    }

    @Test func posteriorConvergesToTheTrueSpotDeterministically() throws {
        let setup = PositioningAlgorithm.posterior.setup(venue: square)
        #expect(setup.configuration.beaconTimeout == 5) // the library default: not chosen unless asked
        var configuration = LocatorConfiguration()
        configuration.choosesFilterAndTracking = true
        let chosen = PositioningAlgorithm.posterior.setup(venue: square, configuration: configuration)
        #expect(chosen.configuration.beaconTimeout == 0 && chosen.configuration.filter == nil && chosen.configuration.tracking == nil)
        func run() -> [Fix] {
            var random = SeededRandom(seed: 7)
            var locators = chosen.makeLocators()
            return (0..<20).compactMap { second in
                locators.locate(scan(at: PlanarPoint(x: 3, y: 4), time: Double(second), noise: 4, random: &random))
            }
        }
        let fixes = run()
        #expect(fixes.count == 20)
        let last = try #require(fixes.last)
        #expect(last.point.planar.distance(to: PlanarPoint(x: 3, y: 4)) < 1)
        // The posterior narrows as the scans add up.
        let first = try #require(fixes.first)
        #expect(last.accuracy < first.accuracy)
        #expect(run().map(\.point) == fixes.map(\.point))
        // One observation alone: a finite estimate inside the venue's bounds.
        let solver = try #require(chosen.solver as? PosteriorSolver)
        var random = SeededRandom(seed: 1)
        var locator = Locator(venue: chosen.venue, solver: solver, configuration: chosen.configuration)
        let observation = locator.observe(scan(at: PlanarPoint(x: 8, y: 2), time: 0, noise: 0, random: &random))
        let single = try #require(solver.locate(observation))
        #expect(single.isFinite && single.point.planar.distance(to: PlanarPoint(x: 8, y: 2)) < 1.5)
        // Nothing heard: no fix.
        #expect(solver.locate(Observation(time: 0, signals: [], ranges: [])) == nil)
    }

    @Test func silentScansGetThePredictionForFiveSecondsAfterTheLastEvidence() throws {
        var configuration = LocatorConfiguration()
        configuration.choosesFilterAndTracking = true
        var floored = square
        floored.beacons = floored.beacons.map { beacon in var beacon = beacon; beacon.floor = 2; return beacon }
        floored.floors = [Venue.Floor(level: 2)]
        let setup = PositioningAlgorithm.posterior.setup(venue: floored, configuration: configuration)
        var locator = setup.makeLocators()
        var random = SeededRandom(seed: 5)
        var fixes: [Double: Fix] = [:]
        for second in 0..<5 {
            var heard = scan(at: PlanarPoint(x: 3, y: 4), time: Double(second), noise: 2, random: &random)
            heard.truth = nil
            fixes[Double(second)] = locator.locate(heard)
        }
        // Nothing heard from t = 5 to 12: the last evidence was at 4.
        for second in 5...12 {
            fixes[Double(second)] = locator.locate(Scan(time: Double(second), device: "phone", readings: []))
        }
        let lastHeard = try #require(fixes[4])
        for second in 5...9 {
            let coasting = try #require(fixes[Double(second)], "no fix at \(second) s")
            #expect(coasting.beacons.isEmpty && coasting.floor == 2)
            // The prediction widens, and stays where the evidence left it.
            #expect(coasting.accuracy > (fixes[Double(second - 1)]?.accuracy ?? .infinity) - 1e-9)
            #expect(coasting.point.planar.distance(to: lastHeard.point.planar) < 0.5)
        }
        #expect(try #require(fixes[9]).accuracy > lastHeard.accuracy)
        for second in 10...12 { #expect(fixes[Double(second)] == nil, "a fix at \(second) s") }

        // Without floor selection (which would keep the floor itself), through a motion tracker:
        // the silent scans' fixes keep the floor the solver gives.
        var tracked = LocatorConfiguration(filter: nil, beaconTimeout: 0, floorSelection: nil)
        tracked.tracking = MotionTracker.Configuration()
        let trackedSetup = PositioningAlgorithm.posterior.setup(venue: floored, configuration: tracked)
        var trackedLocator = trackedSetup.makeLocators()
        random = SeededRandom(seed: 5)
        for second in 0..<5 {
            _ = trackedLocator.locate(scan(at: PlanarPoint(x: 3, y: 4), time: Double(second), noise: 2, random: &random))
        }
        let silentFix = trackedLocator.locate(Scan(time: 6, device: "phone", readings: []))
        let silent = try #require(silentFix)
        #expect(silent.floor == 2 && silent.beacons.isEmpty)
    }

    @Test func aPhoneNeverSeenGetsItsOwnRadiusFactor() throws {
        // The same posterior (both offsets start with the same σ) for a known phone and a
        // stranger: the stranger's radius is the known one's × 2.5 / 1.5, whichever came first
        // and after a track's reset; without a stranger's factor, both get the known one.
        let venue = PositioningVenue(square)
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 10, maxY: 10),
                                              cellSize: 1, maximumCells: 100))
        let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4)
        func solver(unknown: Double?) -> PosteriorSolver {
            PosteriorSolver(venue: venue, map: map, likelihood: ScanLikelihood(outlierWeight: 0.1, missProbability: 0.2,
                                                                               detectionFloor: -90),
                            motion: GridFilter.Motion(speed: 1, stayProbability: 0.5, jumpRate: 0.02), estimate: .mean,
                            bandwidth: nil, accuracyScale: 1.5, unknownDeviceAccuracyScale: unknown, maximumGap: 10,
                            validationError: nil, offsetPriorSigma: 3, knownDevices: ["phone"], knownDeviceOffsetSigma: 3)
        }
        func observation(_ device: String) -> Observation {
            Observation(time: 0, device: device, signals: [BeaconSignal(beaconIndex: 0, rssi: -65),
                                                           BeaconSignal(beaconIndex: 1, rssi: -75)], ranges: [])
        }
        var measured = solver(unknown: 2.5)
        let first = measured.update(observation("visitor"))
        measured.resetTrack()
        let second = measured.update(observation("phone"))
        let stranger = try #require(first), known = try #require(second)
        #expect(abs(stranger.accuracy / known.accuracy - 2.5 / 1.5) < 1e-9)
        #expect(abs(try #require(measured.locate(observation("visitor"))).accuracy - stranger.accuracy) < 1e-9)
        let unmeasured = try #require(solver(unknown: nil).locate(observation("visitor")))
        #expect(abs(unmeasured.accuracy - known.accuracy) < 1e-9)
        // The validation's stranger: every reading `offset` dB up, a device no list names.
        let scan = Scan(time: 3, device: "phone", readings: [Reading(beacon: .id("a"), rssi: -70)])
        let read = try #require(DefaultSolver.unknownDevice([scan], offset: 4).first)
        #expect(read.readings.map(\.rssi) == [-66] && read.device != "phone" && read.device?.hasSuffix("phone") == true)
    }

    @Test func trainedSolverChoosesItsSettingsAndKeepsItsStateBounded() throws {
        // A survey of the square: 4 scans at each spot of a 2 m grid, the beacon "b" reading
        // 6 dB stronger than the model everywhere (what the survey must learn).
        var random = SeededRandom(seed: 3)
        var training: [Scan] = []
        var time = 0.0
        for x in stride(from: 1.0, through: 9, by: 2) {
            for y in stride(from: 1.0, through: 9, by: 2) {
                for _ in 0..<4 {
                    var surveyed = scan(at: PlanarPoint(x: x, y: y), time: time, noise: 2, random: &random)
                    surveyed.readings[1].rssi += 6
                    training.append(surveyed)
                    time += 1
                }
            }
        }
        let solver = PosteriorSolver(venue: PositioningVenue(square), training: training)
        #expect(solver.bandwidth != nil)
        // At (5, 5), 7.07 m from "b": the model says −76 dBm, the survey 6 dB more.
        let map = try #require(solver.map)
        let centre = try #require(map.grid.cell(containing: PlanarPoint(x: 5, y: 5)))
        let model = -59 - 20 * log10(map.grid.centre(of: centre).distance(to: PlanarPoint(x: 10, y: 0)))
        #expect(try #require(map.mean(beacon: 1, cell: centre)) > model + 3)
        #expect(solver.accuracyScale > 0 && solver.validationError.map { $0 < 2 } == true)
        // A phone the survey never saw is measured too, and is never surer than the surveyor's.
        #expect(try #require(solver.unknownDeviceAccuracyScale) >= solver.accuracyScale)
        #expect(solver.stateBytes <= 64 * 1024)
        // A 60 × 40 m venue still fits in 64 KiB per device.
        let large = PositioningVenue(Venue(beacons: [Venue.Beacon(id: "a", x: 0, y: 0), Venue.Beacon(id: "b", x: 60, y: 40)]))
        #expect(PosteriorSolver(venue: large).stateBytes <= 64 * 1024)
    }

    @Test func validationChoosesHowOftenAndHowFastTheDeviceMoves() throws {
        // Readings with 6 dB of noise over the square, taken by a surveyor who stands 20 scans
        // at each spot of a 3 m grid, and by one who walks laps of it 1.33 m a scan without
        // stopping. Standing, the scans at a spot say the same thing many times over: a filter
        // that expects no move between scans averages them; walking, it would lag behind.
        var random = SeededRandom(seed: 11)
        let spots = stride(from: 1.0, through: 9, by: 3).flatMap { x in
            stride(from: 1.0, through: 9, by: 3).map { PlanarPoint(x: x, y: $0) }
        }
        var standing: [Scan] = []
        for spot in spots {
            for _ in 0..<20 {
                standing.append(scan(at: spot, time: Double(standing.count), noise: 6, random: &random))
            }
        }
        var walking: [Scan] = []
        let corners = [PlanarPoint(x: 1, y: 1), PlanarPoint(x: 9, y: 1), PlanarPoint(x: 9, y: 9), PlanarPoint(x: 1, y: 9)]
        for lap in 0..<5 {
            for side in 0..<4 {
                let from = corners[(side + lap) % 4], to = corners[(side + lap + 1) % 4]
                for step in 0..<6 {
                    let share = Double(step) / 6
                    let point = PlanarPoint(x: from.x + (to.x - from.x) * share, y: from.y + (to.y - from.y) * share)
                    walking.append(scan(at: point, time: Double(walking.count), noise: 6, random: &random))
                }
            }
        }
        let still = PosteriorSolver(venue: PositioningVenue(square), training: standing)
        let moving = PosteriorSolver(venue: PositioningVenue(square), training: walking)
        #expect(PosteriorSolver.stayCandidates.contains(still.motion.stayProbability))
        #expect(PosteriorSolver.stayCandidates.contains(moving.motion.stayProbability))
        #expect(still.motion.stayProbability > moving.motion.stayProbability)
        // And how far it goes when it moves: the slowest walk for one who never leaves a spot
        // but between spots, faster for the walker (metres a second, the venue's units).
        #expect(still.motion.speed == PosteriorSolver.speedCandidates[0])
        #expect(moving.motion.speed >= 1)
        // Named, it is not chosen; without training, the untrained one.
        var options = PosteriorSolver.Options()
        options.stayProbability = 0.3
        options.temper = 0.5
        options.speed = 1
        let named = PosteriorSolver(venue: PositioningVenue(square), training: standing, options: options)
        #expect(named.motion.stayProbability == 0.3)
        #expect(PosteriorSolver(venue: PositioningVenue(square)).motion.stayProbability == PosteriorSolver.untrainedStay)
    }
}
