import Foundation

/// Follows one device over time: a constant-velocity Kalman filter on the plan over the solver's
/// position estimates.
///
/// **Model.** The state is the position and velocity on both axes. Between estimates the device
/// keeps its velocity, disturbed by white-noise acceleration of spectral density
/// ``Configuration/accelerationDensity`` (m²/s³); see `F` and `Q` below. Each estimate measures the
/// position with a standard deviation per axis σ = accuracy / 1.5096 (the accuracy radius holds
/// 68 % of a circular normal: 1 − exp(−ρ²/2σ²) = 0.68 ⇔ ρ = √(−2 ln 0.32)·σ ≈ 1.5096 σ). The
/// tracked estimate's accuracy is 1.5096 times the filtered position's standard deviation per
/// axis, by the same conversion, but never less than the accuracy of the latest estimate taken
/// in: successive estimates share most of their error (the same beacons, the same filtered
/// RSSI), so averaging them removes less than independent errors would.
///
/// ```
/// F = [[1, dt], [0, 1]]    Q = q·[[dt³/3, dt²/2], [dt²/2, dt]]    (per axis)
/// ```
///
/// **Robustness.**
/// - *Outliers*: once the track rests on two estimates or more, an estimate whose squared Mahalanobis distance to the prediction exceeds
///   ``Configuration/gate`` (χ² with 2 degrees of freedom) is left out; the track still advances
///   to its time. After ``Configuration/restartAfterOutliers`` outliers in a row the track
///   restarts at the latest estimate (the device did move, or the track was wrong). A track
///   that rests on a single estimate (just started) restarts at the first estimate that fails
///   the gate: of two disagreeing estimates, the newer is kept.
/// - *Speed*: the velocity is limited to ``Configuration/maximumSpeed`` after every update.
/// - *Gaps*: an estimate more than ``Configuration/maximumGap`` seconds after the previous one
///   (or that far before it) restarts the track. Equal times or a slightly earlier time count as
///   no time passing.
/// - *Rate*: estimates closer together than ``Configuration/correlationTime`` share most of their
///   error (single-packet streams give many estimates a second from nearly the same beacons), so
///   their variance is inflated by `correlationTime / dt` (at most 10×): a second's worth of
///   them weighs about as much as one estimate a second.
/// - *Degenerate input*: accuracies of zero are raised to ``Configuration/minimumAccuracy``,
///   unknown or infinite ones count as "no information"; an estimate with a non-finite point only
///   advances time. The output is never NaN or infinite.
///
/// ```swift
/// var tracker = MotionTracker()
/// for (time, estimate) in estimates {
///     if let tracked = tracker.update(estimate, at: time) { print(tracked.point, tracked.accuracy) }
/// }
/// ```
public struct MotionTracker: Sendable {
    /// The parameters of motion tracking, in metres and seconds (``MotionTracker`` converts them
    /// to venue units).
    public struct Configuration: Hashable, Sendable {
        /// Spectral density of the walking acceleration, m²/s³. Default 1: over one second the
        /// velocity may change by about √1 = 1 m/s, from standing to a walk.
        public var accelerationDensity: Double
        /// Largest speed, m/s. Default 2 m/s, a brisk walk (a normal walk is 1.2–1.5 m/s).
        public var maximumSpeed: Double
        /// Standard deviation of the velocity when a track starts, m/s. Default 1 m/s.
        public var initialSpeedDeviation: Double
        /// The outlier gate on the squared Mahalanobis distance (χ², 2 degrees of freedom).
        /// Default 13.8, the 99.9 % quantile.
        public var gate: Double
        /// How many consecutive outliers restart the track. Default 3.
        public var restartAfterOutliers: Int
        /// Longest gap between estimates that keeps the track, seconds. Default 5 s, the
        /// ``LocatorConfiguration/beaconTimeout``: after it every beacon of the old observations
        /// has dropped out, a walker may be 10 m away, and the old track no longer helps.
        public var maximumGap: Double
        /// Time over which successive estimates' errors are correlated, seconds. Default 0.5 s:
        /// estimates of one-second ranging scans count fully, those of single-packet streams
        /// (several a second) are down-weighted; 0 treats every estimate as independent.
        public var correlationTime: Double
        /// Smallest accuracy radius believed, metres. Default 0.1 m.
        public var minimumAccuracy: Double

