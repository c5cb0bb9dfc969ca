/// The auto-regressive moving average of AltBeacon's `ArmaRssiFilter`: each sample moves the
/// estimate by a fraction ``coefficient`` of the way towards it, `x ← x − c·(x − rssi)`.
///
/// The first sample sets the estimate. The default coefficient, 0.1, suits beacons heard about
/// once a second or more; AltBeacon suggests 0.25…0.5 for slower ones. Unlike AltBeacon, which
/// truncates the estimate to a whole dBm after every step, this filter keeps the fraction.
///
/// ```swift
/// var filter = ARMARSSIFilter()
/// filter.add(rssi: -60, at: 0)   // -60
/// filter.add(rssi: -70, at: 1)   // -60 - 0.1 × (-60 + 70) = -61
/// print(filter.value as Any)     // -61.0
/// ```
///
/// The filter has no window: it keeps its estimate until ``reset()``.
public struct ARMARSSIFilter: RSSIFilter, Hashable {
    /// The default coefficient, 0.1 (AltBeacon's `DEFAULT_ARMA_SPEED`).
    public static let defaultCoefficient = 0.1

    /// The fraction of the gap to each new sample that the estimate moves, in (0, 1].
    public let coefficient: Double
    /// The filtered RSSI (dBm) after the samples so far, or `nil` before the first.
    public private(set) var value: Double?

    /// Creates a filter with the default coefficient 0.1.
    public init() {
        coefficient = Self.defaultCoefficient
    }

    /// Creates a filter with the given coefficient, or `nil` unless it lies in (0, 1].
    public init?(coefficient: Double) {
        guard coefficient > 0, coefficient <= 1 else { return nil }
        self.coefficient = coefficient
    }

    /// Adds a sample heard at `time`; unusable samples are ignored (see ``RSSIFilter``).
    public mutating func add(rssi: Double, at time: Double) {
        guard isUsableSample(rssi: rssi, time: time) else { return }
        let current = value ?? rssi
        value = current - coefficient * (current - rssi)
    }

    /// Forgets every sample; the parameters stay.
    public mutating func reset() {
        value = nil
    }
}
