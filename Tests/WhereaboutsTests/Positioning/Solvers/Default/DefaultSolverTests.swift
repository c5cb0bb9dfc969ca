import Foundation
import Testing
@testable import Whereabouts

/// Four beacons at the corners of a 10 × 10 m square (−59 dBm at 1 m, n = 2, heights unknown).
private let square = Venue(beacons: [
    Venue.Beacon(id: "a", x: 0, y: 0), Venue.Beacon(id: "b", x: 10, y: 0),
    Venue.Beacon(id: "c", x: 0, y: 10), Venue.Beacon(id: "d", x: 10, y: 10),
])

private func observation(_ venue: PositioningVenue, distances: [(index: Int, distance: Double)]) -> Observation {
    let locator = Locator(venue: venue, solver: WeightedCentroid(venue: venue))
    var signals: [BeaconSignal] = [], ranges: [BeaconRange] = []
    for (index, distance) in distances {
        let rssi = -59 - 20 * log10(distance)
        signals.append(BeaconSignal(beaconIndex: index, rssi: rssi))
        if let range = locator.range(of: index, rssi: rssi) { ranges.append(range) }
    }
    return Observation(time: 0, signals: signals, ranges: ranges)
}

@Suite("Default solver")
struct DefaultSolverTests {
    @Test func degradesGracefullyWithFewBeacons() throws {
        let venue = PositioningVenue(square)
        let solver = DefaultSolver(venue: venue)
        // Nothing heard: no fix.
        #expect(solver.locate(observation(venue, distances: [])) == nil)
        // One beacon: at (or next to) it, with a radius at least as large as its range.
        let one = try #require(solver.locate(observation(venue, distances: [(0, 3)])))
        #expect(one.point.planar.distance(to: PlanarPoint(x: 0, y: 0)) < 1e-9)
        #expect(one.accuracy >= 3)
        // Two beacons 10 m apart, 2 m and 8 m away: on the segment between them, nearer the first.
        let two = try #require(solver.locate(observation(venue, distances: [(0, 2), (1, 8)])))
        #expect(abs(two.point.y) < 1e-6)
        #expect(two.point.x > 0 && two.point.x < 5)
        #expect(two.isFinite)
    }

    @Test func noiseFreeRangesFromFourBeaconsFindThePoint() throws {
        let venue = PositioningVenue(square)
        let solver = DefaultSolver(venue: venue)
        // The true point (3, 4): distances 5, √65, √45, √85. Multilateration finds it exactly; the
        // centroid of the four (weights 1/d²) pulls toward the nearest beacon, so the fusion lands
        // between: within 2 m.
        let point = PlanarPoint(x: 3, y: 4)
        let distances = (0..<4).map { index in
            (index, point.distance(to: PlanarPoint(x: square.beacons[index].x ?? 0, y: square.beacons[index].y ?? 0)))
        }
        let estimate = try #require(solver.locate(observation(venue, distances: distances)))
        #expect(estimate.point.planar.distance(to: point) < 2)
        #expect(estimate.beaconCount == 4)
    }

