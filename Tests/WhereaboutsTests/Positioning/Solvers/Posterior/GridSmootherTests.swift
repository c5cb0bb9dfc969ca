import Foundation
import Testing
@testable import Whereabouts

/// Four beacons at the corners of a 10 × 10 m square (−59 dBm at 1 m, n = 2).
private let square = Venue(beacons: [
    Venue.Beacon(id: "a", x: 0, y: 0), Venue.Beacon(id: "b", x: 10, y: 0),
    Venue.Beacon(id: "c", x: 0, y: 10), Venue.Beacon(id: "d", x: 10, y: 10),
])

/// A walk from (1, 2) to (9, 8) and back over `count` seconds in the square, 4 dB of noise.
private func squareWalk(count: Int, seed: UInt64 = 11) -> [Scan] {
    var random = SeededRandom(seed: seed)
    let half = Double(count) / 2
    return (0..<count).map { second -> Scan in
        let along = (Double(second) < half ? Double(second) : Double(count - second)) / half
        let point = PlanarPoint(x: 1 + 8 * along, y: 2 + 6 * along)
        let readings = square.beacons.map { beacon in
            let d = max(point.distance(to: PlanarPoint(x: beacon.x ?? 0, y: beacon.y ?? 0)), 0.5)
            return Reading(beacon: .id(beacon.id), rssi: (-59 - 20 * log10(d) + 4 * random.nextGaussian()).rounded())
        }
        return Scan(time: Double(second), device: "phone", readings: readings, truth: GroundTruth(x: point.x, y: point.y))
    }
}

/// The mean distance of each fix from its scan's truth.
private func meanDistance(of fixes: [Fix?], from scans: [Scan]) -> Double {
    let errors = zip(scans, fixes).compactMap { scan, fix in
        fix.flatMap { fix in scan.truth?.planarPoint.map { fix.point.planar.distance(to: $0) } }
    }
    return errors.reduce(0, +) / Double(max(errors.count, 1))
}

