import Foundation

/// `log P(z) = log(m + (1 − m)·Φ(z))` tabulated over z (step 0.02 over ±10, linear between),
/// so that a shifted detection floor costs a lookup, not an `erfc`; with its first and second
/// derivatives in z, `g = (1 − m)·φ(z)/P` and `h = −g·(z + g)`, for the offset's Newton step.
struct UnheardTable: Sendable {
    let values: [Float]
    /// g and h, interleaved.
    let derivativeValues: [Float]
    /// log P, g and h, interleaved.
    let terms: [Float]
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
        var terms: [Float] = []
        terms.reserveCapacity(3 * count)
        for index in 0..<count {
            terms.append(values[index])
            terms.append(derivatives[2 * index])
            terms.append(derivatives[2 * index + 1])
        }
        self.terms = terms
    }

    /// g and h at z (nearest tabulated point; 0 beyond the table).
    func derivatives(at z: Float) -> (g: Float, h: Float) {
        derivativeValues.withUnsafeBufferPointer { Self.derivatives(at: z, in: $0) }
    }

    /// log P at z (linear between tabulated points; the ends beyond the table).
    func value(at z: Float) -> Float {
        values.withUnsafeBufferPointer { Self.value(at: z, in: $0) }
    }

    /// ``derivatives(at:)`` read from the table's ``derivativeValues`` (a loop over cells holds
    /// them once, unchecked).
    @inline(__always)
    static func derivatives(at z: Float, in derivatives: UnsafeBufferPointer<Float>) -> (g: Float, h: Float) {
        guard z > -limit, z < limit else { return (0, 0) }   // NaN fails both
        // Positive, so truncating half a step up rounds to the nearest.
        let index = 2 * Int((z + limit) / step + 0.5)
        return (derivatives[index], derivatives[index + 1])
    }

    /// log P, g and h at z read from the table's ``terms``: g and h at the nearest tabulated
    /// point, log P from there along g (within ½·|h|·0.01² of it); beyond the table the end's
    /// log P and no slope.
    @inline(__always)
    static func terms(at z: Float, in terms: UnsafeBufferPointer<Float>) -> (value: Float, g: Float, h: Float) {
        guard z > -limit else { return (terms[0], 0, 0) }   // NaN too
        guard z < limit else { return (terms[terms.count - 3], 0, 0) }
        let index = Int((z + limit) / step + 0.5)
        // In the table (z within it), so the sums cannot overflow: unchecked.
        let at = 3 &* index
        let g = terms[at &+ 1]
        return (terms[at] + g * (z - (Float(index) * step - limit)), g, terms[at &+ 2])
    }

    /// ``value(at:)`` read from the table's ``values``.
    @inline(__always)
    static func value(at z: Float, in values: UnsafeBufferPointer<Float>) -> Float {
        guard z.isFinite else { return z > 0 ? values[values.count - 1] : values[0] }
        let position = (min(max(z, -limit), limit) + limit) / step
        let lower = min(Int(position), values.count - 2)
        let fraction = position - Float(lower)
        return values[lower] + (values[lower + 1] - values[lower]) * fraction
    }
}
