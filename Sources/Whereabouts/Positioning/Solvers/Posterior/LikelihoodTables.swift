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

    /// Adds one unheard beacon's terms at `cells` — at each, z = (floor − mean − offset)/σ —
    /// to `logs` (log P), `gradient` (−g/σ) and `curvature` (h/σ²), each cell's values as
    /// ``terms(at:in:)`` gives them (a z beyond the table, or NaN, read at the table's end
    /// with no slope). In three passes, so that only the table's reads go cell by cell: each z
    /// and its nearest point eight cells at a time, the table read cell by cell, the sums eight
    /// cells at a time; `scratch` holds five `Float`s a cell.
    @inline(__always)
    static func accumulate(cells: Range<Int>, floor: Float, means: UnsafeBufferPointer<Float>,
                           inverses: UnsafeBufferPointer<Float>, offsets: UnsafeMutableBufferPointer<Float>,
                           terms: UnsafeBufferPointer<Float>, logs: UnsafeMutableBufferPointer<Float>,
                           gradient: UnsafeMutableBufferPointer<Float>, curvature: UnsafeMutableBufferPointer<Float>,
                           scratch: UnsafeMutableBufferPointer<Float>) {
        typealias Lanes = SIMD8<Float>
        let length = cells.count & ~7, whole = cells.lowerBound + length
        if length > 0, let meanBase = means.baseAddress, let inverseBase = inverses.baseAddress,
           let offsetBase = offsets.baseAddress, let logBase = logs.baseAddress,
           let gradientBase = gradient.baseAddress, let curvatureBase = curvature.baseAddress,
           let table = terms.baseAddress, terms.count >= 3, let base = scratch.baseAddress,
           scratch.count >= 5 * length {
            let lastPoint = Float(terms.count / 3 - 1)
            // z clamped to the table (at an end exactly: below it or NaN, above it), its
            // nearest point; the point's log P, g and h.
            let clampedZ = base, points = base + length, values = base + 2 * length
            let slopes = base + 3 * length, bends = base + 4 * length
            var cell = cells.lowerBound
            while cell < whole {
                let inverse = UnsafeRawPointer(inverseBase + cell).loadUnaligned(as: Lanes.self)
                let mean = UnsafeRawPointer(meanBase + cell).loadUnaligned(as: Lanes.self)
                let offset = UnsafeRawPointer(offsetBase + cell).loadUnaligned(as: Lanes.self)
                let z = (floor - mean - offset) * inverse
                let below = .!(z .> -limit), above = .!(z .< limit) .& .!below
                var clamped = z
                clamped.replace(with: -limit, where: below)
                clamped.replace(with: limit, where: above)
                // Positive and at most the last point and a half: truncated (cell by cell,
                // below), half a step up rounds to the nearest point.
                var nearest = (clamped + limit) / step + 0.5
                nearest.replace(with: 0, where: below)
                nearest.replace(with: lastPoint, where: above)
                let at = cell - cells.lowerBound
                UnsafeMutableRawPointer(clampedZ + at).storeBytes(of: clamped, as: Lanes.self)
                UnsafeMutableRawPointer(points + at).storeBytes(of: nearest, as: Lanes.self)
                cell += 8
            }
            for index in 0..<length {
                let point = Int(points[index])
                let at = 3 &* point
                points[index] = Float(point)
                values[index] = table[at]
                slopes[index] = table[at &+ 1]
                bends[index] = table[at &+ 2]
            }
            cell = cells.lowerBound
            while cell < whole {
                let at = cell - cells.lowerBound
                let inverse = UnsafeRawPointer(inverseBase + cell).loadUnaligned(as: Lanes.self)
                let clamped = UnsafeRawPointer(clampedZ + at).loadUnaligned(as: Lanes.self)
                let point = UnsafeRawPointer(points + at).loadUnaligned(as: Lanes.self)
                var g = UnsafeRawPointer(slopes + at).loadUnaligned(as: Lanes.self)
                var h = UnsafeRawPointer(bends + at).loadUnaligned(as: Lanes.self)
                // At an end of the table: no slope.
                let outside = (clamped .== -limit) .| (clamped .== limit)
                g.replace(with: 0, where: outside)
                h.replace(with: 0, where: outside)
                let value = UnsafeRawPointer(values + at).loadUnaligned(as: Lanes.self) + g * (clamped - (point * step - limit))
                let logsAt = UnsafeMutableRawPointer(logBase + cell)
                let gradientAt = UnsafeMutableRawPointer(gradientBase + cell)
                let curvatureAt = UnsafeMutableRawPointer(curvatureBase + cell)
                logsAt.storeBytes(of: logsAt.loadUnaligned(as: Lanes.self) + value, as: Lanes.self)
                gradientAt.storeBytes(of: gradientAt.loadUnaligned(as: Lanes.self) - g * inverse, as: Lanes.self)
                curvatureAt.storeBytes(of: curvatureAt.loadUnaligned(as: Lanes.self) + h * inverse * inverse,
                                       as: Lanes.self)
                cell += 8
            }
        }
        // The rest (or every cell without the scratch space) one by one.
        let rest = length > 0 && scratch.count >= 5 * length ? whole : cells.lowerBound
        for cell in rest..<cells.upperBound {
            let inverse = inverses[cell]
            let (value, g, h) = Self.terms(at: (floor - means[cell] - offsets[cell]) * inverse, in: terms)
            logs[cell] += value
            gradient[cell] -= g * inverse
            curvature[cell] += h * inverse * inverse
        }
    }
}
