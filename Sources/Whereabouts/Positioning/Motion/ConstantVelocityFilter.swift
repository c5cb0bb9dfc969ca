import Foundation

/// The symmetric 2 × 2 covariance of one axis' (position, velocity): `[[a, b], [b, c]]`.
///
/// Positions are measured with the same variance on both axes and the process noise is the same
/// on both, so the x and y axes of the constant-velocity model evolve independently with one
/// shared covariance: a 4 × 4 filter reduces to this 2 × 2 matrix and two state vectors.
struct AxisCovariance: Hashable, Sendable {
    /// Variance of the position.
    var a: Double
    /// Covariance of position and velocity.
    var b: Double
    /// Variance of the velocity.
    var c: Double

    var isFinite: Bool { a.isFinite && b.isFinite && c.isFinite }
}

/// A constant-velocity state on the plan with its covariance, at a time.
struct MotionState: Hashable, Sendable {
    var x: Double
    var y: Double
    var vx: Double
    var vy: Double
    var covariance: AxisCovariance
    var time: Double

    var isFinite: Bool {
        x.isFinite && y.isFinite && vx.isFinite && vy.isFinite && covariance.isFinite && covariance.a >= 0
    }

    /// The state `dt` seconds later under constant velocity, with white-noise acceleration of
    /// spectral density `q` (units²/s³):
    ///
    /// ```
    /// F = [[1, dt], [0, 1]]     Q = q·[[dt³/3, dt²/2], [dt²/2, dt]]
    /// x' = F·x                  P' = F·P·Fᵀ + Q
    /// ```
    func predicted(by dt: Double, accelerationDensity q: Double) -> MotionState {
        guard dt > 0 else { return self }
        let p = covariance
        let dt2 = dt * dt
        return MotionState(
            x: x + vx * dt, y: y + vy * dt, vx: vx, vy: vy,
            covariance: AxisCovariance(a: p.a + 2 * p.b * dt + p.c * dt2 + q * dt2 * dt / 3,
                                       b: p.b + p.c * dt + q * dt2 / 2,
                                       c: p.c + q * dt),
            time: time + dt)
    }

    /// The squared Mahalanobis distance of a measured position with variance `r` per axis:
    /// `(ix² + iy²) / (a + r)` with `i` the innovation; it follows χ² with 2 degrees of freedom.
    func mahalanobisSquared(x mx: Double, y my: Double, variance r: Double) -> Double {
        let ix = mx - x, iy = my - y
        return (ix * ix + iy * iy) / (covariance.a + r)
    }

    /// The state corrected by a measured position with variance `r` per axis (`H = [1, 0]`):
    ///
    /// ```
    /// S = a + r     K = [a, b] / S
    /// x⁺ = x + K·(z − x)
    /// a⁺ = a·r/S    b⁺ = b·r/S    c⁺ = c − b²/S
    /// ```
    func updated(x mx: Double, y my: Double, variance r: Double) -> MotionState {
        let p = covariance
        let s = p.a + r
        guard s > 0, s.isFinite else { return self }
        let kp = p.a / s, kv = p.b / s
        let ix = mx - x, iy = my - y
        return MotionState(
            x: x + kp * ix, y: y + kp * iy, vx: vx + kv * ix, vy: vy + kv * iy,
            covariance: AxisCovariance(a: p.a * r / s, b: p.b * r / s, c: max(p.c - p.b * p.b / s, 0)),
            time: time)
    }

    /// The state with its speed limited to `maximum` (direction kept).
    func clampingSpeed(to maximum: Double) -> MotionState {
        let speed = (vx * vx + vy * vy).squareRoot()
        guard speed > maximum, speed.isFinite, maximum >= 0 else {
            return speed.isFinite ? self : MotionState(x: x, y: y, vx: 0, vy: 0, covariance: covariance, time: time)
        }
        let scale = maximum / speed
        var clamped = self
        clamped.vx *= scale
        clamped.vy *= scale
        return clamped
    }
}

