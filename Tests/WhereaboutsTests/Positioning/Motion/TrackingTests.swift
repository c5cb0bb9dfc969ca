import Foundation
import Testing
@testable import Whereabouts

@Suite struct TrackingTests {
    /// The 68 % radius of a circular normal with σ = 1 per axis: √(−2 ln 0.32) ≈ 1.50959.
    static let radius68 = (-2 * log(0.32)).squareRoot()

    static func estimate(_ x: Double, _ y: Double, accuracy: Double = radius68) -> PositionEstimate {
        PositionEstimate(point: SpatialPoint(x: x, y: y, z: 1.2), accuracy: accuracy, beaconCount: 3)
    }

    /// Every estimate independent (no correlation-time inflation), otherwise the defaults.
    static let independent = MotionTracker.Configuration(correlationTime: 0)

    // MARK: The filter's algebra

    @Test func radiusConversionHolds68Percent() {
        // 1 − exp(−ρ²/2) with ρ = 1.50959 gives 0.68.
        #expect(abs(ConstantVelocityFilter.radius68 - 1.509592) < 1e-6)
        #expect(abs(1 - exp(-ConstantVelocityFilter.radius68 * ConstantVelocityFilter.radius68 / 2) - 0.68) < 1e-12)
    }

    @Test func predictAndUpdateMatchHandComputedValues() {
        // x = (0, 0), v = (1, 0), P = I per axis, q = 0.5, dt = 1:
        // a' = 1 + 2·0·1 + 1·1 + 0.5/3 = 13/6, b' = 0 + 1 + 0.5/2 = 5/4, c' = 1 + 0.5 = 3/2.
        let state = MotionState(x: 0, y: 0, vx: 1, vy: 0, covariance: AxisCovariance(a: 1, b: 0, c: 1), time: 0)
        let prior = state.predicted(by: 1, accelerationDensity: 0.5)
        #expect(prior.x == 1 && prior.y == 0 && prior.time == 1)
        #expect(abs(prior.covariance.a - 13.0 / 6) < 1e-12)
        #expect(abs(prior.covariance.b - 5.0 / 4) < 1e-12)
        #expect(abs(prior.covariance.c - 3.0 / 2) < 1e-12)
        // Measured (2, 1) with r = 1: S = 19/6, Kp = 13/19, Kv = (5/4)/(19/6) = 15/38.
        // x = 1 + 13/19·1, y = 13/19·1, vx = 1 + 15/38, vy = 15/38,
        // a = (13/6)·1/(19/6) = 13/19, b = (5/4)/(19/6) = 15/38, c = 3/2 − (25/16)/(19/6) = 153/152.
        let posterior = prior.updated(x: 2, y: 1, variance: 1)
        #expect(abs(posterior.x - (1 + 13.0 / 19)) < 1e-12)
        #expect(abs(posterior.y - 13.0 / 19) < 1e-12)
        #expect(abs(posterior.vx - (1 + 15.0 / 38)) < 1e-12)
        #expect(abs(posterior.vy - 15.0 / 38) < 1e-12)
        #expect(abs(posterior.covariance.a - 13.0 / 19) < 1e-12)
        #expect(abs(posterior.covariance.b - 15.0 / 38) < 1e-12)
        #expect(abs(posterior.covariance.c - 153.0 / 152) < 1e-12)
        // The squared Mahalanobis distance of (2, 1) from the prior: (1² + 1²) / (13/6 + 1) = 12/19.
        #expect(abs(prior.mahalanobisSquared(x: 2, y: 1, variance: 1) - 12.0 / 19) < 1e-12)
    }

