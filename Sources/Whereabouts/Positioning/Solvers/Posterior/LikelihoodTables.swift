import Foundation

/// `log P(z) = log(m + (1 − m)·Φ(z))` tabulated over z (step 0.02 over ±10, linear between),
/// so that a shifted detection floor costs a lookup, not an `erfc`; with its first and second
/// derivatives in z, `g = (1 − m)·φ(z)/P` and `h = −g·(z + g)`, for the offset's Newton step.
struct UnheardTable: Sendable {
    let values: [Float]
    /// g and h, interleaved.
    let derivativeValues: [Float]
    static let step: Float = 0.02, limit: Float = 10

    init(likelihood: ScanLikelihood) {
        let count = Int(2 * Self.limit / Self.step) + 1
        let miss = min(max(likelihood.missProbability, 0), 1)
        var values: [Float] = [], derivatives: [Float] = []
        values.reserveCapacity(count)
        derivatives.reserveCapacity(2 * count)
        for index in 0..<count {
            let z = Double(-Self.limit + Float(index) * Self.step)
            let value = miss + (1 - miss) * ScanLikelihood.distribution(z)
            values.append(Float(value > 0 ? log(value) : -745))
            let g = value > 0 ? (1 - miss) * ScanLikelihood.density(z) / value : 0
            derivatives.append(Float(g))
            derivatives.append(Float(-g * (z + g)))
        }
        self.values = values
        derivativeValues = derivatives
    }

    /// g and h at z (nearest tabulated point; 0 beyond the table).
    @inline(__always)
    func derivatives(at z: Float) -> (g: Float, h: Float) {
        guard z > -Self.limit, z < Self.limit else { return (0, 0) }   // NaN fails both
        // Positive, so truncating half a step up rounds to the nearest.
        let index = Int((z + Self.limit) / Self.step + 0.5)
        return (derivativeValues[2 * index], derivativeValues[2 * index + 1])
    }

    /// log P at z (linear between tabulated points; the ends beyond the table).
    @inline(__always)
    func value(at z: Float) -> Float {
        guard z.isFinite else { return z > 0 ? values[values.count - 1] : values[0] }
        let position = (min(max(z, -Self.limit), Self.limit) + Self.limit) / Self.step
        let lower = min(Int(position), values.count - 2)
        let fraction = position - Float(lower)
        return values[lower] + (values[lower + 1] - values[lower]) * fraction
    }
}

/// `softplus(x) = log(1 + eˣ)` tabulated over x (step 1/32 over ±24, linear between; x itself
/// above, 0 below, where the two differ from it by less than 10⁻¹⁰): a heard beacon's
/// log-density without an `exp` and a `log` per cell. With the Gaussian's weight
/// `a = (1 − ε)/√(2π)` and the uniform's `t = ε/W`,
/// `log(a·e^(−z²/2)/σ + t) = log t + softplus(log(a/t) − log σ − z²/2)`.
///
/// Linear interpolation errs by at most `step²/8 · max softplus″ = (1/32)²/8 · ¼ ≈ 3·10⁻⁵`.
struct SoftplusTable: Sendable {
    let values: [Float]
    static let step: Float = 1.0 / 32, limit: Float = 24

    init() {
        let count = Int(2 * Self.limit / Self.step) + 1
        values = (0..<count).map { index in
            let x = Double(-Self.limit) + Double(index) * Double(Self.step)
            return Float(x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)))
        }
    }

    /// softplus(x) (linear between tabulated points; x above the table, 0 below or for NaN).
    @inline(__always)
    func value(at x: Float) -> Float {
        if x >= Self.limit { return x }
        guard x > -Self.limit else { return 0 }   // NaN fails too
        let position = (x + Self.limit) * (1 / Self.step)
        let lower = min(Int(position), values.count - 2)
        let fraction = position - Float(lower)
        return values[lower] + (values[lower + 1] - values[lower]) * fraction
    }
}
