/// The trimmed running average of AltBeacon's `RunningAverageRssiFilter`: the mean of the
/// samples of the last ``window`` seconds (20 by default), without the weakest and the strongest.
///
/// The trimming rule is AltBeacon's exactly: the `n` samples in the window are sorted and, when
/// `n > 2`, the `n / 10 + 1` lowest and the `n / 10 + 1` highest are dropped (integer division);
/// with one or two samples all are averaged. So 3…9 samples lose one at each end, 10…19 lose
/// two, 20…29 lose three:
///
/// ```swift
/// var filter = RunningAverageRSSIFilter()
/// for (second, rssi) in [-70.0, -60, -62, -64, -90].enumerated() {
///     filter.add(rssi: rssi, at: Double(second))
/// }
/// // sorted: -90 -70 -64 -62 -60; one cut at each end → (-70 - 64 - 62) / 3
/// print(filter.value as Any)   // -65.333…
/// ```
///
/// A sample counts while it is younger than the window (`now − t < window`).
public struct RunningAverageRSSIFilter: WindowedRSSIFilter, Hashable {
    /// The default window, 20 s (AltBeacon's `DEFAULT_SAMPLE_EXPIRATION_MILLISECONDS`).
    public static let defaultWindow = 20.0

    /// How long a sample counts, in seconds.
    public let window: Double
    var samples = TimedSamples()

    /// Creates a filter with the default 20 s window.
    public init() {
        window = Self.defaultWindow
    }

    /// Creates a filter with a window of `window` seconds, or `nil` unless it is positive and finite.
    public init?(window: Double) {
        guard window > 0, window.isFinite else { return nil }
        self.window = window
    }

    /// The trimmed mean of the samples that count, sorted (see ``WindowedRSSIFilter``).
    func filteredValue(ofSorted sorted: [Double]) -> Double? {
        Self.trimmedMean(ofSorted: sorted)
    }

    /// The indices AltBeacon averages among `count` sorted samples.
    static func keptRange(count: Int) -> Range<Int> {
        guard count > 2 else { return 0..<count }
        let cut = count / 10 + 1
        return cut..<(count - cut)
    }

    static func trimmedMean(ofSorted sorted: [Double]) -> Double? {
        let kept = keptRange(count: sorted.count)
        guard !kept.isEmpty else { return nil }
        var sum = 0.0
        for index in kept { sum += sorted[index] }
        return sum / Double(kept.count)
    }
}