    @Test func theTrackerTakesOneStepAsComputedByHand() {
        // q = 1 m²/s³, initial speed σ = 1 m/s, accuracy 1.50959 → r = 1 per axis.
        // Start at (0, 0): a = 1, b = 0, c = 1. Predict 1 s: a = 1 + 1 + 1/3 = 7/3, b = 0 + 1 + 1/2 = 3/2, c = 2.
        // Measure (1, 0): S = 10/3, Kp = 0.7, Kv = 0.45 → x = 0.7, vx = 0.45; a = 0.7.
        var tracker = MotionTracker(configuration: Self.independent)
        let first = tracker.update(Self.estimate(0, 0), at: 100)
        #expect(first?.point == SpatialPoint(x: 0, y: 0, z: 1.2))
        let second = tracker.update(Self.estimate(1, 0), at: 101)
        #expect(abs((second?.point.x ?? .nan) - 0.7) < 1e-12)
        #expect(abs((second?.point.y ?? .nan) - 0) < 1e-12)
        #expect(abs((tracker.velocity?.x ?? .nan) - 0.45) < 1e-12)
        // The filter's radius 1.50959·√0.7 ≈ 1.263 is below the estimate's own 1.50959, which is the floor.
        #expect(abs((second?.accuracy ?? .nan) - Self.radius68) < 1e-12)
    }

    @Test func venueUnitsAreConverted() {
        // In feet the same walk, the same result in feet: 1 m/s² of density is (1/0.3048)² ft²/s³.
        var metres = MotionTracker(configuration: Self.independent)
        var feet = MotionTracker(configuration: Self.independent, metresPerUnit: 0.3048)
        _ = metres.update(Self.estimate(0, 0), at: 0)
        _ = feet.update(Self.estimate(0, 0, accuracy: Self.radius68 / 0.3048), at: 0)
        let m = metres.update(Self.estimate(1, 0), at: 1)
        let f = feet.update(Self.estimate(1 / 0.3048, 0, accuracy: Self.radius68 / 0.3048), at: 1)
        #expect(abs((f?.point.x ?? .nan) * 0.3048 - (m?.point.x ?? .nan)) < 1e-9)
    }

    // MARK: Behaviour

    /// A walk along x at 1.2 m/s, estimates with σ = 1 m per axis once a second.
    static func noisyStraightWalk(seconds: Int, seed: UInt64) -> (truth: [Double], estimates: [TimedEstimate]) {
        var random = SeededRandom(seed: seed)
        var truth: [Double] = []
        var estimates: [TimedEstimate] = []
        for second in 0..<seconds {
            let x = 1.2 * Double(second)
            truth.append(x)
            estimates.append(TimedEstimate(time: Double(second),
                                           estimate: estimate(x + random.nextGaussian(), random.nextGaussian())))
        }
        return (truth, estimates)
    }

    @Test func aStraightWalkIsFollowedWithoutLag() {
        for seed: UInt64 in [1, 2, 3] {
            let walk = Self.noisyStraightWalk(seconds: 150, seed: seed)
            var tracker = MotionTracker()
            var along = 0.0, trackedSquares = 0.0, rawSquares = 0.0, count = 0.0, speed = 0.0
            for (index, input) in walk.estimates.enumerated() {
                guard let tracked = tracker.update(input.estimate, at: input.time) else {
                    Issue.record("no output")
                    return
                }
                guard index >= 20 else { continue }
                speed += tracker.velocity?.x ?? 0
                let truth = PlanarPoint(x: walk.truth[index], y: 0)
                along += tracked.point.x - truth.x
                trackedSquares += pow(tracked.point.planar.distance(to: truth), 2)
                rawSquares += pow(input.estimate.point.planar.distance(to: truth), 2)
                count += 1
            }
            // A constant-velocity filter has no steady lag on a constant-velocity walk: the mean
            // along-track error stays well under the 1 m noise (bound: 0.3 m, ~1/4 s of walking).
            #expect(abs(along / count) < 0.3)
            // And it removes part of the noise: with q = 1 m²/s³, σ = 1 m and dt = 1 s the steady
            // state (iterating P' = FPFᵀ + Q, P⁺ = (I − KH)P') has a position σ of 0.87 m per
            // axis against the estimates' 1 m; allow for the sample.
            #expect((trackedSquares / count).squareRoot() < 0.92 * (rawSquares / count).squareRoot())
            // The velocity (steady σ ≈ 1 m/s per estimate) is right on average.
            #expect(abs(speed / count - 1.2) < 0.2)
        }
    }

