import Foundation
import Testing
@testable import Whereabouts

/// The two-filter smoother of the stop-and-go model (``TrackSmoother`` with
/// ``MotionTracker/Configuration/Model/stopAndGo``).
@Suite struct StopAndGoSmoothingTests {
    static let radius68 = TrackingTests.radius68
    static let configuration = StopAndGoTrackingTests.configuration

    static func timed(_ x: Double, _ y: Double, at time: Double, accuracy: Double = radius68) -> TimedEstimate {
        TimedEstimate(time: time, estimate: TrackingTests.estimate(x, y, accuracy: accuracy))
    }

    @Test func twoEstimatesCombineAsComputedByHand() throws {
        // σ = 0.5 per axis (variance 0.25). Forward, the first estimate is taken as it is. The
        // backward filter starts at the second, (1, 0), and predicts one second back: odds ½:½,
        // variance 0.25 + ½·0.0025 + ½·1.4²/2 = 0.74125.
        let accuracy = Self.radius68 * 0.5
        let inputs = [Self.timed(0, 0, at: 0, accuracy: accuracy), Self.timed(1, 0, at: 1, accuracy: accuracy)]
        let smoothed = TrackSmoother(configuration: Self.configuration).smooth(inputs)
        #expect(smoothed.count == 2)
        let first = try #require(smoothed[0])
        let forward = 0.25, backward = 0.25 + 0.5 * 0.0025 + 0.5 * 1.96 / 2
        let variance = 1 / (1 / forward + 1 / backward)
        #expect(abs(first.point.x - variance * (0 / forward + 1 / backward)) < 1e-12)
        #expect(abs(first.point.y) < 1e-12)
        #expect(abs(first.accuracy - Self.radius68 * variance.squareRoot()) < 1e-12)
        // Nothing comes after the last estimate: it is the online tracker's.
        var tracker = MotionTracker(configuration: Self.configuration)
        _ = tracker.update(inputs[0].estimate, at: 0)
        let updated = tracker.update(inputs[1].estimate, at: 1)
        let online = try #require(updated)
        let last = try #require(smoothed[1])
        #expect(abs(last.point.x - online.point.x) < 1e-12 && abs(last.accuracy - online.accuracy) < 1e-12)
    }

    @Test func aWalkBetweenStopsLosesItsLag() throws {
        // 20 s standing at the origin, 5 s walking east at 1.2 m/s, 20 s standing at (6, 0);
        // estimates scattered by σ = 0.5 m per axis (0.63 m from the truth on average), as they
        // say. Mean errors over eight such walks.
        let sigma = 0.5
        var walking = (online: 0.0, smoothed: 0.0), standing = (online: 0.0, smoothed: 0.0)
        for seed in 1...8 {
            var random = SeededRandom(seed: UInt64(seed))
            var truths: [PlanarPoint] = []
            var inputs: [TimedEstimate] = []
            for second in 0...45 {
                let x = min(max(Double(second - 20) * 1.2, 0), 6)
                truths.append(PlanarPoint(x: x, y: 0))
                inputs.append(Self.timed(x + sigma * random.nextGaussian(), sigma * random.nextGaussian(),
                                         at: Double(second), accuracy: Self.radius68 * sigma))
            }
            var tracker = MotionTracker(configuration: Self.configuration)
            let online = inputs.map { tracker.update($0.estimate, at: $0.time) }
            let smoothed = TrackSmoother(configuration: Self.configuration).smooth(inputs)
            func meanError(_ estimates: [PositionEstimate?], _ range: ClosedRange<Int>) throws -> Double {
                var total = 0.0
                for index in range { total += try #require(estimates[index]).point.planar.distance(to: truths[index]) }
                return total / Double(range.count) / 8
            }
            // Walking and just after; standing before the walk.
            walking.online += try meanError(online, 20...27)
            walking.smoothed += try meanError(smoothed, 20...27)
            standing.online += try meanError(online, 2...17)
            standing.smoothed += try meanError(smoothed, 2...17)
        }
        // Walking, the online track lags behind (0.60 m); the smoothed one also sees where the
        // walk went (0.47 m).
        #expect(walking.smoothed < 0.85 * walking.online, "walking: smoothed \(walking.smoothed) m, online \(walking.online) m")
        // Standing, both average (0.29 m); the smoothed one also with the scans after (0.21 m).
        #expect(standing.smoothed < 0.25 && standing.smoothed < standing.online,
                "standing: smoothed \(standing.smoothed) m, online \(standing.online) m")
    }

