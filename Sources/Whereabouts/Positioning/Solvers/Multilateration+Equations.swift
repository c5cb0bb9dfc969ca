extension Multilateration {
    /// The weighted linear least-squares solution of the circle equations |p − cᵢ|² = rᵢ² with
    /// the weighted mean equation subtracted (the radical centre of all circles), accumulated in one pass.
    ///
    /// The sums are kept in two lanes, one per range of a pair (see ``Multilateration/PackedRanges``),
    /// and added when solving.
    struct LinearSystem {
        typealias Lanes = SIMD2<Double>
        var w = Lanes(), wx = Lanes(), wy = Lanes(), wq = Lanes()
        var wxx = Lanes(), wxy = Lanes(), wyy = Lanes(), wxq = Lanes(), wyq = Lanes()

        /// Adds, in each lane, the circle of centre (`x`, `y`) and radius √`squaredRadius` with
        /// weight `weight`.
        mutating func add(x: Lanes, y: Lanes, squaredRadius: Lanes, weight: Lanes) {
            let q = (x * x + y * y - squaredRadius) / 2
            w += weight
            wx += weight * x
            wy += weight * y
            wq += weight * q
            wxx += weight * x * x
            wxy += weight * x * y
            wyy += weight * y * y
            wxq += weight * x * q
            wyq += weight * y * q
        }

        /// The solution, or `nil` when the centres are (nearly) collinear.
        func solution() -> PlanarPoint? {
            let w = w.sum()
            guard w > 0 else { return nil }
            let mx = wx.sum() / w, my = wy.sum() / w, mq = wq.sum() / w
            let sxx = wxx.sum() - w * mx * mx, sxy = wxy.sum() - w * mx * my, syy = wyy.sum() - w * my * my
            let bx = wxq.sum() - w * mx * mq, by = wyq.sum() - w * my * mq
            let det = sxx * syy - sxy * sxy
            guard det > 1e-9 * max(sxx * syy, 1e-300) else { return nil }
            let point = PlanarPoint(x: (syy * bx - sxy * by) / det, y: (sxx * by - sxy * bx) / det)
            return point.x.isFinite && point.y.isFinite ? point : nil
        }
    }

    /// The normal equations and robust cost at a point.
    struct NormalEquations {
        var cost = 0.0, chiSquare = 0.0
        /// Whether every robust weight was 1, so that these are also the plain least-squares sums.
        var isPlain = true
        var hxx = 0.0, hxy = 0.0, hyy = 0.0, hxz = 0.0, hyz = 0.0, hzz = 0.0
        var gx = 0.0, gy = 0.0, gz = 0.0

        /// The Levenberg–Marquardt step solving (H + λ·diag H)δ = −g, or `nil` when singular.
        @inline(__always)
        func step(lambda: Double, spatial: Bool) -> (x: Double, y: Double, z: Double)? {
            let ridge = 1e-12 * (hxx + hyy + hzz)
            let a = hxx * (1 + lambda) + ridge, c = hyy * (1 + lambda) + ridge, b = hxy
            if !spatial {
                let det = a * c - b * b
                guard det > 0, det.isFinite else { return nil }
                let sx = -(c * gx - b * gy) / det, sy = -(a * gy - b * gx) / det
                return sx.isFinite && sy.isFinite ? (sx, sy, 0) : nil
            }
            let f = hzz * (1 + lambda) + ridge, d = hxz, e = hyz
            // Symmetric [[a b d] [b c e] [d e f]], inverse by cofactors.
            let c00 = c * f - e * e, c01 = d * e - b * f, c02 = b * e - c * d
            let c11 = a * f - d * d, c12 = b * d - a * e, c22 = a * c - b * b
            let det = a * c00 + b * c01 + d * c02
            guard det > 0, det.isFinite else { return nil }
            let sx = -(c00 * gx + c01 * gy + c02 * gz) / det
            let sy = -(c01 * gx + c11 * gy + c12 * gz) / det
            let sz = -(c02 * gx + c12 * gy + c22 * gz) / det
            return sx.isFinite && sy.isFinite && sz.isFinite ? (sx, sy, sz) : nil
        }

        /// The diagonal x and y entries of H⁻¹ (the marginal variances), or `nil` when singular.
        func planarVariances(spatial: Bool) -> (Double, Double)? {
            if !spatial {
                let det = hxx * hyy - hxy * hxy
                guard det > 1e-12 * hxx * hyy, det > 0 else { return nil }
                return (hyy / det, hxx / det)
            }
            let c00 = hyy * hzz - hyz * hyz, c11 = hxx * hzz - hxz * hxz
            let det = hxx * c00 + hxy * (hxz * hyz - hxy * hzz) + hxz * (hxy * hyz - hyy * hxz)
            guard det > 1e-12 * hxx * hyy * hzz, det > 0 else { return nil }
            return (c00 / det, c11 / det)
        }
    }
}
