import Foundation

/// A position estimate at a time: what ``TrackSmoother`` takes in.
public struct TimedEstimate: Hashable, Sendable {
    /// Time of the estimate, seconds.
    public var time: Double
    /// The estimate.
    public var estimate: PositionEstimate

    /// Creates a timed estimate.
    public init(time: Double, estimate: PositionEstimate) {
        self.time = time
        self.estimate = estimate
    }
}

/// Smooths a whole recording of one device and track offline, so that every position also learns
/// from the estimates after it.
///
/// **Constant velocity** (the default model): the ``MotionTracker``'s filter run forwards, then a
/// Rauch–Tung–Striebel pass backwards. The forward pass is exactly the online tracker (same gate,
/// speed limit, gaps and restarts); the backward pass, within each stretch between restarts, is
///
/// ```
/// C_k  = P_k|k · Fᵀ · P_k+1|k⁻¹
/// x_k  = x_k|k + C_k·(x_k+1 − x_k+1|k)
/// P_k  = P_k|k + C_k·(P_k+1 − P_k+1|k)·C_kᵀ
/// ```
///
/// The smoothed accuracy is the 68 % radius of `P_k`, at least the latest estimate's own (see
/// ``MotionTracker``).
///
/// **Stop and go** (``MotionTracker/Configuration/Model/stopAndGo``): a two-filter smoother. The
/// online stop-and-go filter runs forwards, and once more backwards in time over the same
/// estimates; at each estimate the forward filter's output (everything up to it) is combined with
/// the backward filter's prediction just before it (everything after it) by their inverse
/// variances:
///
/// ```
/// v = 1 / (1/v_f + 1/v_b)      x = v·(x_f/v_f + x_b/v_b)
/// ```
///
/// Neither half takes in an estimate twice, so the two are independent given the path. Where the
/// backward half has no track (the last estimate, or across a gap that restarts tracks), the
/// forward output stands. The smoothed accuracy is the 68 % radius of `v`. Walking, the forward
/// filter lags behind and the backward one runs ahead; their combination sits on the path.
///
/// Either way the radius is then multiplied by the configuration's
/// ``MotionTracker/Configuration/accuracyScale``, as the online tracker's is.
///
/// ```swift
/// let smoother = TrackSmoother()
/// let smoothed = smoother.smooth(fixes)   // fixes of one device and track, in time order
/// ```
public struct TrackSmoother: Sendable {
    /// The parameters (the same as the online tracker's).
    public let configuration: MotionTracker.Configuration
    /// Metres per venue unit (1 for metres).
    public let metresPerUnit: Double

    /// Creates a smoother for positions in venue units of `metresPerUnit` metres.
    public init(configuration: MotionTracker.Configuration = MotionTracker.Configuration(), metresPerUnit: Double = 1) {
        self.configuration = configuration
        self.metresPerUnit = metresPerUnit > 0 && metresPerUnit.isFinite ? metresPerUnit : 1
    }

    /// The smoothed estimates, one per input and in the same order; `nil` where there is no track
    /// (only before the first estimate with a finite point, or after a gap, before the next).
    /// Inputs should be in time order; an earlier time than the one before counts as no time
    /// passing, as in ``MotionTracker``.
    public func smooth(_ estimates: [TimedEstimate]) -> [PositionEstimate?] {
        let smoothed = configuration.model == .stopAndGo ? twoFilterSmoothed(estimates) : rauchTungStriebelSmoothed(estimates)
        return smoothed.indices.map { index in
            configuration.scalingAccuracy(of: smoothed[index], input: estimates.indices.contains(index) ? estimates[index].estimate : nil)
        }
    }

    /// The Rauch–Tung–Striebel smoother of the constant-velocity model.
    private func rauchTungStriebelSmoothed(_ estimates: [TimedEstimate]) -> [PositionEstimate?] {
        var filter = ConstantVelocityFilter(configuration: configuration, metresPerUnit: metresPerUnit)
        var records: [TrackRecord?] = []
        records.reserveCapacity(estimates.count)
        for input in estimates {
            let point = input.estimate.point
            records.append(filter.step(x: point.x, y: point.y, accuracy: input.estimate.accuracy, time: input.time))
        }
        let states = Self.smoothedStates(records)
        return Self.outputs(for: estimates) { index, height in
            states[index].flatMap {
                MotionTracker.estimate($0, z: height, beaconCount: estimates[index].estimate.beaconCount,
                                       accuracyFloor: records[index]?.accuracyFloor ?? 0)
            }
        }
    }

