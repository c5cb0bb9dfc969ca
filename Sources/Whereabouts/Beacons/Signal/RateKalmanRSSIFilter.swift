import Foundation

/// A two-state Kalman filter on RSSI that tracks the level (dBm) and its rate of change (dB/s),
/// so that it follows a device walking towards or away from a beacon without lag, yet averages
/// the samples of a device that stands still.
///
/// The model is a damped rate with white-noise acceleration: between samples `dt` seconds apart
/// the rate decays by `φ = e^(−dt/τ)` (τ: ``rateTimeConstant``), the level moves by the rate's
/// integral `a·rate` with `a = τ·(1 − φ)`, and the rate wanders with spectral density `q`, the
/// ``rateNoise`` (dB²/s³). The decay matters: people walk in short legs between stops, and a
/// plain constant-velocity rate carries the estimate well past each stop. With `x = (level, rate)`
/// and covariance `P`:
///
/// ```
/// F = [1 a; 0 φ]     Q = q·[dt³/3 dt²/2; dt²/2 dt]
/// x⁻ = F·x           P⁻ = F·P·Fᵀ + Q                predict
/// S  = P⁻₀₀ + r      K  = (P⁻₀₀, P⁻₁₀) / S           gain (r: measurementNoise)
/// ν  = z − x⁻₀       x  = x⁻ + K·ν                    correct
/// P  = P⁻ − K·(P⁻₀₀, P⁻₀₁)
/// ```
///
/// The first sample sets the level to `z` with variance `r` and the rate to 0 with variance
/// ``initialRateVariance``. Samples at the same time (or, with a clock that jumps back, earlier)
/// are fused with `dt = 0`. After a gap longer than ``gapReset`` seconds the rate is forgotten
/// (back to 0 with its initial variance) and the level's variance grows by `r`, so an old trend
/// is not carried across a silence.
///
/// Multipath fades pull single samples far below the level. When ``dropClip`` is above 0, an
/// innovation below `−dropClip·√S` is clipped to that bound before the correction (a one-sided
/// Huber step): a deep drop moves the estimate as much as a 2σ one, a rise is taken in full.
///
/// ```swift
/// var filter = RateKalmanRSSIFilter()
/// filter.add(rssi: -60, at: 0)   // level -60, rate 0
/// filter.add(rssi: -62, at: 1)   // the level moves part way down and the rate turns negative
/// ```
///
/// ``value`` is the level at the newest sample; the filter does not extrapolate.
public struct RateKalmanRSSIFilter: RSSIFilter, Hashable {
    /// The default rate noise `q`, 0.5 dB²/s³.
    public static let defaultRateNoise = 0.5
    /// The default measurement noise `r`, 9 dB² (samples scatter by 3 dB).
    public static let defaultMeasurementNoise = 9.0
    /// The default gap (s) after which the rate is forgotten, 5 s.
    public static let defaultGapReset = 5.0
    /// The default clipping of downward innovations, 2 standard deviations.
    public static let defaultDropClip = 2.0
    /// The default time constant of the rate's decay, 1.5 s: people walk in short legs between
    /// stops, and a rate that lived longer would carry the estimate past the stop.
    public static let defaultRateTimeConstant = 1.5
    /// The variance (dB²/s²) of the rate when it starts at 0: a 1 dB/s spread.
    public static let initialRateVariance = 1.0

    /// The rate noise `q` (dB²/s³): how fast the rate of change may itself change.
    public let rateNoise: Double
    /// The measurement noise `r` (dB²): the variance of one sample around the true level.
    public let measurementNoise: Double
    /// Seconds without a sample after which the rate starts again from 0.
    public let gapReset: Double
    /// Innovations below `−dropClip` standard deviations are clipped to it; 0 turns clipping off.
    public let dropClip: Double
    /// The time constant τ (s) with which the rate decays towards 0 between samples.
    public let rateTimeConstant: Double

    /// The filtered RSSI (dBm) after the samples so far, or `nil` before the first.
    public var value: Double? { hasState ? level : nil }
    /// The estimated rate of change (dB/s), or `nil` before the first sample.
    public var rate: Double? { hasState ? slope : nil }
    /// The variance (dB²) of ``value`` as the filter sees it, or `nil` before the first sample.
    public var estimateVariance: Double? { hasState ? p00 : nil }