/// How one input changed a ``ConstantVelocityFilter``.
enum TrackStep: Hashable, Sendable {
    /// The track (re)started at the measurement.
    case started
    /// The measurement corrected the prediction.
    case updated
    /// The measurement failed the gate; the state is the prediction.
    case gated
    /// The input had no usable position; the state is the prediction.
    case predicted
}

/// One input's effect: the prior (prediction to the input's time) and the posterior.
struct TrackRecord: Hashable, Sendable {
    var step: TrackStep
    var prior: MotionState
    var posterior: MotionState
    /// Seconds from the previous state to this one (0 when the track started here).
    var dt: Double
    /// The accuracy radius of the latest estimate the track took in, units: the least accuracy the
    /// track may claim, as successive estimates share most of their error (the same beacons, the
    /// same filtered RSSI) and averaging them does not remove it.
    var accuracyFloor: Double
}

/// The online constant-velocity filter behind ``MotionTracker`` and ``TrackSmoother``, with its
/// parameters already in venue units.
struct ConstantVelocityFilter: Sendable {
    /// Acceleration spectral density, units²/s³.
    let accelerationDensity: Double
    /// Largest speed, units/s.
    let maximumSpeed: Double
    /// Variance of the velocity when a track starts, units²/s².
    let initialVelocityVariance: Double
    /// χ² (2 degrees of freedom) above which a measurement is an outlier.
    let gate: Double
    /// Consecutive outliers after which the track restarts at the latest.
    let restartAfter: Int
    /// Longest gap between inputs that keeps the track, seconds.
    let maximumGap: Double
    /// Time over which successive estimates' errors are correlated, seconds.
    let correlationTime: Double
    /// Limits of the measurement accuracy radius, units.
    let minimumAccuracy: Double
    let maximumAccuracy: Double
    /// What a measurement's radius is divided by before it is used (see
    /// ``MotionTracker/Configuration/estimateAccuracyScale``).
    let estimateAccuracyScale: Double

    private(set) var state: MotionState?
    private(set) var accuracyFloor = 0.0
    private(set) var outliers = 0
    /// How many estimates the track took in since it started; the gate applies from 2 on.
    private(set) var support = 0

    /// The per-axis standard deviation over the 68 % radius of a circular 2-D normal:
    /// P(r ≤ ρ) = 1 − exp(−ρ²/2σ²) = 0.68 ⇔ ρ = σ·√(−2 ln 0.32) ≈ 1.5096 σ.
    static let radius68 = PositionEstimate.radiusPerStandardDeviation

    init(configuration: MotionTracker.Configuration, metresPerUnit: Double) {
        let m = metresPerUnit > 0 && metresPerUnit.isFinite ? metresPerUnit : 1
        func positive(_ value: Double, _ fallback: Double) -> Double { value > 0 && value.isFinite ? value : fallback }
        accelerationDensity = positive(configuration.accelerationDensity, 1) / (m * m)
        maximumSpeed = positive(configuration.maximumSpeed, 2) / m
        let initialSpeed = positive(configuration.initialSpeedDeviation, 1) / m
        initialVelocityVariance = initialSpeed * initialSpeed
        gate = positive(configuration.gate, 13.8)
        restartAfter = max(1, configuration.restartAfterOutliers)
        maximumGap = positive(configuration.maximumGap, 10)
        correlationTime = max(configuration.correlationTime.isFinite ? configuration.correlationTime : 0, 0)
        minimumAccuracy = positive(configuration.minimumAccuracy, 0.1) / m
        maximumAccuracy = max(1e6 / m, minimumAccuracy)
        estimateAccuracyScale = positive(configuration.estimateAccuracyScale, 1)
    }

    mutating func reset() {
        state = nil
        accuracyFloor = 0
        outliers = 0
        support = 0
    }

    /// A measurement's 68 % radius made usable: divided by the estimate accuracy scale, zero and
    /// tiny radii raised to the minimum, unknown (NaN, negative) and huge ones lowered to the maximum.
    func radius(accuracy: Double) -> Double {
        accuracy.isNaN || accuracy < 0
            ? maximumAccuracy : min(max(accuracy / estimateAccuracyScale, minimumAccuracy), maximumAccuracy)
    }