    /// The two-filter smoother, for the stop-and-go model (see the type's description).
    private func twoFilterSmoothed(_ estimates: [TimedEstimate]) -> [PositionEstimate?] {
        var forward = TrackFilter(configuration: configuration, metresPerUnit: metresPerUnit)
        let filtered = estimates.map { forward.step($0) }
        var backward = TrackFilter(configuration: configuration, metresPerUnit: metresPerUnit)
        var ahead = [TrackFilter.Output?](repeating: nil, count: estimates.count)
        for index in estimates.indices.reversed() {
            ahead[index] = backward.predicted(at: -estimates[index].time)
            _ = backward.step(estimates[index], backwards: true)
        }
        return Self.outputs(for: estimates) { index, height in
            filtered[index].flatMap {
                $0.combined(with: ahead[index]).estimate(z: height, beaconCount: estimates[index].estimate.beaconCount,
                                                         minimumAccuracy: configuration.minimumAccuracy / metresPerUnit)
            }
        }
    }

    /// One output per input, made by `output` from the input's index and the latest finite
    /// height among the inputs so far (0 before the first).
    private static func outputs(for estimates: [TimedEstimate],
                                _ output: (_ index: Int, _ height: Double) -> PositionEstimate?) -> [PositionEstimate?] {
        var outputs: [PositionEstimate?] = []
        outputs.reserveCapacity(estimates.count)
        var height = 0.0
        for index in estimates.indices {
            if estimates[index].estimate.point.z.isFinite { height = estimates[index].estimate.point.z }
            outputs.append(output(index, height))
        }
        return outputs
    }

    /// The fixes with smoothed points and accuracies (latitude and longitude recomputed through
    /// `frame` when given, dropped otherwise when they were set); fixes left without a track keep
    /// their own values.
    public func smooth(_ fixes: [Fix], frame: LocalFrame? = nil) -> [Fix] {
        let smoothed = smooth(fixes.map { TimedEstimate(time: $0.time, estimate: PositionEstimate(
            point: $0.point, accuracy: $0.accuracy, beaconCount: $0.beacons.count)) })
        return zip(fixes, smoothed).map { fix, estimate in
            guard let estimate else { return fix }
            var result = fix
            result.point = estimate.point
            result.accuracy = estimate.accuracy
            if fix.coordinate != nil { result.coordinate = frame?.coordinate(for: estimate.point.planar) }
            return result
        }
    }

    /// The Rauch–Tung–Striebel backward pass over forward records (`nil` = no track there).
    static func smoothedStates(_ records: [TrackRecord?]) -> [MotionState?] {
        var states: [MotionState?] = records.map { $0?.posterior }
        guard records.count > 1 else { return states }
        var index = records.count - 2
        while index >= 0 {
            defer { index -= 1 }
            guard let current = records[index], let next = records[index + 1], next.step != .started,
                  let later = states[index + 1] else { continue }
            let filtered = current.posterior
            let prior = next.prior
            let dt = next.dt
            // M = P_k|k · Fᵀ with F = [[1, dt], [0, 1]].
            let p = filtered.covariance
            let m11 = p.a + p.b * dt, m12 = p.b
            let m21 = p.b + p.c * dt, m22 = p.c
            // P_k+1|k⁻¹.
            let q = prior.covariance
            let determinant = q.a * q.c - q.b * q.b
            guard determinant > 0, determinant.isFinite else { continue }
            let i11 = q.c / determinant, i12 = -q.b / determinant, i22 = q.a / determinant
            let c11 = m11 * i11 + m12 * i12, c12 = m11 * i12 + m12 * i22
            let c21 = m21 * i11 + m22 * i12, c22 = m21 * i12 + m22 * i22
            // Corrections from the later smoothed state.
            let dx = later.x - prior.x, dvx = later.vx - prior.vx
            let dy = later.y - prior.y, dvy = later.vy - prior.vy
            let da = later.covariance.a - q.a, db = later.covariance.b - q.b, dc = later.covariance.c - q.c
            // C·D·Cᵀ for symmetric D = [[da, db], [db, dc]].
            let e11 = c11 * da + c12 * db, e12 = c11 * db + c12 * dc
            let e21 = c21 * da + c22 * db, e22 = c21 * db + c22 * dc
            let smoothed = MotionState(
                x: filtered.x + c11 * dx + c12 * dvx, y: filtered.y + c11 * dy + c12 * dvy,
                vx: filtered.vx + c21 * dx + c22 * dvx, vy: filtered.vy + c21 * dy + c22 * dvy,
                covariance: AxisCovariance(a: max(p.a + e11 * c11 + e12 * c12, 0),
                                           b: p.b + e11 * c21 + e12 * c22,
                                           c: max(p.c + e21 * c21 + e22 * c22, 0)),
                time: filtered.time)
            if smoothed.isFinite { states[index] = smoothed }
        }
        return states
    }
}
