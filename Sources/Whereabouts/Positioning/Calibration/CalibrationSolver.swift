/// The numerical core of ``Calibration``: a weighted (optionally penalised) least-squares fit of
/// the log-distance model `rssi = A − 10·n·x` with `x = log10(d)`, and the iteratively
/// reweighted loop around it.
///
/// Everything here is internal and works on plain arrays so that the same code fits the whole
/// venue (no prior, scale estimated from the residuals) and each beacon (a Gaussian prior centred
/// on the venue fit, scale fixed at the venue's).
enum CalibrationSolver {
    /// Huber's tuning constant: 95 % efficiency under Gaussian noise.
    static let huberK = 1.345
    /// Tukey's bisquare tuning constant: 95 % efficiency under Gaussian noise.
    static let tukeyC = 4.685
    /// MAD → σ for Gaussian noise.
    static let madToSigma = 1.4826
    static let maximumIterations = 200

    /// A Gaussian prior on (A, n), expressed as the penalty weights σ²/τ² of the objective
    /// Σ wᵢ rᵢ² + λ_A (A − A₀)² + λ_n (n − n₀)².
    struct Prior {
        var txPower: Double
        var exponent: Double
        var txPowerWeight: Double
        var exponentWeight: Double
    }

    struct Estimate: Equatable {
        var txPower: Double
        var exponent: Double
        var status: CalibrationResult.ExponentStatus
    }

    /// The sums of the 2×2 normal equations [s0 s1; s1 s2]·(A, n) = (t0, t1), with t = −10·x.
    struct NormalEquations {
        var s0 = 0.0, s1 = 0.0, s2 = 0.0, t0 = 0.0, t1 = 0.0

        init(x: [Double], y: [Double], weights: [Double], prior: Prior?) {
            for i in x.indices {
                let w = weights[i]
                guard w > 0 else { continue }
                let t = -10 * x[i]
                s0 += w
                s1 += w * t
                s2 += w * t * t
                t0 += w * y[i]
                t1 += w * t * y[i]
            }
            if let prior {
                s0 += prior.txPowerWeight
                t0 += prior.txPowerWeight * prior.txPower
                s2 += prior.exponentWeight
                t1 += prior.exponentWeight * prior.exponent
            }
        }

        var determinant: Double { s0 * s2 - s1 * s1 }

        /// Whether n can be told apart from A: the determinant is not lost in rounding.
        var identifiesExponent: Bool { s2 > 0 && determinant > 1e-9 * s0 * s2 }
    }

    /// One weighted solve. `fixedExponent` holds n (not identifiable); otherwise n is solved for,
    /// falling back to `fallbackExponent` when singular, and clamped to `range`.
    static func solve(x: [Double], y: [Double], weights: [Double], prior: Prior?,
                      fixedExponent: Double?, fallbackExponent: Double,
                      range: ClosedRange<Double>) -> Estimate? {
        let sums = NormalEquations(x: x, y: y, weights: weights, prior: prior)
        guard sums.s0 > 0 else { return nil }
        func holding(_ n: Double, _ status: CalibrationResult.ExponentStatus) -> Estimate {
            // ∂/∂A of the objective with n fixed: A·s0 = t0 − n·s1.
            Estimate(txPower: (sums.t0 - sums.s1 * n) / sums.s0, exponent: n, status: status)
        }
        if let fixedExponent { return holding(fixedExponent, .fixed) }
        guard sums.identifiesExponent else { return holding(fallbackExponent, .fixed) }
        let det = sums.determinant
        let n = (sums.s0 * sums.t1 - sums.s1 * sums.t0) / det
        guard n.isFinite else { return holding(fallbackExponent, .fixed) }
        if n < range.lowerBound { return holding(range.lowerBound, .clamped) }
        if n > range.upperBound { return holding(range.upperBound, .clamped) }
        return Estimate(txPower: (sums.t0 * sums.s2 - sums.s1 * sums.t1) / det, exponent: n, status: .fitted)
    }

    struct Outcome {
        var estimate: Estimate
        /// The final weights of the samples (1 for least squares).
        var weights: [Double]
        /// The residual scale the robust weights were computed with (dB).
        var scale: Double
        /// Each receiver's RSSI offset δ (dB) that was subtracted from its samples before the fit,
        /// empty when none was (see ``Calibration``'s discussion of device offsets).
        var receiverOffsets: [Double] = []
    }

