import Foundation

/// Tracks one device live with a delay: each estimate is reported once the estimates of the next
/// `lag` seconds have come in, smoothed with them. Between the online ``MotionTracker`` (no
/// delay, but it lags behind a walker) and the offline ``TrackSmoother`` (the whole track first).
///
/// It is the two-filter smoother of ``TrackSmoother`` over a sliding window: the online filter of
/// the configured model runs forwards; when an estimate is `lag` seconds old, a backward filter
/// runs over the estimates after it and predicts back to it, and the two are combined by their
/// inverse variances, `v = 1 / (1/v_f + 1/v_b)`, `x = v·(x_f/v_f + x_b/v_b)`. Where nothing came
/// after (the end of a track, a gap that restarts it), the forward estimate stands. Each report is
/// final: later estimates never change it. The radius is the 68 % radius of `v` (for the
/// constant-velocity model at least the latest estimate's own, as in ``MotionTracker``), times
/// ``MotionTracker/Configuration/accuracyScale``.
///
/// Reports come in the order the estimates went in, so a caller pairs them with its own queue:
///
/// ```swift
/// var smoother = FixedLagSmoother(configuration: .stopAndGo, lag: 1)
/// var waiting: [Scan] = []
/// for (scan, estimate) in located {
///     waiting.append(scan)
///     for report in smoother.add(TimedEstimate(time: scan.time, estimate: estimate)) {
///         show(waiting.removeFirst(), report)   // a position one second old, and better for it
///     }
/// }
/// for report in smoother.finish() { show(waiting.removeFirst(), report) }
/// ```
public struct FixedLagSmoother: Sendable {
    /// The motion model and its parameters.
    public let configuration: MotionTracker.Configuration
    /// How long each estimate waits for later ones, seconds (0: report at once, as the online
    /// tracker does).
    public let lag: Double
    /// Metres per venue unit (1 for metres).
    public let metresPerUnit: Double

    private var forward: TrackFilter
    /// The estimates not reported yet, with the forward filter's output at each.
    private var pending: [(input: TimedEstimate, past: TrackFilter.Output?)] = []
    private var height = 0.0
    /// The latest finite time taken in.
    private var clock = 0.0

    /// Creates a smoother reporting each estimate `lag` seconds late (negative or non-finite lags
    /// count as 0), for positions in venue units of `metresPerUnit` metres.
    public init(configuration: MotionTracker.Configuration = .stopAndGo, lag: Double, metresPerUnit: Double = 1) {
        self.configuration = configuration
        self.lag = lag.isFinite && lag > 0 ? lag : 0
        self.metresPerUnit = metresPerUnit > 0 && metresPerUnit.isFinite ? metresPerUnit : 1
        forward = TrackFilter(configuration: configuration, metresPerUnit: self.metresPerUnit)
    }

    /// Estimates taken in and not yet reported.
    public var pendingCount: Int { pending.count }

    /// Takes in the next estimate (in time order) and returns the reports now due, oldest first:
    /// one per earlier estimate that is now `lag` seconds old (`nil` where there is no track).
    public mutating func add(_ input: TimedEstimate) -> [PositionEstimate?] {
        // An estimate without a finite time counts as taken at the latest known time, as in the filters.
        var input = input
        if input.time.isFinite { clock = input.time } else { input.time = clock }
        pending.append((input, forward.step(input)))
        return report(dueCount)
    }

    /// How many of the oldest waiting estimates are `lag` seconds old by the clock.
    private var dueCount: Int {
        var due = 0
        while due < pending.count, pending[due].input.time + lag <= clock { due += 1 }
        return due
    }

    /// Lets the clock run on to `time` without a new estimate (a scan that gave no fix, or a
    /// device that fell silent) and returns the reports now due, oldest first: each waiting
    /// estimate that is now `lag` seconds old, smoothed with the estimates after it that came in.
    /// A `time` that is not finite or lies before the latest one changes nothing.
    public mutating func advance(to time: Double) -> [PositionEstimate?] {
        guard time.isFinite, time > clock else { return [] }
        clock = time
        return report(dueCount)
    }

    /// The time at which the oldest waiting estimate falls due, or `nil` when none waits.
    public var nextDueTime: Double? { pending.first.map { $0.input.time + lag } }

    /// Reports every estimate still waiting, each smoothed with what came after it, and starts
    /// afresh (the end of a track).
    public mutating func finish() -> [PositionEstimate?] {
        let reports = report(pending.count)
        forward.reset()
        return reports
    }

