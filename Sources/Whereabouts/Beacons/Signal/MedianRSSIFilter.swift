/// The median of the samples of the last ``window`` seconds (15 by default) after rejecting
/// outliers by the interquartile range, in the manner of ESPresense.
///
/// At each read the samples in the window are sorted and their first and third quartiles `Q1`
/// and `Q3` computed; samples outside `[Q1 − k·IQR, Q3 + k·IQR]` (`IQR = Q3 − Q1`,
/// `k` = ``iqrMultiplier``, 1.5 by default, Tukey's fences) are dropped and the median of the rest
/// is returned (the mean of the two middle samples for an even count).
///
/// Quartiles interpolate linearly between order statistics (Hyndman–Fan type 7, as NumPy's and
/// R's defaults and Excel's `QUARTILE.INC`): with `n` sorted samples `s₀…sₙ₋₁`, the quantile `q`
/// sits at position `h = q·(n − 1)` and is `s⌊h⌋ + (h − ⌊h⌋)·(s⌊h⌋₊₁ − s⌊h⌋)`.
///
/// ```swift
/// var filter = MedianRSSIFilter()
/// for (second, rssi) in [-70.0, -71, -69, -72, -40].enumerated() {
///     filter.add(rssi: rssi, at: Double(second))
/// }
/// // sorted -72 -71 -70 -69 -40: Q1 = -71, Q3 = -69, fences [-74, -66] reject -40
/// print(filter.value as Any)   // -70.5
/// ```
///
/// A sample counts while it is younger than the window (`now − t < window`).
public struct MedianRSSIFilter: WindowedRSSIFilter, Hashable {
    /// The default window, 15 s.
    public static let defaultWindow = 15.0
    /// The default fence multiplier `k`, 1.5.
    public static let defaultIQRMultiplier = 1.5

    /// How long a sample counts, in seconds.
    public let window: Double
    /// The multiplier `k` of the interquartile range that places the fences.
    public let iqrMultiplier: Double
    var samples = TimedSamples()

    /// Creates a filter with a 15 s window and fences at 1.5 IQR.
    public init() {
        window = Self.defaultWindow
        iqrMultiplier = Self.defaultIQRMultiplier
    }

    /// Creates a filter, or `nil` unless the window is positive and finite and the multiplier
    /// finite and not negative.
    public init?(window: Double, iqrMultiplier: Double = MedianRSSIFilter.defaultIQRMultiplier) {
        guard window > 0, window.isFinite, iqrMultiplier >= 0, iqrMultiplier.isFinite else { return nil }
        self.window = window
        self.iqrMultiplier = iqrMultiplier
    }

    /// The fenced median of the samples that count, sorted (see ``WindowedRSSIFilter``).
    func filteredValue(ofSorted sorted: [Double]) -> Double? {
        Self.fencedMedian(ofSorted: sorted, k: iqrMultiplier)
    }

    /// The type-7 quantile `q` of sorted, non-empty values.
    static func quantile(_ q: Double, ofSorted sorted: [Double]) -> Double {
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted[lower] + fraction * (sorted[upper] - sorted[lower])
    }

    /// The median of sorted, non-empty values.
    static func median(ofSorted sorted: ArraySlice<Double>) -> Double {
        let middle = sorted.startIndex + sorted.count / 2
        if sorted.count % 2 == 1 { return sorted[middle] }
        return (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func fencedMedian(ofSorted sorted: [Double], k: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let q1 = quantile(0.25, ofSorted: sorted)
        let q3 = quantile(0.75, ofSorted: sorted)
        let spread = q3 - q1
        let low = q1 - k * spread
        let high = q3 + k * spread
        // The values are sorted, so the kept ones form one slice.
        let start = sorted.firstIndex { $0 >= low } ?? sorted.endIndex
        let end = sorted.lastIndex { $0 <= high }.map { $0 + 1 } ?? start
        guard start < end else { return median(ofSorted: sorted[...]) }
        return median(ofSorted: sorted[start..<end])
    }
}
