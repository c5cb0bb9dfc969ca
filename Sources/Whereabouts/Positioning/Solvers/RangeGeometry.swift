/// A beacon's range as a circle on the plan of the receiver: centre, planar radius and the
/// range's standard deviation (all venue units).
struct RangeCircle: Hashable, Sendable {
    var x: Double
    var y: Double
    var radius: Double
    var sigma: Double
}

/// What the range-based solvers share: which ranges are usable, picking a well-shaped triple,
/// bounding answers to the venue and the accuracy radius of a point.
enum RangeGeometry {
    /// Ranges and positions beyond this many venue units are treated as this far (keeps squares finite).
    static let largest = 1e6
    /// Standard deviations are kept within these limits, venue units, so that 1/σ² stays finite and non-zero.
    static let sigmaLimits = (lower: 1e-3, upper: 1e6)
    /// Radius of the 68 % circle of a circular 2-D Gaussian, in standard deviations: sqrt(−2 ln 0.32).
    static let circular68 = 1.5096
    /// A triple is well shaped when its triangle's height over its longest side is at least this.
    static let minimumFlatness = 0.1
    /// How many of the most certain ranges the triple search considers.
    static let tripleCandidates = 8

    /// Whether a range can be used: on the observation's floor (when set), finite distance,
    /// uncertainty and position, not negative.
    @inline(__always)
    static func isUsable(_ range: BeaconRange, floor: Int?) -> Bool {
        if let floor, range.floor != floor { return false }
        // A comparison with NaN is false, and abs(±∞) is not below `largest`: each coordinate's
        // bound is also its finiteness check.
        return range.distance.isFinite && range.distance >= 0
            && range.standardDeviation.isFinite && range.standardDeviation >= 0
            && abs(range.position.x) < largest && abs(range.position.y) < largest && abs(range.position.z) < largest
    }

    /// A range's standard deviation within ``sigmaLimits``.
    @inline(__always)
    static func sigma(_ range: BeaconRange) -> Double {
        min(max(range.standardDeviation, sigmaLimits.lower), sigmaLimits.upper)
    }

    /// The range as a circle on the receiver's plan (planar distance at the venue's receiver height).
    @inline(__always)
    static func circle(_ range: BeaconRange, receiverHeight: Double) -> RangeCircle {
        let planar = range.planarDistance(receiverHeight: receiverHeight)
        return RangeCircle(x: range.position.x, y: range.position.y,
                           radius: planar.isFinite ? min(planar, largest) : largest, sigma: sigma(range))
    }

    /// The region answers must lie in: the venue's bounds, or, for a venue without placed beacons,
    /// the extent of the usable ranges' beacons grown by the venue's margin.
    static func bounds(_ venue: PositioningVenue, _ observation: Observation) -> PositioningVenue.Extent? {
        if let bounds = venue.bounds { return bounds }
        var extent: PositioningVenue.Extent?
        for range in observation.ranges where isUsable(range, floor: observation.floor) {
            let p = range.position
            if var e = extent {
                e.minX = min(e.minX, p.x); e.maxX = max(e.maxX, p.x)
                e.minY = min(e.minY, p.y); e.maxY = max(e.maxY, p.y)
                extent = e
            } else {
                extent = PositioningVenue.Extent(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y)
            }
        }
        return extent?.inset(by: venue.margin)
    }

    /// The length of the bounds' diagonal: the largest accuracy radius worth reporting.
    static func diagonal(_ bounds: PositioningVenue.Extent) -> Double {
        let w = bounds.maxX - bounds.minX, h = bounds.maxY - bounds.minY
        return (w * w + h * h).squareRoot()
    }

    /// The policy of the three-circle solvers: a point more than `margin` outside `bounds` (or not
    /// finite) is rejected, as such a point comes from inconsistent ranges, not from the receiver;
    /// a point nearer than that is clamped onto the bounds.
    static func bounded(_ point: PlanarPoint, in bounds: PositioningVenue.Extent, margin: Double) -> PlanarPoint? {
        guard point.x.isFinite, point.y.isFinite, bounds.inset(by: margin).contains(point) else { return nil }
        return bounds.clamped(point)
    }

