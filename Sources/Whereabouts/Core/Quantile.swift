/// Quantiles of samples, interpolated linearly between order statistics (NumPy's default), so
/// that figures match the baselines'. Used by the solvers' calibrations and by the evaluation.
///
/// ```swift
/// Quantile.ofSorted([1, 2, 3, 4], 0.5)   // 2.5
/// ```
enum Quantile {
    /// The `q` quantile (0…1) of values sorted in increasing order; NaN when there are none.
    static func ofSorted(_ sorted: [Double], _ q: Double) -> Double {
        guard sorted.count > 1 else { return sorted.first ?? .nan }
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }
}
