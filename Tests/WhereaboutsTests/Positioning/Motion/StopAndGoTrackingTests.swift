import Foundation
import Testing
@testable import Whereabouts

/// The stop-and-go model of ``MotionTracker``: an interacting multiple model filter of a person
/// standing still and one walking.
@Suite struct StopAndGoTrackingTests {
    static let radius68 = TrackingTests.radius68
    /// Every estimate independent (no correlation-time inflation), otherwise the defaults.
    static let configuration = MotionTracker.Configuration(model: .stopAndGo, correlationTime: 0)

    static func estimate(_ x: Double, _ y: Double, accuracy: Double = radius68) -> PositionEstimate {
        TrackingTests.estimate(x, y, accuracy: accuracy)
    }

    /// The tracked estimate of one input; the test fails when there is none.
    static func step(_ tracker: inout MotionTracker, _ estimate: PositionEstimate, at time: Double) throws -> PositionEstimate {
        let tracked = tracker.update(estimate, at: time)
        return try #require(tracked)
    }

    @Test func theFirstEstimateIsTakenAsItIs() throws {
        var tracker = MotionTracker(configuration: Self.configuration)
        let first = try Self.step(&tracker, Self.estimate(2, 3, accuracy: 1.5), at: 10)
        #expect(first.point.x == 2 && first.point.y == 3)
        #expect(abs(first.accuracy - 1.5) < 1e-12)
        #expect(tracker.probabilityStill == 0.5)
        #expect(tracker.velocity == nil)
        #expect(tracker.time == 10)
    }

    @Test func oneStepMatchesTheIMMComputedByHand() throws {
        // σ = 1 per axis (R = 1); both models start at the origin with variance 1, odds 1:1.
        var tracker = MotionTracker(configuration: Self.configuration)
        _ = tracker.update(Self.estimate(0, 0), at: 0)
        let tracked = try Self.step(&tracker, Self.estimate(1, 0), at: 1)
        // One second on: mixing leaves both models as they were (equal states, odds 0.9·½ + 0.1·½ = ½).
        // Still: variance 1 + 0.0025; walking: 1 + 1.4²/2 = 1.98. Kalman update with the input (1, 0).
        let priorStill = 1.0025, priorWalking = 1.98
        let sStill = priorStill + 1, sWalking = priorWalking + 1
        let xStill = priorStill / sStill, xWalking = priorWalking / sWalking
        let pStill = (1 - priorStill / sStill) * priorStill, pWalking = (1 - priorWalking / sWalking) * priorWalking
        // Likelihoods of the innovation (1, 0) under 2-D normals of variance s per axis.
        let lStill = exp(-1 / (2 * sStill)) / (2 * Double.pi * sStill)
        let lWalking = exp(-1 / (2 * sWalking)) / (2 * Double.pi * sWalking)
        let muStill = 0.5 * lStill / (0.5 * lStill + 0.5 * lWalking)
        let x = muStill * xStill + (1 - muStill) * xWalking
        let variance = muStill * (pStill + (xStill - x) * (xStill - x) / 2)
            + (1 - muStill) * (pWalking + (xWalking - x) * (xWalking - x) / 2)
        #expect(abs(tracked.point.x - x) < 1e-12)
        #expect(abs(tracked.point.y) < 1e-12)
        #expect(abs(tracked.accuracy - Self.radius68 * variance.squareRoot()) < 1e-12)
        #expect(abs((tracker.probabilityStill ?? 0) - muStill) < 1e-12)
    }

    @Test func standingStillAveragesThenAWalkIsFollowed() throws {
        // Estimates scattered by σ = 0.5 m per axis (their own error: 0.63 m on average), as they
        // say (accuracy = 1.5096 · 0.5).
        let sigma = 0.5
        var random = SeededRandom(seed: 5)
        var tracker = MotionTracker(configuration: Self.configuration)
        func noisy(_ x: Double, _ y: Double) -> PositionEstimate {
            Self.estimate(x + sigma * random.nextGaussian(), y + sigma * random.nextGaussian(), accuracy: Self.radius68 * sigma)
        }
        // 30 s standing at (5, 5).
        var stillErrors: [Double] = []
        for second in 0..<30 {
            let tracked = try Self.step(&tracker, noisy(5, 5), at: Double(second))
            if second >= 10 { stillErrors.append(tracked.point.planar.distance(to: PlanarPoint(x: 5, y: 5))) }
        }
        let stillMean = stillErrors.reduce(0, +) / Double(stillErrors.count)
        #expect(stillMean < 0.3, "mean error standing \(stillMean)")
        #expect((tracker.probabilityStill ?? 0) > 0.6)
        // The radius says so: below the estimates' own.
        #expect((tracker.predicted(at: 29)?.accuracy ?? .infinity) < Self.radius68 * sigma * 0.85)
        // Then a walk east at 1.4 m/s for 15 s: from the third second on the track keeps up.
        var walkErrors: [Double] = []
        for second in 1...15 {
            let x = 5 + 1.4 * Double(second)
            let tracked = try Self.step(&tracker, noisy(x, 5), at: Double(29 + second))
            if second > 3 { walkErrors.append(tracked.point.planar.distance(to: PlanarPoint(x: x, y: 5))) }
        }
        let walkMean = walkErrors.reduce(0, +) / Double(walkErrors.count)
        #expect(walkMean < 0.7, "mean error walking \(walkMean)")
        #expect((tracker.probabilityStill ?? 1) < 0.5)
    }