    @Test func anOutlierJumpIsGatedAndTimeStillAdvances() {
        var tracker = MotionTracker()
        var random = SeededRandom(seed: 7)
        for second in 0..<20 {
            _ = tracker.update(Self.estimate(0.3 * random.nextGaussian(), 0.3 * random.nextGaussian()), at: Double(second))
        }
        // 30 m away one second later: far outside the gate.
        let gated = tracker.update(Self.estimate(30, 0), at: 20)
        #expect(tracker.time == 20)
        #expect((gated?.point.planar.distance(to: PlanarPoint(x: 0, y: 0)) ?? .infinity) < 1)
        let next = tracker.update(Self.estimate(0.1, 0), at: 21)
        #expect((next?.point.planar.distance(to: PlanarPoint(x: 0, y: 0)) ?? .infinity) < 1)
    }

    @Test func consecutiveOutliersRestartTheTrack() {
        var tracker = MotionTracker()
        for second in 0..<10 { _ = tracker.update(Self.estimate(0, 0), at: Double(second)) }
        let first = tracker.update(Self.estimate(40, 0), at: 10)
        let second = tracker.update(Self.estimate(40, 0), at: 11)
        #expect((first?.point.x ?? .nan) < 1)
        #expect((second?.point.x ?? .nan) < 1)
        // The third in a row restarts the track there.
        let third = tracker.update(Self.estimate(40, 0), at: 12)
        #expect(third?.point == SpatialPoint(x: 40, y: 0, z: 1.2))
        #expect(tracker.velocity == PlanarPoint(x: 0, y: 0))
    }

    @Test func aTrackOnOneEstimateGivesWayToTheNext() {
        // A wild first estimate is not allowed to gate the good ones after it.
        var tracker = MotionTracker()
        _ = tracker.update(Self.estimate(50, 50), at: 0)
        let second = tracker.update(Self.estimate(0, 0), at: 1)
        #expect(second?.point == SpatialPoint(x: 0, y: 0, z: 1.2))
    }

    /// A position known from elsewhere restarts the track there and is trusted as an established
    /// track: a disagreeing estimate is gated (where a track on one estimate would give way), the
    /// third in a row restarts the track at it; an agreeing one is filtered from the position.
    @Test func aKnownPositionRestartsTheTrackAndGatesDisagreement() {
        var tracker = MotionTracker()
        for second in 0..<5 { _ = tracker.update(Self.estimate(20, 20), at: Double(second)) }
        tracker.restart(at: PositionEstimate(point: SpatialPoint(x: 0, y: 0, z: 1.2), accuracy: 0.5, beaconCount: 0), time: 5)
        #expect(tracker.time == 5 && tracker.velocity == PlanarPoint(x: 0, y: 0))
        let first = tracker.update(Self.estimate(40, 0), at: 6)
        let second = tracker.update(Self.estimate(40, 0), at: 7)
        #expect((first?.point.x ?? .nan) < 1 && (second?.point.x ?? .nan) < 1)
        #expect(tracker.update(Self.estimate(40, 0), at: 8)?.point == SpatialPoint(x: 40, y: 0, z: 1.2))
        // Agreeing: the known position (σ = 0.5 / 1.5096) weighs against the estimate's.
        tracker.restart(at: PositionEstimate(point: SpatialPoint(x: 0, y: 0, z: 1.2), accuracy: 0.5, beaconCount: 0), time: 9)
        let near = tracker.update(Self.estimate(1, 0), at: 9)
        #expect((near?.point.x ?? .nan) > 0 && (near?.point.x ?? .nan) < 0.5)
    }

    @Test func theSpeedIsClamped() {
        // Estimates running away at 5 m/s, exactly: each lies inside the gate of the last
        // (the track follows), but the velocity never exceeds the 2 m/s limit.
        var tracker = MotionTracker(configuration: MotionTracker.Configuration(gate: 1e9))
        var fastest = 0.0
        for second in 0..<30 {
            _ = tracker.update(Self.estimate(5 * Double(second), 0), at: Double(second))
            if let velocity = tracker.velocity {
                fastest = max(fastest, (velocity.x * velocity.x + velocity.y * velocity.y).squareRoot())
            }
        }
        #expect(fastest <= 2 + 1e-12)
        #expect(fastest > 1.9)
    }

