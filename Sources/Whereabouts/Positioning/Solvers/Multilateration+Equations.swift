extension Multilateration {
    /// The weighted linear least-squares solution of the circle equations |p − cᵢ|² = rᵢ² with
    /// the weighted mean equation subtracted (the radical centre of all circles), accumulated in one pass.
    struct LinearSystem {
        var w = 0.0, wx = 0.0, wy = 0.0, wq = 0.0
        var wxx = 0.0, wxy = 0.0, wyy = 0.0, wxq = 0.0, wyq = 0.0

        /// Adds a circle with weight `weight`.
        mutating func add(_ circle: RangeCircle, weight: Double) {
            let q = (circle.x * circle.x + circle.y * circle.y - circle.radius * circle.radius) / 2
            w += weight
            wx += weight * circle.x
            wy += weight * circle.y
            wq += weight * q
            wxx += weight * circle.x * circle.x
            wxy += weight * circle.x * circle.y
            wyy += weight * circle.y * circle.y
            wxq += weight * circle.x * q
            wyq += weight * circle.y * q
        }

        /// The solution, or `nil` when the centres are (nearly) collinear.
        func solution() -> PlanarPoint? {
            guard w > 0 else { return nil }
            let mx = wx / w, my = wy / w, mq = wq / w
            let sxx = wxx - w * mx * mx, sxy = wxy - w * mx * my, syy = wyy - w * my * my
            let bx = wxq - w * mx * mq, by = wyq - w * my * mq
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
