import Foundation
import Testing
@testable import Whereabouts

/// ``FixedLagSmoother``: the two-filter smoother over a sliding window, reporting each estimate
/// `lag` seconds late.
@Suite struct FixedLagSmootherTests {
    static let radius68 = TrackingTests.radius68

    /// A stand, a walk east at 1.2 m/s and a stand, one estimate a second, scattered by σ = 0.5 m.
    static func walk(seed: UInt64) -> [TimedEstimate] {
        var random = SeededRandom(seed: seed)
        return (0...40).map { second in
            let x = min(max(Double(second - 15) * 1.2, 0), 6)
            return TimedEstimate(time: Double(second), estimate: TrackingTests.estimate(
                x + 0.5 * random.nextGaussian(), 0.5 * random.nextGaussian(), accuracy: radius68 * 0.5))
        }
    }

    static func configuration(_ model: MotionTracker.Configuration.Model) -> MotionTracker.Configuration {
        MotionTracker.Configuration(model: model, correlationTime: 0)
    }

    @Test func reportsComeOnceTheirLagHasPassed() {
        var smoother = FixedLagSmoother(configuration: Self.configuration(.stopAndGo), lag: 2.5)
        let inputs = Self.walk(seed: 1)
        // Estimates at 0, 1, 2, 3 s: the one at 0 s is due at 2.5 s, so with the one at 3 s.
        #expect(smoother.add(inputs[0]).isEmpty)
        #expect(smoother.add(inputs[1]).isEmpty)
        #expect(smoother.add(inputs[2]).isEmpty)
        #expect(smoother.add(inputs[3]).count == 1)
        #expect(smoother.pendingCount == 3)
        #expect(smoother.add(inputs[4]).count == 1)
        // The end of the track: every waiting estimate, and a fresh start.
        #expect(smoother.finish().count == 3)
        #expect(smoother.pendingCount == 0)
        #expect(smoother.finish().isEmpty)
    }

    @Test func timePassingWithoutEstimatesReportsTheDueOnes() throws {
        let inputs = Self.walk(seed: 1)
        var smoother = FixedLagSmoother(configuration: Self.configuration(.stopAndGo), lag: 2.5)
        var reference = FixedLagSmoother(configuration: Self.configuration(.stopAndGo), lag: 2.5)
        for input in inputs[0...2] {
            #expect(smoother.add(input).isEmpty)
            _ = reference.add(input)
        }
        #expect(smoother.nextDueTime == 2.5)
        // Nothing is due before 2.5 s; clocks that go back or are not finite change nothing.
        #expect(smoother.advance(to: 2.4).isEmpty)
        #expect(smoother.advance(to: 1).isEmpty && smoother.advance(to: .nan).isEmpty)
        // At 2.5 s the estimate of 0 s is due, smoothed with those of 1 and 2 s.
        let due = smoother.advance(to: 2.5)
        #expect(due.count == 1)
        #expect(smoother.nextDueTime == 3.5)
        #expect(smoother.pendingCount == 2)
        // A smoother that waited for the estimate at 3 s also learnt from that one: close, and no
        // less sure.
        let waited = reference.add(inputs[3])
        let early = try #require(due.first ?? nil), late = try #require(waited.first ?? nil)
        #expect(early.point.planar.distance(to: late.point.planar) < 0.2)
        #expect(early.accuracy >= late.accuracy)
        // The estimates after it carry on as before.
        #expect(smoother.add(inputs[3]).isEmpty)
        #expect(smoother.add(inputs[4]).count == 1)
        #expect(smoother.finish().count == 3)
        #expect(smoother.nextDueTime == nil)
    }