    @Test func aLongGapRestartsTheTrack() {
        var tracker = MotionTracker()
        for second in 0..<5 { _ = tracker.update(Self.estimate(Double(second), 0), at: Double(second)) }
        // 6 s later (over the 5 s gap), 20 m away: a fresh start, no gate, no velocity.
        let after = tracker.update(Self.estimate(24, 0), at: 10)
        #expect(after?.point == SpatialPoint(x: 24, y: 0, z: 1.2))
        #expect(tracker.velocity == PlanarPoint(x: 0, y: 0))
    }

    @Test func degenerateInputNeverGivesNaN() {
        var random = SeededRandom(seed: 99)
        let accuracies: [Double] = [0, -1, .nan, .infinity, 1e300, 1e-300, 2, 5]
        let points: [Double] = [0, 1, -3, 1e6, .nan, .infinity, 1e300]
        for configuration in [MotionTracker.Configuration(), Self.independent,
                              MotionTracker.Configuration(accelerationDensity: 0, maximumSpeed: 0, maximumGap: 0)] {
            var tracker = MotionTracker(configuration: configuration)
            var time = 0.0
            var inputs: [TimedEstimate] = []
            for _ in 0..<400 {
                // Equal times, small and large steps back, small and large steps forward.
                let steps: [Double] = [0, 0, 0.1, 1, -0.5, -20, 30, 1e-9, .nan]
                let step = steps[random.below(steps.count)]
                time = step.isNaN ? time : time + step
                let x = points[random.below(points.count)] + random.nextGaussian()
                let y = random.nextUniform() < 0.9 ? random.nextGaussian() : points[random.below(points.count)]
                let input = PositionEstimate(point: SpatialPoint(x: x, y: y, z: random.nextUniform() < 0.9 ? 1 : .nan),
                                             accuracy: accuracies[random.below(accuracies.count)], beaconCount: 1)
                let when = step.isNaN ? Double.nan : time
                inputs.append(TimedEstimate(time: when, estimate: input))
                if let output = tracker.update(input, at: when) {
                    #expect(output.isFinite, "\(output) from \(input) at \(when)")
                }
                if let predicted = tracker.predicted(at: time + 1) { #expect(predicted.isFinite) }
                if let velocity = tracker.velocity { #expect(velocity.x.isFinite && velocity.y.isFinite) }
            }
            let smoothed = TrackSmoother(configuration: configuration).smooth(inputs)
            #expect(smoothed.count == inputs.count)
            #expect(smoothed.allSatisfy { $0?.isFinite ?? true })
        }
    }

    @Test func noTrackWithoutAFinitePoint() {
        var tracker = MotionTracker()
        #expect(tracker.update(Self.estimate(.nan, 0), at: 0) == nil)
        #expect(!tracker.isTracking)
        #expect(tracker.update(Self.estimate(1, 1), at: 1) != nil)
        // A point-less estimate afterwards only advances time.
        let predicted = tracker.update(Self.estimate(.infinity, 0), at: 2)
        #expect(predicted?.point.planar == PlanarPoint(x: 1, y: 1))
        #expect(tracker.time == 2)
        tracker.reset()
        #expect(!tracker.isTracking)
    }

    // MARK: Smoothing

    @Test func theSmootherBeatsTheFilterOnAStraightWalk() {
        let walk = Self.noisyStraightWalk(seconds: 120, seed: 11)
        var tracker = MotionTracker()
        let filtered = walk.estimates.map { tracker.update($0.estimate, at: $0.time) }
        let smoothed = TrackSmoother().smooth(walk.estimates)
        #expect(smoothed.count == walk.estimates.count)
        func rms(_ estimates: [PositionEstimate?]) -> Double {
            var sum = 0.0
            for (index, estimate) in estimates.enumerated() {
                sum += pow(estimate?.point.planar.distance(to: PlanarPoint(x: walk.truth[index], y: 0)) ?? 100, 2)
            }
            return (sum / Double(estimates.count)).squareRoot()
        }
        let raw = rms(walk.estimates.map(\.estimate))
        #expect(rms(filtered) < raw)
        #expect(rms(smoothed) < rms(filtered))
    }

    @Test func theSmootherReducesTheErrorOfASimulatedWalk() {
        // The example visit (seed 42) through the centroid: measured mean error 19.2 m raw, 17.5 m smoothed.
        let preset = SimulationPreset.example
        let venue = PositioningVenue(preset.venue)
        let scans = Array(preset.simulator(seed: 42))
        var locator = Locator(venue: venue, solver: WeightedCentroid(venue: venue))
        let raw = scans.map { locator.locate($0) }
        let smoothed = locator.smoothedFixes(for: scans)
        #expect(smoothed.count == scans.count)
        func meanError(_ fixes: [Fix?]) -> Double {
            var evaluation = Evaluation()
            for (scan, fix) in zip(scans, fixes) { evaluation.add(truth: scan.truth, fix: fix) }
            return evaluation.report(dataset: "example", algorithm: "centroid", units: .metre).error?.mean ?? .infinity
        }
        #expect(meanError(smoothed) < 0.95 * meanError(raw))
        // Smoothing keeps the floors, the devices and the times.
        #expect(zip(raw, smoothed).allSatisfy { $0?.floor == $1?.floor && $0?.time == $1?.time && $0?.device == $1?.device })
    }

    @Test func theSmootherSplitsAtGaps() {
        let inputs = [TimedEstimate(time: 0, estimate: Self.estimate(0, 0)),
                      TimedEstimate(time: 1, estimate: Self.estimate(0.5, 0)),
                      TimedEstimate(time: 60, estimate: Self.estimate(100, 0))]
        let smoothed = TrackSmoother().smooth(inputs)
        // The last is alone after a 59 s gap, and does not pull the others.
        #expect(smoothed[2]?.point.planar == PlanarPoint(x: 100, y: 0))
        #expect((smoothed[0]?.point.x ?? .nan) < 0.5)
        #expect(TrackSmoother().smooth([]).isEmpty)
    }

    // MARK: In the locator

    static let room = SimulationPreset.espresenseRoom

    @Test func trackingRestartsPerTrackAndOnReset() {
        let venue = PositioningVenue(Self.room.venue)
        let configuration = LocatorConfiguration(tracking: MotionTracker.Configuration())
        var tracked = Locator(venue: venue, solver: WeightedCentroid(venue: venue), configuration: configuration)
        let near1 = [Reading(beacon: .id("node1"), rssi: -55), Reading(beacon: .id("node2"), rssi: -80),
                     Reading(beacon: .id("node4"), rssi: -78)]
        let near3 = [Reading(beacon: .id("node3"), rssi: -55), Reading(beacon: .id("node2"), rssi: -78),
                     Reading(beacon: .id("node4"), rssi: -80)]
        for second in 0..<10 {
            _ = tracked.locate(Scan(time: Double(second), device: "phone", track: "a", readings: near1))
        }
        // A new track starts: its first fix is the solver's own, not pulled towards the old track.
        let newTrack = Scan(time: 10, device: "phone", track: "b", readings: near3)
        let first = tracked.locate(newTrack)
        var fresh = Locator(venue: venue, solver: WeightedCentroid(venue: venue), configuration: LocatorConfiguration(tracking: nil))
        // The RSSI filters are per locator (one per device and track), so compare with a locator that
        // heard track a too but does not track.
        for second in 0..<10 {
            _ = fresh.locate(Scan(time: Double(second), device: "phone", track: "a", readings: near1))
        }
        #expect(first?.point == fresh.locate(newTrack)?.point)

        // reset() forgets the track too.
        tracked.reset()
        var untracked = Locator(venue: venue, solver: WeightedCentroid(venue: venue))
        let scan = Scan(time: 11, device: "phone", track: "b", readings: near1)
        #expect(tracked.locate(scan)?.point == untracked.locate(scan)?.point)
    }

    @Test func trackingInTheLocatorStaysInsideTheVenue() {
        let preset = Self.room
        let venue = PositioningVenue(preset.venue)
        var locator = Locator(venue: venue, solver: WeightedCentroid(venue: venue),
                              configuration: LocatorConfiguration(tracking: MotionTracker.Configuration()))
        guard let bounds = venue.bounds else {
            Issue.record("no bounds")
            return
        }
        var located = 0
        for scan in preset.simulator(seed: 3) {
            guard let fix = locator.locate(scan) else { continue }
            located += 1
            #expect(bounds.contains(fix.point.planar))
            #expect(fix.accuracy.isFinite && fix.accuracy > 0)
        }
        #expect(located > 100)
    }
}
