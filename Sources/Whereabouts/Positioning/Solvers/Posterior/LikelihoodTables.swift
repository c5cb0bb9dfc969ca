import Foundation

/// `log P(z) = log(m + (1 − m)·Φ(z))` tabulated over z (step 0.02 over ±10) with its first and
/// second derivatives in z, `g = (1 − m)·φ(z)/P` and `h = −g·(z + g)`, interleaved: the unheard
/// beacons' term and the offset's Newton step from one lookup, not an `erfc` per cell.
struct UnheardTable: Sendable {
    /// log P, g and h at each tabulated z, interleaved.
    let terms: [Float]
    static let step: Float = 0.02, limit: Float = 10

    init(likelihood: ScanLikelihood) {
        let count = Int(2 * Self.limit / Self.step) + 1
        let miss = min(max(likelihood.missProbability, 0), 1)
        var terms: [Float] = []
        terms.reserveCapacity(3 * count)
        for index in 0..<count {
            let z = Double(-Self.limit + Float(index) * Self.step)
            let value = miss + (1 - miss) * ScanLikelihood.distribution(z)
            let g = value > 0 ? (1 - miss) * ScanLikelihood.density(z) / value : 0
            terms.append(Float(value > 0 ? log(value) : -745))
            terms.append(Float(g))
            terms.append(Float(-g * (z + g)))
        }
        self.terms = terms
    }

    /// log P, g and h at z (see ``terms(at:in:)``).
    func terms(at z: Float) -> (value: Float, g: Float, h: Float) {
        terms.withUnsafeBufferPointer { Self.terms(at: z, in: $0) }
    }

    /// log P, g and h at z read from a table's ``terms`` (a loop over cells holds them once,
    /// unchecked): g and h at the nearest tabulated point, log P from there along g (within
    /// ½·|h|·0.01² of it); beyond the table the end's log P and no slope.
    @inline(__always)
    static func terms(at z: Float, in terms: UnsafeBufferPointer<Float>) -> (value: Float, g: Float, h: Float) {
        guard z > -limit else { return (terms[0], 0, 0) }   // NaN too
        guard z < limit else { return (terms[terms.count - 3], 0, 0) }
        // Positive, so truncating half a step up rounds to the nearest; in the table, so the
        // sums cannot overflow: unchecked.
        let index = Int((z + limit) / step + 0.5)
        let at = 3 &* index
        let g = terms[at &+ 1]
        return (terms[at] + g * (z - (Float(index) * step - limit)), g, terms[at &+ 2])
    }
}
