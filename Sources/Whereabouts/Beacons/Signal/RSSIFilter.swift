/// A filter that smooths the RSSI samples of one beacon over time.
///
/// Filters are value types: keep one per beacon (an ``RSSIFilterBank`` does that for you), feed
/// it every sample with ``add(rssi:at:)`` and read the smoothed RSSI with ``value`` or
/// ``value(at:)``. Five filters come with the package:
///
/// | filter | after | state |
/// |---|---|---|
/// | ``RunningAverageRSSIFilter`` | AltBeacon `RunningAverageRssiFilter` | samples of the last 20 s |
/// | ``ARMARSSIFilter`` | AltBeacon `ArmaRssiFilter` | one value |
/// | ``KalmanRSSIFilter`` | room-assistant (kalmanjs) | value and its variance |
/// | ``MedianRSSIFilter`` | ESPresense-style median with IQR rejection | samples of the last 15 s |
/// | ``RateKalmanRSSIFilter`` | a level-and-rate Kalman filter on the real time step | level, rate and their covariance |
///
/// ``BuiltInRSSIFilter`` picks one of them by name, for a command-line flag or a configuration file.
///
/// Samples that are not a real measurement (non-finite, or 0 dBm and above, as
/// ``Reading/isValid`` defines it) and samples with a non-finite time are ignored.
///
/// ```swift
/// var filter = KalmanRSSIFilter()
/// for (time, rssi) in [(0.0, -67.0), (1.0, -71.0), (2.0, -64.0)] {
///     filter.add(rssi: rssi, at: time)
/// }
/// print(filter.value as Any)   // about -67.33
/// ```
public protocol RSSIFilter: Sendable {
    /// Adds a sample: an RSSI in dBm heard at `time` (seconds, on a clock that does not go back).
    mutating func add(rssi: Double, at time: Double)

    /// The smoothed RSSI (dBm) after the samples added so far, or `nil` before the first one.
    ///
    /// A window-based filter computes it over the window that ends at its newest sample.
    var value: Double? { get }

    /// The smoothed RSSI (dBm) as of `time`, or `nil` when no sample counts at that time.
    ///
    /// Window-based filters leave out samples older than their window; the others return
    /// ``value`` (the default implementation).
    func value(at time: Double) -> Double?

    /// Forgets every sample, as if the filter were new; its parameters stay.
    mutating func reset()
}

extension RSSIFilter {
    /// Returns ``value``: a filter without a window keeps its estimate until it is reset.
    public func value(at time: Double) -> Double? { value }
}

/// Whether an RSSI and a time can be a sample: both finite and the RSSI below 0 dBm.
@inline(__always)
func isUsableSample(rssi: Double, time: Double) -> Bool {
    rssi < 0 && rssi.isFinite && time.isFinite
}