    /// The first `count` pending estimates, smoothed and removed.
    private mutating func report(_ count: Int) -> [PositionEstimate?] {
        guard count > 0 else { return [] }
        var reports: [PositionEstimate?] = []
        reports.reserveCapacity(count)
        for index in 0..<count {
            let (input, past) = pending[index]
            if input.estimate.point.z.isFinite { height = input.estimate.point.z }
            guard let past else {
                reports.append(nil)
                continue
            }
            // Backwards in time over the estimates after this one.
            var backward = TrackFilter(configuration: configuration, metresPerUnit: metresPerUnit)
            for later in pending[(index + 1)...].reversed() { _ = backward.step(later.input, backwards: true) }
            let smoothed = past.combined(with: backward.predicted(at: -input.time))
            reports.append(configuration.scalingAccuracy(of: smoothed.estimate(
                z: height, beaconCount: input.estimate.beaconCount,
                minimumAccuracy: configuration.minimumAccuracy / metresPerUnit), input: input.estimate))
        }
        pending.removeFirst(count)
        return reports
    }
}

/// The online filter of either motion model, reduced to what two-filter smoothing needs: a
/// position with one variance per axis.
struct TrackFilter: Sendable {
    /// A tracked position, its variance per axis (units²), and the least radius it may claim.
    struct Output: Sendable {
        var x: Double, y: Double, variance: Double
        var accuracyFloor: Double

        /// Combined with an independent estimate of the same position by inverse variances;
        /// itself when there is none or the combination is not finite.
        func combined(with other: Output?) -> Output {
            guard let other, other.variance > 0, variance > 0 else { return self }
            let v = 1 / (1 / variance + 1 / other.variance)
            let cx = v * (x / variance + other.x / other.variance), cy = v * (y / variance + other.y / other.variance)
            guard cx.isFinite, cy.isFinite, v.isFinite else { return self }
            return Output(x: cx, y: cy, variance: v, accuracyFloor: accuracyFloor)
        }

        /// The estimate: the position at height `z` with the 68 % radius of the variance, at
        /// least the floor and `minimumAccuracy`.
        func estimate(z: Double, beaconCount: Int, minimumAccuracy: Double) -> PositionEstimate? {
            MotionTracker.stopAndGoEstimate(x: x, y: y, z: z, variance: variance, beaconCount: beaconCount,
                                            minimumAccuracy: max(minimumAccuracy, accuracyFloor.isFinite ? accuracyFloor : 0))
        }
    }

    private enum Model: Sendable {
        case constantVelocity(ConstantVelocityFilter)
        case stopAndGo(StopAndGoFilter)
    }

    private var model: Model

    init(configuration: MotionTracker.Configuration, metresPerUnit: Double) {
        model = switch configuration.model {
        case .constantVelocity: .constantVelocity(ConstantVelocityFilter(configuration: configuration, metresPerUnit: metresPerUnit))
        case .stopAndGo: .stopAndGo(StopAndGoFilter(configuration: configuration, metresPerUnit: metresPerUnit))
        }
    }

    mutating func reset() {
        switch model {
        case .constantVelocity(var filter):
            filter.reset()
            model = .constantVelocity(filter)
        case .stopAndGo(var filter):
            filter.reset()
            model = .stopAndGo(filter)
        }
    }

    /// Takes in one estimate, at its time or, `backwards`, at its negated time (a filter run
    /// backwards in time over a track, its clock still running forwards); the tracked position
    /// then, or `nil` (see the filters' `step`).
    mutating func step(_ input: TimedEstimate, backwards: Bool = false) -> Output? {
        let point = input.estimate.point
        return step(x: point.x, y: point.y, accuracy: input.estimate.accuracy, time: backwards ? -input.time : input.time)
    }

    /// Takes in one input (see the filters' `step`); the tracked position then, or `nil`.
    mutating func step(x: Double?, y: Double?, accuracy: Double, time: Double) -> Output? {
        switch model {
        case .constantVelocity(var filter):
            let record = filter.step(x: x, y: y, accuracy: accuracy, time: time)
            model = .constantVelocity(filter)
            return record.map {
                Output(x: $0.posterior.x, y: $0.posterior.y, variance: $0.posterior.covariance.a, accuracyFloor: $0.accuracyFloor)
            }
        case .stopAndGo(var filter):
            let output = filter.step(x: x, y: y, accuracy: accuracy, time: time)
            model = .stopAndGo(filter)
            return output.map { Output(x: $0.x, y: $0.y, variance: $0.variance, accuracyFloor: 0) }
        }
    }

    /// The track predicted to `time` without an input, or `nil` with no track or past its gap.
    func predicted(at time: Double) -> Output? {
        switch model {
        case .constantVelocity(let filter):
            guard let state = filter.state else { return nil }
            let elapsed = time - state.time
            guard elapsed.isFinite, abs(elapsed) <= filter.maximumGap else { return nil }
            let predicted = state.predicted(by: max(elapsed, 0), accelerationDensity: filter.accelerationDensity)
            return Output(x: predicted.x, y: predicted.y, variance: predicted.covariance.a, accuracyFloor: filter.accuracyFloor)
        case .stopAndGo(let filter):
            return filter.predicted(at: time).map { Output(x: $0.x, y: $0.y, variance: $0.variance, accuracyFloor: 0) }
        }
    }
}