    /// Iteratively reweighted least squares.
    ///
    /// - least squares: one solve with unit weights;
    /// - Huber: IRLS with Huber weights; the scale is re-estimated from the MAD of the residuals at
    ///   each step unless `fixedScale` is given;
    /// - Tukey: the Huber fit (a convex problem, so its start does not matter) then IRLS with
    ///   bisquare weights at the Huber fit's final scale, as an MM-estimator does. The bisquare
    ///   gives gross outliers zero weight, which Huber's bounded-but-nonzero weights do not.
    ///
    /// The scale never goes below `noiseFloor`.
    static func fit(x: [Double], y: [Double], loss: Calibration.Loss, prior: Prior?, fixedScale: Double?,
                    noiseFloor: Double, fixedExponent: Double?, fallbackExponent: Double,
                    range: ClosedRange<Double>) -> Outcome? {
        var weights = [Double](repeating: 1, count: x.count)
        guard var current = solve(x: x, y: y, weights: weights, prior: prior, fixedExponent: fixedExponent,
                                  fallbackExponent: fallbackExponent, range: range)
        else { return nil }
        var scale = fixedScale ?? max(robustSigma(residuals(x: x, y: y, current)), noiseFloor)
        guard loss != .leastSquares else { return Outcome(estimate: current, weights: weights, scale: scale) }

        for _ in 0..<maximumIterations {
            let r = residuals(x: x, y: y, current)
            if fixedScale == nil { scale = max(robustSigma(r), noiseFloor) }
            for i in r.indices {
                let u = abs(r[i]) / scale
                weights[i] = u <= huberK ? 1 : huberK / u
            }
            guard let next = solve(x: x, y: y, weights: weights, prior: prior, fixedExponent: fixedExponent,
                                   fallbackExponent: fallbackExponent, range: range)
            else { break }
            let converged = hasConverged(current, next)
            current = next
            if converged { break }
        }
        guard loss == .tukey else { return Outcome(estimate: current, weights: weights, scale: scale) }

        let huberWeights = weights
        let huberEstimate = current
        for _ in 0..<maximumIterations {
            let r = residuals(x: x, y: y, current)
            var kept = 0
            for i in r.indices {
                let u = r[i] / scale / tukeyC
                weights[i] = abs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0
                if weights[i] > 0 { kept += 1 }
            }
            // Without a prior, two points are needed to place a line; keep the Huber fit otherwise.
            guard prior != nil || kept >= 2,
                  let next = solve(x: x, y: y, weights: weights, prior: prior, fixedExponent: fixedExponent,
                                   fallbackExponent: fallbackExponent, range: range)
            else { return Outcome(estimate: huberEstimate, weights: huberWeights, scale: scale) }
            let converged = hasConverged(current, next)
            current = next
            if converged { break }
        }
        return Outcome(estimate: current, weights: weights, scale: scale)
    }

    static func hasConverged(_ a: Estimate, _ b: Estimate) -> Bool {
        abs(a.txPower - b.txPower) < 1e-7 && abs(a.exponent - b.exponent) < 1e-9
    }

    static func residuals(x: [Double], y: [Double], _ estimate: Estimate) -> [Double] {
        x.indices.map { y[$0] - (estimate.txPower - 10 * estimate.exponent * x[$0]) }
    }

    /// 1.4826 × the median absolute deviation from the median: σ for Gaussian data, unmoved by
    /// up to half of the values being outliers.
    static func robustSigma(_ values: [Double]) -> Double {
        guard let centre = median(values) else { return 0 }
        return madToSigma * (median(values.map { abs($0 - centre) }) ?? 0)
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func rootMeanSquare(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        return (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot()
    }

    /// Pearson's correlation of two series, or `nil` when either is constant.
    static func correlation(_ x: [Double], _ y: [Double]) -> Double? {
        guard x.count >= 2 else { return nil }
        let count = Double(x.count)
        let mx = x.reduce(0, +) / count, my = y.reduce(0, +) / count
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        for i in x.indices {
            let dx = x[i] - mx, dy = y[i] - my
            sxx += dx * dx
            syy += dy * dy
            sxy += dx * dy
        }
        guard sxx > 0, syy > 0 else { return nil }
        return sxy / (sxx * syy).squareRoot()
    }
}