    /// The per-axis variance of a measurement with a 68 % radius `accuracy` (see ``radius(accuracy:)``).
    func variance(accuracy: Double) -> Double {
        let sigma = radius(accuracy: accuracy) / Self.radius68
        return sigma * sigma
    }

    /// How much to inflate a measurement's variance when it follows the previous one by `dt`:
    /// estimates closer than the correlation time share most of their error (the same beacons,
    /// the same filtered RSSI), so `correlationTime / dt` of them carry about one estimate's
    /// information. Between 1 and 10.
    func inflation(dt: Double) -> Double {
        guard correlationTime > 0 else { return 1 }
        guard dt > 0 else { return 10 }
        return min(max(correlationTime / dt, 1), 10)
    }

    /// Takes in one input at `time`: a position (`nil` or non-finite when the input has none)
    /// with its accuracy radius. Returns what happened, or `nil` when there is no track.
    mutating func step(x mx: Double?, y my: Double?, accuracy: Double, time: Double) -> TrackRecord? {
        let usable: (x: Double, y: Double)? = if let mx, let my, mx.isFinite, my.isFinite { (mx, my) } else { nil }
        let time = time.isFinite ? time : (state?.time ?? 0)
        guard let current = state else {
            guard let usable else { return nil }
            return start(x: usable.x, y: usable.y, accuracy: accuracy, time: time)
        }
        let elapsed = time - current.time
        guard abs(elapsed) <= maximumGap else {
            // A long gap (or a clock jump back): the old track says nothing about now.
            reset()
            guard let usable else { return nil }
            return start(x: usable.x, y: usable.y, accuracy: accuracy, time: time)
        }
        // Equal or slightly earlier times: no motion in between.
        let dt = max(elapsed, 0)
        let prior = current.predicted(by: dt, accelerationDensity: accelerationDensity)
        guard let usable else {
            state = prior
            return TrackRecord(step: .predicted, prior: prior, posterior: prior, dt: dt, accuracyFloor: accuracyFloor)
        }
        let r = variance(accuracy: accuracy) * inflation(dt: dt)
        let distance = prior.mahalanobisSquared(x: usable.x, y: usable.y, variance: r)
        if !(distance <= gate) {
            outliers += 1
            // A track resting on one estimate cannot tell which of the two is the outlier: the
            // newer one wins, as the device may have moved.
            if outliers >= restartAfter || support < 2 {
                return start(x: usable.x, y: usable.y, accuracy: accuracy, time: time)
            }
            state = prior
            return TrackRecord(step: .gated, prior: prior, posterior: prior, dt: dt, accuracyFloor: accuracyFloor)
        }
        outliers = 0
        support += 1
        let posterior = prior.updated(x: usable.x, y: usable.y, variance: r).clampingSpeed(to: maximumSpeed)
        guard posterior.isFinite else {
            return start(x: usable.x, y: usable.y, accuracy: accuracy, time: time)
        }
        state = posterior
        accuracyFloor = radius(accuracy: accuracy)
        return TrackRecord(step: .updated, prior: prior, posterior: posterior, dt: dt, accuracyFloor: accuracyFloor)
    }

    /// Starts the track at a position known from elsewhere, trusted as a track already resting
    /// on estimates: one that disagrees is an outlier, until the configured number in a row
    /// restarts the track there (the device did move away).
    mutating func anchor(x: Double, y: Double, accuracy: Double, time: Double) {
        _ = start(x: x, y: y, accuracy: accuracy, time: time)
        support = 2
    }

    private mutating func start(x: Double, y: Double, accuracy: Double, time: Double) -> TrackRecord {
        outliers = 0
        support = 1
        let started = MotionState(x: x, y: y, vx: 0, vy: 0,
                                  covariance: AxisCovariance(a: variance(accuracy: accuracy), b: 0, c: initialVelocityVariance),
                                  time: time)
        state = started
        accuracyFloor = radius(accuracy: accuracy)
        return TrackRecord(step: .started, prior: started, posterior: started, dt: 0, accuracyFloor: accuracyFloor)
    }
}