    private var hasState = false
    private var level = 0.0
    private var slope = 0.0
    private var p00 = 0.0
    private var p01 = 0.0
    private var p11 = 0.0
    private var lastTime = 0.0

    /// Creates a filter with the defaults: `q = 0.5`, `r = 9`, a 5 s gap reset, clipping at 2σ and
    /// a 1.5 s rate time constant.
    public init() {
        rateNoise = Self.defaultRateNoise
        measurementNoise = Self.defaultMeasurementNoise
        gapReset = Self.defaultGapReset
        dropClip = Self.defaultDropClip
        rateTimeConstant = Self.defaultRateTimeConstant
    }

    /// Creates a filter, or `nil` unless the rate noise is finite and not negative, the
    /// measurement noise, the gap and the time constant are finite and positive, and the clip is
    /// finite and not negative.
    public init?(rateNoise: Double, measurementNoise: Double,
                 gapReset: Double = RateKalmanRSSIFilter.defaultGapReset,
                 dropClip: Double = RateKalmanRSSIFilter.defaultDropClip,
                 rateTimeConstant: Double = RateKalmanRSSIFilter.defaultRateTimeConstant) {
        guard rateTimeConstant > 0, rateTimeConstant.isFinite, rateNoise >= 0, rateNoise.isFinite, measurementNoise > 0, measurementNoise.isFinite,
              gapReset > 0, gapReset.isFinite, dropClip >= 0, dropClip.isFinite
        else { return nil }
        self.rateNoise = rateNoise
        self.measurementNoise = measurementNoise
        self.gapReset = gapReset
        self.dropClip = dropClip
        self.rateTimeConstant = rateTimeConstant
    }

    /// Adds a sample heard at `time`; unusable samples are ignored (see ``RSSIFilter``).
    public mutating func add(rssi: Double, at time: Double) {
        guard isUsableSample(rssi: rssi, time: time) else { return }
        guard hasState else {
            start(at: rssi, time: time, levelVariance: measurementNoise)
            return
        }
        let dt = max(0, time - lastTime)
        lastTime = max(lastTime, time)
        if dt > gapReset {
            slope = 0
            p00 += measurementNoise
            p01 = 0
            p11 = Self.initialRateVariance
        } else if dt > 0 {
            // Predict: x⁻ = F·x, P⁻ = F·P·Fᵀ + Q, with the rate decaying by φ = e^(−dt/τ) and
            // the level moving by its integral a = τ·(1 − φ).
            let decay = Foundation.exp(-dt / rateTimeConstant)
            let moved = rateTimeConstant * (1 - decay)
            level += slope * moved
            slope *= decay
            let q = rateNoise
            let n00 = p00 + 2 * moved * p01 + moved * moved * p11 + q * dt * dt * dt / 3
            let n01 = decay * (p01 + moved * p11) + q * dt * dt / 2
            let n11 = decay * decay * p11 + q * dt
            p00 = n00
            p01 = n01
            p11 = n11
        }
        // Correct.
        let s = p00 + measurementNoise
        var innovation = rssi - level
        if dropClip > 0 {
            innovation = max(innovation, -dropClip * s.squareRoot())
        }
        let k0 = p00 / s
        let k1 = p01 / s
        let newLevel = level + k0 * innovation
        let newSlope = slope + k1 * innovation
        let n00 = (1 - k0) * p00
        let n01 = (1 - k0) * p01
        let n11 = p11 - k1 * p01
        guard newLevel.isFinite, newSlope.isFinite, n00.isFinite, n01.isFinite, n11.isFinite else {
            // Never reached with finite parameters; start afresh rather than carry a broken state.
            start(at: rssi, time: time, levelVariance: measurementNoise)
            return
        }
        level = newLevel
        slope = newSlope
        p00 = n00
        p01 = n01
        p11 = n11
    }

    private mutating func start(at rssi: Double, time: Double, levelVariance: Double) {
        hasState = true
        level = rssi
        slope = 0
        p00 = levelVariance
        p01 = 0
        p11 = Self.initialRateVariance
        lastTime = time
    }

    /// Forgets every sample; the parameters stay.
    public mutating func reset() {
        hasState = false
        level = 0
        slope = 0
        p00 = 0
        p01 = 0
        p11 = 0
        lastTime = 0
    }
}