    @Test func aFlooredRadiusNeverClaimsMoreThanTheEstimate() throws {
        // Ten identical estimates of radius 1 m: standing, the tracker's own radius shrinks well
        // below 1 m; floored at the estimates' radius it stays at 1 m, scaled or not, and the
        // position is the same.
        var configuration = Self.configuration
        var plain = MotionTracker(configuration: configuration)
        configuration.isFlooredAtEstimateAccuracy = true
        var floored = MotionTracker(configuration: configuration)
        configuration.accuracyScale = 1.5
        var flooredAndScaled = MotionTracker(configuration: configuration)
        let estimate = Self.estimate(2, 3, accuracy: 1)
        for second in 0..<10 {
            let time = Double(second)
            let own = try Self.step(&plain, estimate, at: time), kept = try Self.step(&floored, estimate, at: time)
            let scaled = try Self.step(&flooredAndScaled, estimate, at: time)
            #expect(kept.point == own.point)
            #expect(kept.accuracy == max(own.accuracy, 1))
            #expect(scaled.accuracy == max(own.accuracy * 1.5, 1))
        }
        #expect((plain.predicted(at: 9)?.accuracy ?? 1) < 0.6)
    }

    @Test func aLongGapRestartsAndTheResetForgets() throws {
        var tracker = MotionTracker(configuration: Self.configuration)
        _ = tracker.update(Self.estimate(0, 0), at: 0)
        _ = tracker.update(Self.estimate(0.1, 0), at: 1)
        let restarted = try Self.step(&tracker, Self.estimate(20, 20), at: 100)
        #expect(restarted.point.x == 20 && restarted.point.y == 20)
        #expect(tracker.predicted(at: 200) == nil)
        tracker.reset()
        #expect(!tracker.isTracking)
        #expect(tracker.update(Self.estimate(.nan, 0), at: 101) == nil)
    }

    @Test func anOutlierIsGatedThenARepeatedJumpIsTaken() throws {
        var tracker = MotionTracker(configuration: Self.configuration)
        for second in 0..<5 { _ = tracker.update(Self.estimate(0, 0, accuracy: 0.3), at: Double(second)) }
        // 50 m away in a second: beyond the walking model's gate.
        let gated = try Self.step(&tracker, Self.estimate(50, 0, accuracy: 0.3), at: 5)
        #expect(gated.point.x < 1)
        _ = tracker.update(Self.estimate(50, 0, accuracy: 0.3), at: 6)
        let taken = try Self.step(&tracker, Self.estimate(50, 0, accuracy: 0.3), at: 7)
        #expect(abs(taken.point.x - 50) < 1e-9)
    }

    @Test func degenerateInputNeverGivesNaN() throws {
        var random = SeededRandom(seed: 9)
        var tracker = MotionTracker(configuration: MotionTracker.Configuration(model: .stopAndGo))
        let accuracies: [Double] = [0, -1, .nan, .infinity, 1e-300, 1e300, 2]
        var time = 0.0
        for index in 0..<500 {
            time += [0, 0.01, 1, -0.5, 3][index % 5]
            let x = index % 37 == 0 ? Double.nan : 1e3 * (random.nextUniform() - 0.5)
            let accuracy = accuracies[index % accuracies.count]
            let estimate = Self.estimate(x, 1e3 * (random.nextUniform() - 0.5), accuracy: accuracy)
            let at = index % 53 == 0 ? Double.nan : time
            let tracked = tracker.update(estimate, at: at)
            // The first input, a NaN position at a NaN time, gives nothing to start from; from the
            // next one on, every update answers with a finite fix and a finite prediction,
            // whatever it was given (a bad estimate is passed over, the track carried on).
            guard index > 0 else {
                #expect(tracked == nil)
                continue
            }
            let fix = try #require(tracked, "update \(index) gave no fix")
            #expect(fix.point.x.isFinite && fix.point.y.isFinite && fix.accuracy.isFinite && fix.accuracy > 0, "update \(index)")
            let predicted = try #require(tracker.predicted(at: time + 0.5), "no prediction after update \(index)")
            #expect(predicted.point.x.isFinite && predicted.accuracy.isFinite, "prediction after update \(index)")
        }
    }

    @Test func venueUnitsAreConverted() throws {
        // In feet: the same walk as in metres, every length ×(1/0.3048), gives the same answer in feet.
        let feet = 0.3048
        var metres = MotionTracker(configuration: Self.configuration)
        var inFeet = MotionTracker(configuration: Self.configuration, metresPerUnit: feet)
        for (second, x) in [0.0, 0.3, 1.9, 3.4].enumerated() {
            let a = try Self.step(&metres, Self.estimate(x, 1), at: Double(second))
            let b = try Self.step(&inFeet, Self.estimate(x / feet, 1 / feet, accuracy: Self.radius68 / feet), at: Double(second))
            #expect(abs(a.point.x - b.point.x * feet) < 1e-9)
            #expect(abs(a.accuracy - b.accuracy * feet) < 1e-9)
        }
    }
}