    @Test func radiusIsMeasuredOnASimulatedSurveyWithoutTraining() {
        let venue = PositioningVenue(square)
        let survey = DefaultSolver.simulatedSurvey(of: venue, configuration: LocatorConfiguration())
        // 300 spots of 4 s at one scan a second (the last spot's end included), every one inside the square.
        #expect(survey.count > 1000)
        #expect(survey.allSatisfy { scan in
            guard let truth = scan.truth?.planarPoint else { return false }
            return (0...10).contains(truth.x) && (0...10).contains(truth.y)
        })
        let solver = DefaultSolver(venue: venue)
        #expect(solver.accuracyScale > 0.1 && solver.accuracyScale < 10)
        #expect(solver.accuracyScale != 1)   // measured, not assumed
    }

    /// Spots in the square where each beacon reads a fixed offset (σ 5 dB: the spot's multipath)
    /// plus 1 dB of noise a scan, eight one-second scans at each, one track per spot: a standing
    /// phone's error persists from scan to scan, as on real recordings.
    private static func persistentSurvey(seed: UInt64, spots: Int) -> [Scan] {
        var random = SeededRandom(seed: seed)
        var scans: [Scan] = []
        for spot in 0..<spots {
            let x = 1 + 8 * random.nextUniform(), y = 1 + 8 * random.nextUniform()
            let offsets = square.beacons.map { _ in 5 * random.nextGaussian() }
            for second in 0..<8 {
                let readings = square.beacons.enumerated().map { index, beacon in
                    let distance = max(((x - (beacon.x ?? 0)) * (x - (beacon.x ?? 0)) + (y - (beacon.y ?? 0)) * (y - (beacon.y ?? 0))).squareRoot(), 0.5)
                    return Reading(beacon: .id(beacon.id), rssi: -59 - 20 * log10(distance) + offsets[index] + random.nextGaussian())
                }
                scans.append(Scan(time: Double(100 * spot + second), device: "phone", track: "\(spot)", readings: readings,
                                  truth: GroundTruth(x: x, y: y)))
            }
        }
        return scans
    }

    @Test func theTrackersRadiusIsMeasuredWhereErrorsPersist() throws {
        let configuration = LocatorConfiguration(filter: nil, tracking: .stopAndGo)
        let setup = PositioningAlgorithm.default.setup(venue: square, training: Self.persistentSurvey(seed: 1, spots: 80),
                                                       configuration: configuration)
        let solver = try #require(setup.solver as? DefaultSolver)
        // Averaging a standing phone's estimates as if independent shrinks the tracker's radius
        // far below their shared error: the factor is large, and the setup hands it on.
        let measured = try #require(solver.trackedAccuracyScale)
        #expect(measured > 1.5, "tracked radius factor \(measured)")
        #expect(setup.configuration.tracking?.accuracyScale == measured)
        // On other spots: about 68 % inside with the factor, far fewer without.
        func coverage(_ setup: PositioningSetup) throws -> Double {
            var locators = setup.makeLocators()
            var evaluation = Evaluation()
            for scan in Self.persistentSurvey(seed: 2, spots: 60) { evaluation.add(truth: scan.truth, fix: locators.locate(scan)) }
            return try #require(evaluation.report(dataset: "", algorithm: "", units: .metre).accuracyCoverage)
        }
        var unscaled = setup.configuration
        unscaled.tracking?.accuracyScale = 1
        let scaled = try coverage(setup)
        let plain = try coverage(PositioningSetup(venue: setup.venue, solver: setup.solver, configuration: unscaled))
        #expect(scaled > 0.53 && scaled < 0.83, "inside the scaled radius: \(scaled)")
        #expect(plain < scaled - 0.15, "inside the tracker's own radius: \(plain)")
        // Without tracking there is nothing to measure.
        #expect(DefaultSolver(venue: PositioningVenue(square)).trackedAccuracyScale == nil)
    }

    @Test func thePipelineIsChosenByTheValidationReplayWhenAllowed() throws {
        // Without training data the replay is a survey simulated under the venue's model.
        let venue = PositioningVenue(square)
        var choosing = LocatorConfiguration()
        choosing.choosesFilterAndTracking = true
        let chosen = DefaultSolver(venue: venue, configuration: choosing)
        // The choice is the candidate with the lower validation error.
        let candidates = DefaultSolver.pipelineCandidates(for: choosing)
        let validated = candidates.map { candidate in
            var fixed = candidate
            fixed.choosesFilterAndTracking = false
            return DefaultSolver(venue: venue, configuration: fixed)
        }
        let errors = validated.map { $0.validationError ?? .infinity }
        #expect(errors.count == 2 && errors.allSatisfy(\.isFinite))
        let best = errors[1] < errors[0] ? 1 : 0
        #expect(chosen.validationError == errors[best])
        #expect(chosen.filter == candidates[best].filter && chosen.tracking?.model == candidates[best].tracking?.model)
        // The setup hands the choice to the locators, with the tracker's measured factors.
        let setup = PositioningAlgorithm.default.setup(venue: square, configuration: choosing)
        #expect(setup.configuration.filter == chosen.filter && setup.configuration.tracking?.model == chosen.tracking?.model)
        #expect(setup.configuration.tracking?.accuracyScale == chosen.trackedAccuracyScale)
        // Raw RSSI and stop-and-go, validated on the survey: the survey only models how a real
        // phone's error persists, so the tracker's radius is kept at least the estimate's own;
        // the tracker weighs the estimates by the scatter of a standing receiver's fixes, which
        // is smaller than their radius, the survey's shadowing persisting where it stands.
        let stopAndGo = validated[1]
        #expect(stopAndGo.tracking?.isFlooredAtEstimateAccuracy == true)
        #expect((stopAndGo.tracking?.estimateAccuracyScale ?? 0) > 1.2, "\(stopAndGo.tracking?.estimateAccuracyScale ?? 0)")
        let fixedSetup = PositioningAlgorithm.default.setup(venue: square, configuration: candidates[1])
        #expect(fixedSetup.configuration.tracking?.isFlooredAtEstimateAccuracy == true)
        #expect(fixedSetup.configuration.tracking?.estimateAccuracyScale == stopAndGo.tracking?.estimateAccuracyScale)
        // Not allowed to choose, the default algorithm keeps the configuration, and so do the others.
        let kept = PositioningAlgorithm.default.setup(venue: square)
        #expect(kept.configuration.filter == LocatorConfiguration.defaultFilter && kept.configuration.tracking == nil)
        #expect(DefaultSolver(venue: venue).tracking == nil && DefaultSolver(venue: venue).filter == LocatorConfiguration.defaultFilter)
        let other = PositioningAlgorithm.multilateration.setup(venue: square, configuration: choosing)
        #expect(other.configuration.filter == LocatorConfiguration.defaultFilter && other.configuration.tracking == nil)
        // Already raw RSSI and stop-and-go: nothing else to try.
        #expect(DefaultSolver.pipelineCandidates(for: LocatorConfiguration(filter: nil, tracking: .stopAndGo)).count == 1)
    }

    @Test func onTrainingDataTheChoiceIsMeasuredNotFloored() throws {
        // Training spots whose errors persist while the phone stands (see persistentSurvey), with
        // 1 dB of noise a scan that averaging still removes: the replay on their truth picks the
        // pipeline with the lower error and measures its tracker's radius, which needs no floor.
        var choosing = LocatorConfiguration()
        choosing.choosesFilterAndTracking = true
        let training = Self.persistentSurvey(seed: 3, spots: 60)
        let setup = PositioningAlgorithm.default.setup(venue: square, training: training, configuration: choosing)
        let solver = try #require(setup.solver as? DefaultSolver)
        let validated = try #require(solver.validationError)
        #expect(solver.filter == nil && solver.tracking?.model == .stopAndGo)
        #expect(solver.tracking?.isFlooredAtEstimateAccuracy == false)
        #expect(setup.configuration.tracking?.isFlooredAtEstimateAccuracy == false)
        #expect((solver.trackedAccuracyScale ?? 0) > 1.5)
        var filtered = choosing
        filtered.choosesFilterAndTracking = false
        let alone = PositioningAlgorithm.default.setup(venue: square, training: training, configuration: filtered).solver as? DefaultSolver
        #expect(validated < (alone?.validationError ?? 0), "stop-and-go \(validated) m, filtered \(alone?.validationError ?? 0) m")
    }

    @Test func radiusKeepsItsPromiseOnAnotherSimulatedWalk() throws {
        // Train on one simulated survey of the example, score the visit: the share of truths inside
        // the 68 % radius lies within 68 ± 15 %.
        let preset = SimulationPreset.example
        let setup = PositioningAlgorithm.default.setup(venue: preset.venue, training: Array(preset.simulator(seed: 5)))
        var locators = setup.makeLocators()
        var evaluation = Evaluation()
        for scan in preset.simulator(seed: 6) { evaluation.add(truth: scan.truth, fix: locators.locate(scan)) }
        let coverage = try #require(evaluation.report(dataset: "", algorithm: "", units: .metre).accuracyCoverage)
        #expect(coverage > 0.53 && coverage < 0.83)
    }
}