    /// The most certain well-shaped triple of usable ranges: among the ``tripleCandidates`` ranges
    /// with the lowest standard deviation, the triple with the smallest sum of standard deviations
    /// whose triangle is not flat (height over longest side at least ``minimumFlatness``).
    /// `nil` with fewer than three usable ranges or when every triple is (nearly) collinear.
    static func bestTriple(_ observation: Observation, receiverHeight: Double) -> (RangeCircle, RangeCircle, RangeCircle)? {
        withUnsafeTemporaryAllocation(of: RangeCircle.self, capacity: tripleCandidates) { buffer in
            // Keep the candidates sorted by sigma (insertion, stable: ties keep the shorter range first).
            var count = 0
            for range in observation.ranges where isUsable(range, floor: observation.floor) {
                let circle = circle(range, receiverHeight: receiverHeight)
                if count == tripleCandidates, circle.sigma >= buffer[count - 1].sigma { continue }
                var slot = count < tripleCandidates ? count : count - 1
                if count < tripleCandidates {
                    buffer.initializeElement(at: count, to: circle)
                    count += 1
                }
                while slot > 0, buffer[slot - 1].sigma > circle.sigma {
                    buffer[slot] = buffer[slot - 1]
                    slot -= 1
                }
                buffer[slot] = circle
            }
            defer { _ = buffer.prefix(count).deinitialize() }
            guard count >= 3 else { return nil }
            var best: (RangeCircle, RangeCircle, RangeCircle)?
            var bestCost = Double.infinity
            for i in 0..<(count - 2) {
                for j in (i + 1)..<(count - 1) {
                    for k in (j + 1)..<count {
                        let a = buffer[i], b = buffer[j], c = buffer[k]
                        let cost = a.sigma + b.sigma + c.sigma
                        guard cost < bestCost, isWellShaped(a, b, c) else { continue }
                        best = (a, b, c)
                        bestCost = cost
                    }
                }
            }
            return best
        }
    }

    /// Whether the centres of three circles make a triangle whose height over its longest side is
    /// at least ``minimumFlatness`` (collinear or coincident centres do not).
    static func isWellShaped(_ a: RangeCircle, _ b: RangeCircle, _ c: RangeCircle) -> Bool {
        let abx = b.x - a.x, aby = b.y - a.y, acx = c.x - a.x, acy = c.y - a.y, bcx = c.x - b.x, bcy = c.y - b.y
        let longest = max(abx * abx + aby * aby, acx * acx + acy * acy, bcx * bcx + bcy * bcy)
        let cross = abs(abx * acy - aby * acx)   // twice the area = longest side × height
        return longest > 1e-18 && cross >= minimumFlatness * longest
    }

    /// The accuracy radius at `point` for three circles: the 68 % radius of the position covariance
    /// that the range uncertainties give through the geometry (linearised, (JᵀWJ)⁻¹ with the unit
    /// vectors from the beacons as J and W = 1/σ²), combined in quadrature with the root mean square
    /// of the circles' misfit at the point; at most `cap`.
    static func accuracy(at point: PlanarPoint, _ a: RangeCircle, _ b: RangeCircle, _ c: RangeCircle, cap: Double) -> Double {
        var hxx = 0.0, hxy = 0.0, hyy = 0.0, misfit = 0.0
        func add(_ circle: RangeCircle) {
            let dx = point.x - circle.x, dy = point.y - circle.y
            let distance = (dx * dx + dy * dy).squareRoot()
            let residual = distance - circle.radius
            misfit += residual * residual
            guard distance > 1e-12 else { return }
            let ux = dx / distance, uy = dy / distance, w = 1 / (circle.sigma * circle.sigma)
            hxx += w * ux * ux
            hxy += w * ux * uy
            hyy += w * uy * uy
        }
        add(a)
        add(b)
        add(c)
        let radius = circularRadius(hxx: hxx, hxy: hxy, hyy: hyy)
        let combined = (radius * radius + misfit / 3).squareRoot()
        return combined.isFinite ? min(combined, cap) : cap
    }

    /// The 68 % circle radius of the covariance `H⁻¹` of a 2×2 information matrix H:
    /// 1.5096·sqrt((σx² + σy²)/2); infinity when H is singular.
    @inline(__always)
    static func circularRadius(hxx: Double, hxy: Double, hyy: Double) -> Double {
        let determinant = hxx * hyy - hxy * hxy
        guard determinant > 1e-12 * max(hxx * hyy, 1e-300) else { return .infinity }
        // (H⁻¹)xx + (H⁻¹)yy = (hyy + hxx)/det
        let trace = (hxx + hyy) / determinant
        return circular68 * (trace / 2).squareRoot()
    }
}
