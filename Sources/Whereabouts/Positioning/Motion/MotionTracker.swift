import Foundation

/// Follows one device over time: a constant-velocity Kalman filter on the plan over the solver's
/// position estimates, or, with ``Configuration/Model/stopAndGo``, an interacting multiple model
/// filter of a person standing still and one walking (it shares the
/// measurement handling, gate and gaps described below, keeps no velocity, and its radius is the
/// mixture's, without the floor described below). The rest of this description is the
/// constant-velocity model's.
///
/// **Model.** The state is the position and velocity on both axes. Between estimates the device
/// keeps its velocity, disturbed by white-noise acceleration of spectral density
/// ``Configuration/accelerationDensity`` (m²/s³); see `F` and `Q` below. Each estimate measures the
/// position with a standard deviation per axis σ = accuracy / 1.5096 (divided further by
/// ``Configuration/estimateAccuracyScale`` when that is set; the accuracy radius holds
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
        /// How the person is assumed to move between estimates.
        public enum Model: String, Hashable, Sendable, CaseIterable {
            /// A constant-velocity Kalman filter (see ``MotionTracker``).
            case constantVelocity = "constant-velocity"
            /// Standing still or walking, and switching between the two: an interacting
            /// multiple model filter of a still and a walking person (``stillDiffusion``,
            /// ``walkingSpeed``, ``modeStayProbability``). It averages many estimates while the
            /// person stands and follows them without lag once they walk; the accuracy radius is
            /// that of the mixture, so it shrinks while the person stands.
            case stopAndGo = "stop-and-go"
        }

        /// The motion model. Default ``Model/constantVelocity``.
        public var model: Model
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
        /// With ``Model/stopAndGo``: how far a standing person drifts, as a variance per axis
        /// and second, m²/s. Default 0.0025 (5 cm in a second).
        public var stillDiffusion: Double
        /// With ``Model/stopAndGo``: the walking speed, m/s. Default 1.4 m/s; over `dt` seconds a
        /// walker moves by a variance of (1.4·dt)²/2 per axis.
        public var walkingSpeed: Double
        /// With ``Model/stopAndGo``: the probability of still standing (or still walking) a
        /// second later. Default 0.9: a person changes between the two every ten seconds or so.
        public var modeStayProbability: Double
        /// The factor applied to every tracked accuracy radius. Default 1: the radius the model
        /// gives. On real recordings a standing phone's estimates share much of their error
        /// scan after scan (the same multipath, the same body in the way), which a tracker that
        /// averages them as independent cannot know, so its radius comes out too small;
        /// ``PositioningAlgorithm/default`` measures this factor on the training data
        /// (``DefaultSolver/trackedAccuracyScale``) and sets it.
        public var accuracyScale: Double
        /// Whether a tracked radius (after ``accuracyScale``) is never less than the radius of
        /// the estimate it was updated with. Default `false`. ``PositioningAlgorithm/default``
        /// sets it when it could only measure ``accuracyScale`` on a simulated survey (no
        /// training data with truth): how much of a real phone's error persists while it stands
        /// is only modelled there, and averaging looks better on the model than on most phones.
        public var isFlooredAtEstimateAccuracy = false
        /// What each estimate's accuracy radius is divided by before the tracker weighs the
        /// estimate by it (non-positive or non-finite values count as 1). Default 1.
        /// ``PositioningAlgorithm/default`` sets it to how much larger its calibrated radius is
        /// than the scatter of consecutive fixes of a standing receiver in its validation replay
        /// (``DefaultSolver/tracking``): the radius also covers the errors that persist while a
        /// phone stands, which averaging cannot remove and which would only make the tracker
        /// slower to follow a walk; ``accuracyScale`` then calibrates the tracked radius in turn.
        public var estimateAccuracyScale = 1.0

        /// `tracked` with its accuracy times ``accuracyScale`` (left as it is when the factor is
        /// not a positive finite number), and with ``isFlooredAtEstimateAccuracy``, at least
        /// `input`'s accuracy.
        func scalingAccuracy(of tracked: PositionEstimate?, input: PositionEstimate? = nil) -> PositionEstimate? {
            guard var tracked else { return nil }
            if accuracyScale.isFinite, accuracyScale > 0, accuracyScale != 1 {
                tracked.accuracy *= accuracyScale
                guard tracked.accuracy.isFinite else { return nil }
            }
            if isFlooredAtEstimateAccuracy, let floor = input?.accuracy, floor.isFinite, floor > tracked.accuracy {
                tracked.accuracy = floor
            }
            return tracked
        }

        /// The stop-and-go model with its defaults (``Model/stopAndGo``), as
        /// `whereabouts locate --tracking stop-and-go` runs it.
        public static let stopAndGo = Configuration(model: .stopAndGo)

        /// Creates a configuration; the defaults are documented on each property.
        public init(model: Model = .constantVelocity, accelerationDensity: Double = 1, maximumSpeed: Double = 2,
                    initialSpeedDeviation: Double = 1, gate: Double = 13.8, restartAfterOutliers: Int = 3,
                    maximumGap: Double = 5, correlationTime: Double = 0.5, minimumAccuracy: Double = 0.1,
                    stillDiffusion: Double = 0.0025, walkingSpeed: Double = 1.4, modeStayProbability: Double = 0.9,
                    accuracyScale: Double = 1) {
            self.model = model
            self.accuracyScale = accuracyScale
            self.stillDiffusion = stillDiffusion
            self.walkingSpeed = walkingSpeed
            self.modeStayProbability = modeStayProbability
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
    private var stopAndGo: StopAndGoFilter?
    private var height = 0.0
    /// ``Configuration/minimumAccuracy`` in venue units.
    private var minimumAccuracy: Double { configuration.minimumAccuracy / metresPerUnit }

    /// Creates a tracker for positions in venue units of `metresPerUnit` metres (1 for metres).
    public init(configuration: Configuration = Configuration(), metresPerUnit: Double = 1) {
        self.configuration = configuration
        self.metresPerUnit = metresPerUnit > 0 && metresPerUnit.isFinite ? metresPerUnit : 1
        filter = ConstantVelocityFilter(configuration: configuration, metresPerUnit: self.metresPerUnit)
        if configuration.model == .stopAndGo {
            stopAndGo = StopAndGoFilter(configuration: configuration, metresPerUnit: self.metresPerUnit)
        }
    }

    /// Forgets the track (a new track starts with the next estimate).
    public mutating func reset() {
        filter.reset()
        stopAndGo?.reset()
    }

    /// Restarts the track at a position known from elsewhere — a beacon the device stands at, a
    /// tap on the map — with that position's accuracy: the estimates that follow are filtered
    /// from it. With the constant-velocity model the position is trusted as an established
    /// track: estimates that fail the gate are outliers until ``Configuration/restartAfterOutliers``
    /// in a row restart the track at the latest (the device did move away); the stop-and-go
    /// model starts from it as from a first estimate. A non-finite point only forgets the track.
    public mutating func restart(at estimate: PositionEstimate, time: Double) {
        reset()
        guard estimate.point.x.isFinite, estimate.point.y.isFinite, time.isFinite else { return }
        if estimate.point.z.isFinite { height = estimate.point.z }
        if stopAndGo != nil {
            _ = tracked(estimate, at: time)
        } else {
            filter.anchor(x: estimate.point.x, y: estimate.point.y, accuracy: estimate.accuracy, time: time)
        }
    }

    /// Whether a track is under way.
    public var isTracking: Bool { stopAndGo.map { $0.latest != nil } ?? (filter.state != nil) }

    /// The time of the latest state, seconds, or `nil` with no track.
    public var time: Double? { stopAndGo.map { $0.latest?.time } ?? filter.state?.time }

    /// The tracked velocity on the plan, venue units per second, or `nil` with no track (and
    /// always with ``Configuration/Model/stopAndGo``, which keeps no velocity).
    public var velocity: PlanarPoint? {
        guard stopAndGo == nil else { return nil }
        return filter.state.map { PlanarPoint(x: $0.vx, y: $0.vy) }
    }

    /// With ``Configuration/Model/stopAndGo``, the probability that the person stands still;
    /// `nil` with no track or with the constant-velocity model.
    public var probabilityStill: Double? { stopAndGo?.probabilityStill }

    /// Takes in the solver's estimate at `time` and returns the tracked estimate then: the
    /// filtered position, its 68 % radius, and the estimate's `z` and beacon count. An outlier
    /// gives the prediction. Returns `nil` only when there is no track and the estimate has no
    /// finite point.
    public mutating func update(_ estimate: PositionEstimate, at time: Double) -> PositionEstimate? {
        configuration.scalingAccuracy(of: tracked(estimate, at: time), input: estimate)
    }

    /// ``update(_:at:)`` before ``Configuration/accuracyScale``.
    private mutating func tracked(_ estimate: PositionEstimate, at time: Double) -> PositionEstimate? {
        if estimate.point.z.isFinite { height = estimate.point.z }
        if stopAndGo != nil {
            guard let output = stopAndGo?.step(x: estimate.point.x, y: estimate.point.y, accuracy: estimate.accuracy, time: time)
            else { return nil }
            return Self.stopAndGoEstimate(x: output.x, y: output.y, z: height, variance: output.variance,
                                          beaconCount: estimate.beaconCount, minimumAccuracy: minimumAccuracy)
        }
        guard let record = filter.step(x: estimate.point.x, y: estimate.point.y, accuracy: estimate.accuracy, time: time)
        else { return nil }
        return Self.estimate(record.posterior, z: height, beaconCount: estimate.beaconCount, accuracyFloor: record.accuracyFloor)
    }

    /// The track predicted to `time` without an estimate (for display between fixes), or `nil`
    /// with no track. The tracker itself does not move.
    public func predicted(at time: Double) -> PositionEstimate? {
        configuration.scalingAccuracy(of: unscaledPrediction(at: time))
    }

    /// ``predicted(at:)`` before ``Configuration/accuracyScale``.
    private func unscaledPrediction(at time: Double) -> PositionEstimate? {
        if let stopAndGo {
            guard let predicted = stopAndGo.predicted(at: time) else { return nil }
            return Self.stopAndGoEstimate(x: predicted.x, y: predicted.y, z: height, variance: predicted.variance,
                                          beaconCount: 0, minimumAccuracy: minimumAccuracy)
        }
        guard let state = filter.state else { return nil }
        let dt = time - state.time
        guard dt.isFinite, dt <= configuration.maximumGap else { return nil }
        return Self.estimate(state.predicted(by: max(dt, 0), accelerationDensity: filter.accelerationDensity),
                             z: height, beaconCount: 0, accuracyFloor: filter.accuracyFloor)
    }

    /// An estimate of the stop-and-go filter: the mixture's position and the 68 % radius of its
    /// variance, at least the minimum accuracy.
    static func stopAndGoEstimate(x: Double, y: Double, z height: Double, variance: Double, beaconCount: Int,
                                  minimumAccuracy: Double) -> PositionEstimate? {
        let radius = ConstantVelocityFilter.radius68 * max(variance, 0).squareRoot()
        let accuracy = max(radius, minimumAccuracy)
        guard x.isFinite, y.isFinite, accuracy.isFinite else { return nil }
        return PositionEstimate(point: SpatialPoint(x: x, y: y, z: height.isFinite ? height : 0),
                                accuracy: accuracy, beaconCount: beaconCount)
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