    @Test func theAccuracyScaleMultipliesEveryRadius() throws {
        var scaled = Self.configuration
        scaled.accuracyScale = 2
        let inputs = (0..<6).map { Self.timed(Double($0) * 0.3, 0, at: Double($0)) }
        var plainTracker = MotionTracker(configuration: Self.configuration), scaledTracker = MotionTracker(configuration: scaled)
        for input in inputs {
            let plain = plainTracker.update(input.estimate, at: input.time), doubled = scaledTracker.update(input.estimate, at: input.time)
            #expect(doubled?.point == plain?.point)
            #expect(abs((doubled?.accuracy ?? 0) - 2 * (plain?.accuracy ?? 0)) < 1e-12)
        }
        #expect(abs((scaledTracker.predicted(at: 7)?.accuracy ?? 0) - 2 * (plainTracker.predicted(at: 7)?.accuracy ?? 0)) < 1e-12)
        for model in MotionTracker.Configuration.Model.allCases {
            var plain = Self.configuration, doubled = scaled
            plain.model = model
            doubled.model = model
            let smoothedPlain = TrackSmoother(configuration: plain).smooth(inputs)
            let smoothedDoubled = TrackSmoother(configuration: doubled).smooth(inputs)
            for (a, b) in zip(smoothedPlain, smoothedDoubled) {
                let a = try #require(a), b = try #require(b)
                #expect(a.point == b.point && abs(b.accuracy - 2 * a.accuracy) < 1e-12)
            }
        }
    }

    @Test func aGapKeepsTheStretchesApart() throws {
        // Two stretches 15 s apart (past the 5 s gap): the first never learns from the second.
        var inputs = (0..<5).map { Self.timed(0, 0, at: Double($0)) }
        inputs += (20..<25).map { Self.timed(10, 0, at: Double($0)) }
        let smoothed = TrackSmoother(configuration: Self.configuration).smooth(inputs)
        for index in 0..<10 {
            let estimate = try #require(smoothed[index])
            #expect(abs(estimate.point.x - (index < 5 ? 0 : 10)) < 1e-9)
        }
    }

    @Test func degenerateInputNeverGivesNaN() {
        var random = SeededRandom(seed: 3)
        let accuracies: [Double] = [0, -1, .nan, .infinity, 1e-300, 1e300, 2]
        var time = 0.0
        var inputs: [TimedEstimate] = []
        for index in 0..<300 {
            time += [0, 0.01, 1, -0.5, 3, 40][index % 6]
            let x = index % 31 == 0 ? Double.nan : 1e3 * (random.nextUniform() - 0.5)
            inputs.append(Self.timed(x, 1e3 * (random.nextUniform() - 0.5), at: index % 47 == 0 ? .nan : time,
                                     accuracy: accuracies[index % accuracies.count]))
        }
        let smoothed = TrackSmoother(configuration: MotionTracker.Configuration(model: .stopAndGo)).smooth(inputs)
        #expect(smoothed.count == inputs.count)
        for estimate in smoothed.compactMap({ $0 }) {
            #expect(estimate.point.x.isFinite && estimate.point.y.isFinite && estimate.accuracy.isFinite && estimate.accuracy > 0)
        }
        #expect(TrackSmoother(configuration: Self.configuration).smooth([]).isEmpty)
    }
}