        /// Creates a configuration; the defaults are documented on each property.
        public init(accelerationDensity: Double = 1, maximumSpeed: Double = 2, initialSpeedDeviation: Double = 1,
                    gate: Double = 13.8, restartAfterOutliers: Int = 3, maximumGap: Double = 5,
                    correlationTime: Double = 0.5, minimumAccuracy: Double = 0.1) {
            self.accelerationDensity = accelerationDensity
            self.maximumSpeed = maximumSpeed
            self.initialSpeedDeviation = initialSpeedDeviation
            self.gate = gate
            self.restartAfterOutliers = restartAfterOutliers
            self.maximumGap = maximumGap
            self.correlationTime = correlationTime
            self.minimumAccuracy = minimumAccuracy
        }
    }

    /// The parameters.
    public let configuration: Configuration
    /// Metres per venue unit (1 for metres).
    public let metresPerUnit: Double

    private var filter: ConstantVelocityFilter
    private var height = 0.0

    /// Creates a tracker for positions in venue units of `metresPerUnit` metres (1 for metres).
    public init(configuration: Configuration = Configuration(), metresPerUnit: Double = 1) {
        self.configuration = configuration
        self.metresPerUnit = metresPerUnit > 0 && metresPerUnit.isFinite ? metresPerUnit : 1
        filter = ConstantVelocityFilter(configuration: configuration, metresPerUnit: self.metresPerUnit)
    }

    /// Forgets the track (a new track starts with the next estimate).
    public mutating func reset() {
        filter.reset()
    }

    /// Whether a track is under way.
    public var isTracking: Bool { filter.state != nil }

    /// The time of the latest state, seconds, or `nil` with no track.
    public var time: Double? { filter.state?.time }

    /// The tracked velocity on the plan, venue units per second, or `nil` with no track.
    public var velocity: PlanarPoint? { filter.state.map { PlanarPoint(x: $0.vx, y: $0.vy) } }

    /// Takes in the solver's estimate at `time` and returns the tracked estimate then: the
    /// filtered position, its 68 % radius, and the estimate's `z` and beacon count. An outlier
    /// gives the prediction. Returns `nil` only when there is no track and the estimate has no
    /// finite point.
    public mutating func update(_ estimate: PositionEstimate, at time: Double) -> PositionEstimate? {
        if estimate.point.z.isFinite { height = estimate.point.z }
        guard let record = filter.step(x: estimate.point.x, y: estimate.point.y, accuracy: estimate.accuracy, time: time)
        else { return nil }
        return Self.estimate(record.posterior, z: height, beaconCount: estimate.beaconCount, accuracyFloor: record.accuracyFloor)
    }

    /// The track predicted to `time` without an estimate (for display between fixes), or `nil`
    /// with no track. The tracker itself does not move.
    public func predicted(at time: Double) -> PositionEstimate? {
        guard let state = filter.state else { return nil }
        let dt = time - state.time
        guard dt.isFinite, dt <= configuration.maximumGap else { return nil }
        return Self.estimate(state.predicted(by: max(dt, 0), accelerationDensity: filter.accelerationDensity),
                             z: height, beaconCount: 0, accuracyFloor: filter.accuracyFloor)
    }

    /// An estimate from a state: its position and the 68 % radius of its position covariance, at
    /// least `accuracyFloor`.
    static func estimate(_ state: MotionState, z: Double, beaconCount: Int, accuracyFloor: Double) -> PositionEstimate? {
        let radius = ConstantVelocityFilter.radius68 * max(state.covariance.a, 0).squareRoot()
        let accuracy = max(radius, accuracyFloor.isFinite ? accuracyFloor : 0)
        guard state.x.isFinite, state.y.isFinite, accuracy.isFinite else { return nil }
        return PositionEstimate(point: SpatialPoint(x: state.x, y: state.y, z: z.isFinite ? z : 0),
                                accuracy: accuracy, beaconCount: beaconCount)
    }
}