@Suite("Grid smoother")
struct GridSmootherTests {
    @Test func backwardMessageCarriesTheLaterEvidenceThroughTheMotion() throws {
        // Two cells; no walking (speed 0), jumps at rate ln 2: over 1 s half the mass goes anywhere.
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 2, maxY: 1),
                                              cellSize: 1, maximumCells: 2))
        let motion = GridFilter.Motion(speed: 0, stayProbability: 0.5, jumpRate: log(2))
        // Step 0 knows nothing; step 1 finds cell 1 a quarter as likely: filtered [0.8, 0.2].
        let steps = [
            GridFilter.SmoothingStep(filtered: [0.5, 0.5], evidence: nil, seconds: 0, continues: false),
            GridFilter.SmoothingStep(filtered: [0.8, 0.2], evidence: [0, log(0.25)], seconds: 1, continues: true),
        ]
        let smoothed = GridFilter.smoothed(steps, motion: motion, grid: grid)
        // β₀ = K[1, ¼] = ½·[1, ¼] + ½·(1¼)/2 = [0.8125, 0.4375]; p₀ ∝ [0.5, 0.5] ⊙ β₀ = [0.65, 0.35].
        #expect(abs(smoothed[0].weights[0] - 0.65) < 1e-6 && abs(smoothed[0].weights[1] - 0.35) < 1e-6)
        // The last step is the filter's own.
        #expect(abs(smoothed[1].weights[0] - 0.8) < 1e-6 && abs(smoothed[1].weights[1] - 0.2) < 1e-6)
        // A step that starts afresh cuts the message: the step before keeps its own.
        var cut = steps
        cut[1].continues = false
        #expect(GridFilter.smoothed(cut, motion: motion, grid: grid)[0].weights == [0.5, 0.5])
        #expect(GridFilter.smoothed([], motion: motion, grid: grid).isEmpty)
    }

    @Test func smoothedTrackIsCloserThanTheFilteredOneAndKeepsEveryFix() throws {
        var configuration = LocatorConfiguration()
        configuration.choosesFilterAndTracking = true
        let setup = PositioningAlgorithm.posterior.setup(venue: square, configuration: configuration)
        // A walk from (1, 2) to (9, 8) at 0.05 m/s… then back: 150 scans, more than one block
        // of the smoother (60 with 30 after it), 4 dB of noise.
        let scans = squareWalk(count: 150)
        func meanError(_ fixes: [Fix?]) -> Double { meanDistance(of: fixes, from: scans) }
        var online = setup.makeLocators()
        let filtered = scans.map { online.locate($0) }
        let solver = try #require(setup.solver as? PosteriorSolver)
        var locator = Locator(venue: setup.venue, solver: solver, configuration: setup.configuration)
        let smoothed = locator.smoothedFixes(for: scans)
        #expect(smoothed.count == scans.count && smoothed.allSatisfy { $0 != nil })
        #expect(filtered.allSatisfy { $0 != nil })
        // Each fix weighs the scans after it too: closer to the walk, and the same on a rerun.
        let (before, after) = (meanError(filtered), meanError(smoothed))
        #expect(after < 0.85 * before, "filtered \(before) m, smoothed \(after) m")
        #expect(locator.smoothedFixes(for: scans).map { $0?.point } == smoothed.map { $0?.point })
        // The smoothed posterior is narrower, but the radius factor was measured on filtered
        // ones: a fix's radius is never narrowed (only widened where the smoothed posterior is wider).
        let pairs = zip(filtered, smoothed).compactMap { pair in pair.0.flatMap { f in pair.1.map { (f.accuracy, $0.accuracy) } } }
        #expect(pairs.count == scans.count && pairs.allSatisfy { $0.1 >= $0.0 })
        #expect(pairs.contains { $0.1 == $0.0 })
    }

    @Test func lagSmoothedEstimateIsTheWholeTrackSmootherOfTheStepsKeptAfterIt() throws {
        let setup = PositioningAlgorithm.posterior.setup(venue: square)
        let solver = try #require(setup.solver as? PosteriorSolver)
        let scans = squareWalk(count: 40)
        var locator = Locator(venue: setup.venue, solver: solver, configuration: setup.configuration)
        let observations = scans.map { locator.observe($0) }
        // The whole track smoothed at once (under one block: every step sees all after it), and
        // the first 26 steps alone.
        func wholeTrack(_ count: Int) -> [(filtered: PositionEstimate, smoothed: PositionEstimate)] {
            var whole = solver
            let started = whole.startSmoothing()
            #expect(started)
            for observation in observations.prefix(count) { _ = whole.update(observation) }
            return whole.finishSmoothing()
        }
        let all = wholeTrack(40), first26 = wholeTrack(26)
        #expect(all.count == 40 && first26.count == 26)
        var lagged = solver
        let started = lagged.startLagSmoothing()
        #expect(started)
        // Not started, nothing kept: no estimate.
        var plain = solver
        _ = plain.update(observations[0])
        let unkept = plain.lagSmoothedEstimate(at: 0)
        #expect(unkept == nil)
        for observation in observations.prefix(26) { _ = lagged.update(observation) }
        // Step 20 asked for when 26 are in: smoothed by steps 21-25, as the whole track of 26 has it.
        let twenty = try #require(lagged.lagSmoothedEstimate(at: 20) as (filtered: PositionEstimate, smoothed: PositionEstimate)?)
        #expect(twenty.smoothed.point == first26[20].smoothed.point && twenty.filtered.point == all[20].filtered.point)
        #expect(twenty.smoothed.accuracy == first26[20].smoothed.accuracy)
        #expect(twenty.smoothed.point != all[20].smoothed.point, "the steps after 25 were not in yet")
        // Steps 0-20 are let go; a time never seen lets go of those before it too.
        let letGo = [3, 20, 21.5, 21].map { lagged.lagSmoothedEstimate(at: $0) == nil }
        #expect(letGo == [true, true, true, true])
        for observation in observations[26...] { _ = lagged.update(observation) }
        // With the rest in, each later step is the whole track's.
        for time in 22..<40 {
            let step = lagged.lagSmoothedEstimate(at: Double(time))
            #expect(step?.smoothed.point == all[time].smoothed.point, "step \(time)")
        }
        // A reset stops it: nothing kept after.
        lagged.resetTrack()
        _ = lagged.update(observations[0])
        let afterReset = lagged.lagSmoothedEstimate(at: 0)
        #expect(afterReset == nil)
    }

    @Test func lagSmoothingKeepsAtMostNinetySteps() throws {
        let setup = PositioningAlgorithm.posterior.setup(venue: square)
        var solver = try #require(setup.solver as? PosteriorSolver)
        let scans = squareWalk(count: 100)
        var locator = Locator(venue: setup.venue, solver: solver, configuration: setup.configuration)
        let started = solver.startLagSmoothing()
        #expect(started)
        for scan in scans { _ = solver.update(locator.observe(scan)) }
        // The ten oldest were pushed out; the eleventh is the oldest kept.
        let (ninth, tenth) = (solver.lagSmoothedEstimate(at: 9), solver.lagSmoothedEstimate(at: 10))
        #expect(ninth == nil && tenth != nil)
    }

    @Test func fixedLagPipelinesSmoothWithThePosteriorsOwnModel() throws {
        var configuration = LocatorConfiguration()
        configuration.choosesFilterAndTracking = true
        let setup = PositioningAlgorithm.posterior.setup(venue: square, configuration: configuration)
        let scans = squareWalk(count: 120)
        var online = setup.makeLocators()
        let filtered = scans.map { online.locate($0) }
        var locator = Locator(venue: setup.venue, solver: setup.solver, configuration: setup.configuration)
        let lagged = locator.smoothedFixes(for: scans, lag: 4)
        let whole = locator.smoothedFixes(for: scans)
        #expect(lagged.count == scans.count && lagged.allSatisfy { $0 != nil })
        let (before, late, all) = (meanDistance(of: filtered, from: scans), meanDistance(of: lagged, from: scans),
                                meanDistance(of: whole, from: scans))
        // Four seconds of lookahead take most of what the whole track gives.
        #expect(late < 0.9 * before, "filtered \(before) m, 4 s late \(late) m")
        #expect(all <= late, "whole track \(all) m, 4 s late \(late) m")
        // The fix of second k is its posterior given the scans up to k + 4, when it fell due: the
        // whole-track smoother of those scans alone says the same of it.
        for k in [10, 50, 100] {
            let prefix = locator.smoothedFixes(for: Array(scans.prefix(k + 5)))
            #expect(prefix[k]?.point == lagged[k]?.point && prefix[k]?.accuracy == lagged[k]?.accuracy, "second \(k)")
        }
        // The live pipeline reports the same fixes, each 4 s late.
        var live = FixedLagLocators(setup: setup, lag: 4)
        var streamed: [Fix] = []
        for scan in scans {
            let out = live.locate(scan)
            #expect(out.allSatisfy { $0.time + 4 <= scan.time })
            streamed += out
        }
        streamed += live.finish()
        #expect(streamed.map(\.point) == lagged.compactMap { $0?.point })
    }
}
