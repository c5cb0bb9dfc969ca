/// A scalar Kalman filter for a constant RSSI with noisy measurements, as room-assistant applies
/// it to beacon signals (through the kalmanjs library, with `A = 1, B = 0, C = 1`).
///
/// The state is the estimate `x` and its variance `p`. The first sample `z` sets `x = z` and
/// `p = Q`; every later sample runs one predict-and-correct step:
///
/// ```
/// p⁻ = p + R                 predict: the signal may have drifted
/// K  = p⁻ / (p⁻ + Q)         gain
/// x  = x + K·(z − x)         correct
/// p  = (1 − K)·p⁻
/// ```
///
/// `R` is the ``processNoise`` (default 0.008 dB²) and `Q` the ``measurementNoise`` (default
/// 4 dB²); kalmanjs names them the same way. A small `R` against a large `Q` smooths strongly and
/// follows a moving device slowly.
///
/// ```swift
/// var filter = KalmanRSSIFilter()
/// filter.add(rssi: -60, at: 0)   // x = -60, p = 4
/// filter.add(rssi: -70, at: 1)   // K = 4.008 / 8.008 ≈ 0.5005, x ≈ -65.005
/// ```
///
/// The filter has no window: it keeps its estimate until ``reset()``.
public struct KalmanRSSIFilter: RSSIFilter, Hashable {
    /// The default process noise `R`, 0.008 dB².
    public static let defaultProcessNoise = 0.008
    /// The default measurement noise `Q`, 4 dB².
    public static let defaultMeasurementNoise = 4.0

    /// The process noise `R`: the variance (dB²) by which the true RSSI may drift between samples.
    public let processNoise: Double
    /// The measurement noise `Q`: the variance (dB²) of one sample around the true RSSI.
    public let measurementNoise: Double
    /// The filtered RSSI (dBm) after the samples so far, or `nil` before the first.
    public private(set) var value: Double?
    /// The variance (dB²) of ``value`` as the filter sees it, or `nil` before the first sample.
    public private(set) var estimateVariance: Double?

    /// Creates a filter with the default noises `R = 0.008` and `Q = 4`.
    public init() {
        processNoise = Self.defaultProcessNoise
        measurementNoise = Self.defaultMeasurementNoise
    }

    /// Creates a filter with the given noise variances, or `nil` unless the process noise is
    /// finite and not negative and the measurement noise is finite and positive.
    public init?(processNoise: Double, measurementNoise: Double) {
        guard processNoise >= 0, processNoise.isFinite, measurementNoise > 0, measurementNoise.isFinite
        else { return nil }
        self.processNoise = processNoise
        self.measurementNoise = measurementNoise
    }

    /// Adds a sample heard at `time`; unusable samples are ignored (see ``RSSIFilter``).
    public mutating func add(rssi: Double, at time: Double) {
        guard isUsableSample(rssi: rssi, time: time) else { return }
        guard let x = value, let p = estimateVariance else {
            value = rssi
            estimateVariance = measurementNoise
            return
        }
        let predicted = p + processNoise
        let gain = predicted / (predicted + measurementNoise)
        value = x + gain * (rssi - x)
        estimateVariance = (1 - gain) * predicted
    }

    /// Forgets every sample; the parameters stay.
    public mutating func reset() {
        value = nil
        estimateVariance = nil
    }
}
