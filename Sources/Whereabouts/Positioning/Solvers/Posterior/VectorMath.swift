/// Branch-free `Float` functions for the likelihood's loops over cells: written in arithmetic,
/// comparisons that select and bit patterns, with no calls and no traps, so that a loop of them
/// runs four or eight cells at once.
enum VectorMath {
    /// eʸ for y ≤ 0 (taken as −87 below; finite), within 10⁻⁶ of it relatively for y ≥ −10:
    /// y·log₂e = n + f with n the nearest integer, eʸ = 2ⁿ · e^(f·ln 2), 2ⁿ built from its bits
    /// and e^(f·ln 2), |f·ln 2| ≤ ½·ln 2, by its Taylor series to degree 7.
    @inline(__always)
    static func exp(_ y: Float) -> Float {
        let t = max(y, -87) * 1.442_695_04
        // 1.5·2²³ added rounds t to an integer held in the low bits of the sum.
        let shifted = t + 12_582_912
        let n = shifted - 12_582_912
        let r = (t - n) * 0.693_147_18
        // Estrin's scheme: the terms in pairs, so that the loop's cells do not wait on a chain.
        let r2 = r * r, r4 = r2 * r2
        let low = (1 + r) + r2 * (0.5 + r * (1.0 / 6))
        let high = (1.0 / 24 + r * (1.0 / 120)) + r2 * (1.0 / 720 + r * (1.0 / 5040))
        let polynomial = low + r4 * high
        let exponent = Int32(bitPattern: shifted.bitPattern) &- 0x4B40_0000 &+ 127
        return polynomial * Float(bitPattern: UInt32(bitPattern: exponent &<< 23))
    }

    /// log(1 + u) for u in 0…1, within 3·10⁻⁷: `2·atanh(s)` with `s = u/(2 + u) ≤ ⅓`, its series
    /// to s¹¹.
    @inline(__always)
    static func log1p(_ u: Float) -> Float {
        let s = u / (2 + u), s2 = s * s, s4 = s2 * s2
        // Estrin's scheme, as in exp.
        let series = (1 + s2 * (1.0 / 3)) + s4 * ((1.0 / 5 + s2 * (1.0 / 7)) + s4 * (1.0 / 9 + s2 * (1.0 / 11)))
        return 2 * s * series
    }

    /// softplus(x) = log(1 + eˣ) = max(x, 0) + log(1 + e^(−|x|)), within 10⁻⁶ (x finite).
    ///
    /// A heard beacon's log-density without an `exp` and a `log` call per cell: with the
    /// Gaussian's weight `a = (1 − ε)/√(2π)` and the uniform's `t = ε/W`,
    /// `log(a·e^(−z²/2)/σ + t) = log t + softplus(log(a/t) − log σ − z²/2)`.
    @inline(__always)
    static func softplus(_ x: Float) -> Float {
        max(x, 0) + log1p(exp(-abs(x)))
    }

    /// The sum of `values`, eight lanes at a time then the lanes together: where a loop adding
    /// one value after another waits on each addition before the next (a `Float` sum the
    /// compiler may not reorder), these run side by side. Within a few units in the last place
    /// of the sum in order for values of one sign.
    static func sum(_ values: [Float]) -> Float {
        values.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            let count = buffer.count, whole = count & ~7
            var lanes = SIMD8<Float>()
            var index = 0
            while index < whole {
                lanes += UnsafeRawPointer(base + index).loadUnaligned(as: SIMD8<Float>.self)
                index += 8
            }
            var total = lanes.sum()
            while index < count {
                total += buffer[index]
                index += 1
            }
            return total
        }
    }

    /// The largest of `values` that is a number, −∞ for none: eight lanes at a time, each
    /// keeping the larger of itself and the next value (a NaN never larger), then the lanes
    /// and the rest. The same value as a loop over them one by one (a maximum is exact).
    static func largest(_ values: [Float]) -> Float {
        values.withUnsafeBufferPointer { largest(in: $0) }
    }

    /// The largest of `values` that is a number, −∞ for none (see ``largest(_:)``).
    static func largest(in values: UnsafeBufferPointer<Float>) -> Float {
        guard let base = values.baseAddress else { return -.infinity }
        return largest(count: values.count,
                       eight: { UnsafeRawPointer(base + $0).loadUnaligned(as: SIMD8<Float>.self) },
                       one: { base[$0] })
    }

    /// The largest that is a number of `count` values, −∞ for none, read eight at a time from
    /// `eight(index)` (the values from `index` on) and the last ones alone from `one(index)`:
    /// values computed where they are read, not kept (``largest(in:)``, the filter's largest
    /// evidence). Each lane keeps the larger of itself and the next value (a NaN never
    /// larger), then the lanes and the rest: the same value as a loop one by one.
    @inline(__always)
    static func largest(count: Int, eight: (Int) -> SIMD8<Float>, one: (Int) -> Float) -> Float {
        let whole = count & ~7
        var lanes = SIMD8<Float>(repeating: -.infinity)
        var index = 0
        while index < whole {
            let next = eight(index)
            lanes.replace(with: next, where: next .> lanes)
            index += 8
        }
        var top = -Float.infinity
        for lane in 0..<8 where lanes[lane] > top { top = lanes[lane] }
        while index < count {
            let value = one(index)
            if value > top { top = value }
            index += 1
        }
        return top
    }
}