    @Test func noLagIsTheOnlineTracker() throws {
        for model in MotionTracker.Configuration.Model.allCases {
            let inputs = Self.walk(seed: 2)
            var tracker = MotionTracker(configuration: Self.configuration(model))
            var smoother = FixedLagSmoother(configuration: Self.configuration(model), lag: 0)
            for input in inputs {
                let online = tracker.update(input.estimate, at: input.time)
                let reports = smoother.add(input)
                #expect(reports.count == 1)
                let report = try #require(reports.first ?? nil)
                #expect(abs(report.point.x - (online?.point.x ?? .nan)) < 1e-12, "\(model)")
                #expect(abs(report.accuracy - (online?.accuracy ?? .nan)) < 1e-12, "\(model)")
            }
        }
    }

    @Test func aLagLongerThanTheTrackIsTheOfflineSmoother() throws {
        let configuration = Self.configuration(.stopAndGo)
        let inputs = Self.walk(seed: 3)
        var smoother = FixedLagSmoother(configuration: configuration, lag: 100)
        let reports = inputs.flatMap { smoother.add($0) } + smoother.finish()
        let offline = TrackSmoother(configuration: configuration).smooth(inputs)
        #expect(reports.count == offline.count)
        for (report, whole) in zip(reports, offline) {
            let report = try #require(report), whole = try #require(whole)
            #expect(abs(report.point.x - whole.point.x) < 1e-12 && abs(report.point.y - whole.point.y) < 1e-12)
            #expect(abs(report.accuracy - whole.accuracy) < 1e-12)
        }
    }

    @Test func aSecondsLagTakesMostOfTheWalksLagAway() throws {
        // Mean error over the walk (15–22 s) of eight walks: online, one second late, offline.
        let configuration = Self.configuration(.stopAndGo)
        var online = 0.0, lagged = 0.0, offline = 0.0
        for seed in 1...8 {
            let inputs = Self.walk(seed: UInt64(seed))
            var tracker = MotionTracker(configuration: configuration)
            let live = inputs.map { tracker.update($0.estimate, at: $0.time) }
            var smoother = FixedLagSmoother(configuration: configuration, lag: 1)
            let late = inputs.flatMap { smoother.add($0) } + smoother.finish()
            let whole = TrackSmoother(configuration: configuration).smooth(inputs)
            for second in 15...22 {
                let truth = PlanarPoint(x: min(max(Double(second - 15) * 1.2, 0), 6), y: 0)
                online += try #require(live[second]).point.planar.distance(to: truth)
                lagged += try #require(late[second]).point.planar.distance(to: truth)
                offline += try #require(whole[second]).point.planar.distance(to: truth)
            }
        }
        #expect(lagged < 0.9 * online, "one second late \(lagged / 64) m, online \(online / 64) m")
        #expect(offline <= lagged * 1.05, "offline \(offline / 64) m, one second late \(lagged / 64) m")
    }

    @Test func degenerateInputNeverGivesNaN() {
        var random = SeededRandom(seed: 4)
        let accuracies: [Double] = [0, -1, .nan, .infinity, 1e-300, 1e300, 2]
        for model in MotionTracker.Configuration.Model.allCases {
            var smoother = FixedLagSmoother(configuration: MotionTracker.Configuration(model: model), lag: 1.5)
            var time = 0.0, reported = 0
            for index in 0..<300 {
                time += [0, 0.01, 1, -0.5, 3, 40][index % 6]
                let x = index % 31 == 0 ? Double.nan : 1e3 * (random.nextUniform() - 0.5)
                let input = TimedEstimate(time: index % 47 == 0 ? .nan : time, estimate: TrackingTests.estimate(
                    x, 1e3 * (random.nextUniform() - 0.5), accuracy: accuracies[index % accuracies.count]))
                let reports = smoother.add(input)
                reported += reports.count
                for estimate in reports.compactMap({ $0 }) {
                    #expect(estimate.point.x.isFinite && estimate.point.y.isFinite && estimate.accuracy.isFinite && estimate.accuracy > 0)
                }
            }
            reported += smoother.finish().count
            #expect(reported == 300)   // every estimate reported once
        }
        #expect(FixedLagSmoother(lag: .nan).lag == 0 && FixedLagSmoother(lag: -3).lag == 0)
    }
}
