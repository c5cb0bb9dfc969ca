import Foundation

/// Robust weighted multilateration over every range heard: the point whose distances to the
/// beacons best fit the ranges, found by Levenberg–Marquardt with a robust loss (iteratively
/// reweighted least squares), kept inside the venue.
///
/// Each range gives a residual r = |p − b| − d (or, with ``Residual/logDistance``, ln|p − b| − ln d,
/// the RSSI residual of a log-distance model up to a constant), scaled by its standard deviation
/// σ (``Weighting/inverseVariance``: weight 1/σ², so far beacons, whose log-distance ranges are
/// less certain, count less). The loss of the scaled residual u = r/σ is ``Loss/huber``
/// (quadratic within 1.345, linear beyond), ``Loss/cauchy`` (c²/2·ln(1 + (u/c)²), c = 2.385) or
/// ``Loss/squared``. Distances are 3-D: the receiver sits at the venue's receiver height, or, with
/// ``Dimensions/automatic``, its height is solved for too when the venue knows its beacons' heights
/// and four or more of the ranges' beacons differ in height by at least a tenth of their spread on
/// the plan. Every step is clamped to the venue's bounds (in height: the beacons' heights and the
/// receiver height, plus the margin), so the answer is always inside them.
///
/// The iterations start from whichever fits the ranges better (lower robust cost): the
/// ``WeightedCentroid`` or the weighted linear least-squares solution of the circle equations (the
/// radical centre of all circles), which avoids most of the mirror minima that beacons along a
/// corridor leave on the far side of their line. A step that raises the cost is retried with the
/// damping λ at least 1 (about half the Gauss–Newton step), then tenfold for each further
/// rejection: from the usual small λ, a retried step would be nearly the one rejected.
/// At most ``Options/maximumIterations`` steps;
/// they stop when a step moves less than 1e-4 of the bounds' diagonal (3 mm in a 30 m hall, far
/// below any range's uncertainty; on noisy ranges, where Gauss–Newton converges linearly, that
/// halves the iterations), taking that step without evaluating the fit at its end, or when a step
/// gains less than 1e-12 of the cost.
///
/// The accuracy radius is the 68 % circle of the least-squares position covariance at the
/// solution, (JᵀΣ⁻¹J)⁻¹ with J the unit vectors from the beacons and Σ the ranges' variances:
/// 1.5096·sqrt((σx² + σy²)/2), the radius holding 68 % of a circular 2-D Gaussian. It is scaled by
/// the residual variance factor Σu²/(n − unknowns) when that exceeds 1 (the ranges disagree more
/// than their σ says; always with ``Weighting/uniform``), and it is at most the bounds' diagonal.
///
/// Fewer ranges degrade gracefully: with two, the point on the segment between the beacons that
/// divides it in the ratio of the ranges, with a radius of half the beacons' separation or the
/// circles' half chord (the larger) plus the larger σ; with one, the beacon itself, with the range
/// plus its σ as radius; with none, `nil`. The solver keeps a fixed-size state and allocates nothing
/// per call: the usable ranges are packed into a temporary buffer on the stack.
///
/// ```swift
/// let solver = Multilateration(venue: PositioningVenue(venue))
/// var locator = Locator(venue: solver.venue, solver: solver)
/// let fix = locator.locate(scan)
/// ```
public struct Multilateration: PositionSolver {
    /// How residuals beyond their standard deviation are penalised.
    public enum Loss: String, Hashable, Sendable, CaseIterable {
        /// Ordinary least squares.
        case squared
        /// Huber: quadratic up to the tuning constant (default 1.345), linear beyond.
        case huber
        /// Cauchy (Lorentzian): c²/2·ln(1 + (u/c)²), tuning constant c default 2.385.
        case cauchy
    }

    /// How ranges are weighted against one another.
    public enum Weighting: String, Hashable, Sendable, CaseIterable {
        /// Weight 1/σ² from each range's standard deviation.
        case inverseVariance
        /// Every range alike (σ taken as one venue unit, or 1 in log space).
        case uniform
    }

    /// What a residual measures.
    public enum Residual: String, Hashable, Sendable, CaseIterable {
        /// Distance minus range, venue units.
        case distance
        /// Logarithm of distance minus logarithm of range (σ becomes σ/d): errors relative to the range.
        case logDistance
    }

    /// Which coordinates are solved for.
    public enum Dimensions: String, Hashable, Sendable, CaseIterable {
        /// x and y; the height is the venue's receiver height.
        case planar
        /// x, y and height when the beacons' heights allow it (see ``Multilateration``), else planar.
        case automatic
    }

    /// The solver's settings.
    public struct Options: Hashable, Sendable {
        /// The robust loss.
        public var loss: Loss
        /// The loss's tuning constant in standard deviations; `nil` for the loss's usual one.
        public var tuning: Double?
        /// The weighting of ranges.
        public var weighting: Weighting
        /// What a residual measures.
        public var residual: Residual
        /// Which coordinates are solved for.
        public var dimensions: Dimensions
        /// The most Levenberg–Marquardt iterations per fix.
        public var maximumIterations: Int

        /// Creates options; the defaults: Huber loss, inverse-variance weights, distance residuals,
        /// automatic dimensions, at most 30 iterations.
        public init(loss: Loss = .huber, tuning: Double? = nil, weighting: Weighting = .inverseVariance,
                    residual: Residual = .distance, dimensions: Dimensions = .automatic, maximumIterations: Int = 30) {
            self.loss = loss
            self.tuning = tuning
            self.weighting = weighting
            self.residual = residual
            self.dimensions = dimensions
            self.maximumIterations = maximumIterations
        }
    }

    /// The venue.
    public let venue: PositioningVenue
    /// The settings.
    public let options: Options
    private let start: WeightedCentroid
    private let heightsKnown: Bool
    private let tuning: Double

    /// Creates the solver for a venue.
    public init(venue: PositioningVenue, options: Options = Options()) {
        self.venue = venue
        self.options = options
        start = WeightedCentroid(venue: venue)
        heightsKnown = venue.venue.beacons.contains { $0.z != nil }
        let usual = options.loss == .cauchy ? 2.385 : 1.345
        if let tuning = options.tuning, tuning.isFinite, tuning > 0 {
            self.tuning = tuning
        } else {
            self.tuning = usual
        }
    }

    /// `"multilateration"`.
    public var name: String { "multilateration" }

    /// The multilateration of every usable range (on the observation's floor when it has one), or
    /// `nil` when there is none.
    public func locate(_ observation: Observation) -> PositionEstimate? {
        locate(observation, centroid: nil)
    }

    /// Whether the starting centroid places every observation where `centroid` does, so that its
    /// answer can be handed to ``locate(_:centroid:)``.
    func startsLike(_ centroid: WeightedCentroid) -> Bool {
        start.placesLike(centroid)
    }

    /// ``locate(_:)`` given the answer of a centroid that ``startsLike(_:)``: `.some(nil)` when it had
    /// none, `nil` to work it out here.
    func locate(_ observation: Observation, centroid: PlanarPoint??) -> PositionEstimate? {
        // One temporary buffer per field rather than one of whole ranges: each stays small enough
        // (1 KiB up to 127 ranges) to be placed on the stack, so a fix allocates nothing. One more
        // element than the ranges: room for the padding after an odd count (`PackedRanges.pad()`).
        let capacity = observation.ranges.count + 1
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: capacity) { x in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: capacity) { y in
                withUnsafeTemporaryAllocation(of: Double.self, capacity: capacity) { z in
                    withUnsafeTemporaryAllocation(of: Double.self, capacity: capacity) { distance in
                        withUnsafeTemporaryAllocation(of: Double.self, capacity: capacity) { sigma in
                            withUnsafeTemporaryAllocation(of: Double.self, capacity: capacity) { inverseSigma in
                                var buffer = PackedRanges(x: x, y: y, z: z, distance: distance, sigma: sigma,
                                                          inverseSigma: inverseSigma, count: 0)
                                pack(observation, into: &buffer)
                                buffer.pad()
                                return locate(observation, buffer, centroid: centroid)
                            }
                        }
                    }
                }
            }
        }
    }

    /// The usable ranges, one temporary buffer per field (Doubles, nothing to deinitialize).
    struct PackedRanges: RandomAccessCollection {
        let x: UnsafeMutableBufferPointer<Double>, y: UnsafeMutableBufferPointer<Double>
        let z: UnsafeMutableBufferPointer<Double>, distance: UnsafeMutableBufferPointer<Double>
        let sigma: UnsafeMutableBufferPointer<Double>, inverseSigma: UnsafeMutableBufferPointer<Double>
        var count: Int

        var startIndex: Int { 0 }
        var endIndex: Int { count }

        subscript(index: Int) -> PackedRange {
            PackedRange(x: x[index], y: y[index], z: z[index], distance: distance[index], sigma: sigma[index],
                        inverseSigma: inverseSigma[index])
        }

        /// Fields `index` and `index + 1` of `field` as a pair (the latter being the padding after
        /// an odd count's last range).
        @inline(__always)
        func pair(_ field: UnsafeMutableBufferPointer<Double>, at index: Int) -> SIMD2<Double> {
            UnsafeRawPointer(field.baseAddress.unsafelyUnwrapped + index).loadUnaligned(as: SIMD2<Double>.self)
        }

        /// After an odd count's last range, a copy of it, so that ``pair(_:at:)`` reads only
        /// initialised, finite values (the buffers hold one element more than the ranges).
        mutating func pad() {
            guard count % 2 == 1 else { return }
            initialize(at: count, to: self[count - 1])
        }

        mutating func append(_ range: PackedRange) {
            initialize(at: count, to: range)
            count += 1
        }

        /// Sets element `index` of every field (not yet initialised) from `range`.
        private func initialize(at index: Int, to range: PackedRange) {
            x.initializeElement(at: index, to: range.x)
            y.initializeElement(at: index, to: range.y)
            z.initializeElement(at: index, to: range.z)
            distance.initializeElement(at: index, to: range.distance)
            sigma.initializeElement(at: index, to: range.sigma)
            inverseSigma.initializeElement(at: index, to: range.inverseSigma)
        }
    }

    /// A usable range, clamped and ready for the iterations.
    struct PackedRange {
        var x: Double, y: Double, z: Double
        /// The range, at most ``RangeGeometry/largest``.
        var distance: Double
        /// The standard deviation, within ``RangeGeometry/sigmaLimits``.
        var sigma: Double
        /// 1/``sigma``.
        var inverseSigma: Double
    }

    /// Copies the usable ranges (on the observation's floor) into `buffer`.
    private func pack(_ observation: Observation, into buffer: inout PackedRanges) {
        for range in observation.ranges where RangeGeometry.isUsable(range, floor: observation.floor) {
            buffer.append(PackedRange(
                x: range.position.x, y: range.position.y, z: range.position.z,
                distance: min(range.distance, RangeGeometry.largest), sigma: RangeGeometry.sigma(range),
                inverseSigma: 1 / RangeGeometry.sigma(range)))
        }
    }

    private func locate(_ observation: Observation, _ ranges: PackedRanges, centroid: PlanarPoint??) -> PositionEstimate? {
        let height = venue.receiverHeight
        let count = ranges.count
        guard count > 0 else { return nil }
        // The extent of the beacons and the linear system, two ranges at a time (the padding
        // after an odd count repeats the last range, which leaves the extent as it is, and weighs
        // nothing in the equations).
        typealias Pair = SIMD2<Double>
        var low = (x: Pair(repeating: .infinity), y: Pair(repeating: .infinity), z: Pair(repeating: .infinity))
        var high = (x: -low.x, y: -low.y, z: -low.z)
        var linear = LinearSystem()
        var index = 0
        while index < count {
            let live = index + 1 < count ? Pair(1, 1) : Pair(1, 0)
            let x = ranges.pair(ranges.x, at: index), y = ranges.pair(ranges.y, at: index)
            let z = ranges.pair(ranges.z, at: index), distance = ranges.pair(ranges.distance, at: index)
            let s = ranges.pair(ranges.sigma, at: index)
            index += 2
            low = (pointwiseMin(low.x, x), pointwiseMin(low.y, y), pointwiseMin(low.z, z))
            high = (pointwiseMax(high.x, x), pointwiseMax(high.y, y), pointwiseMax(high.z, z))
            // The circle on the receiver's plan, by its squared radius (all the equations need).
            // Var(r²) ≈ 4r²σ²: weight the circle equations by 1/(σ²(r² + σ²)).
            let dz = z - height
            let squaredRadius = pointwiseMax(distance * distance - dz * dz, Pair())
            linear.add(x: x, y: y, squaredRadius: squaredRadius, weight: live / (s * s * (squaredRadius + s * s)))
        }
        let minX = low.x.min(), minY = low.y.min(), minZ = low.z.min()
        let maxX = high.x.max(), maxY = high.y.max(), maxZ = high.z.max()
        let bounds = venue.bounds
            ?? PositioningVenue.Extent(minX: minX, minY: minY, maxX: maxX, maxY: maxY).inset(by: venue.margin)
        let cap = RangeGeometry.diagonal(bounds)
        if count == 1 {
            let first = planarCircle(ranges[0], height: height)
            let point = bounds.clamped(PlanarPoint(x: first.x, y: first.y))
            return finished(point, z: height, accuracy: first.radius + first.sigma, cap: cap, count: 1)
        }
        if count == 2 {
            let first = planarCircle(ranges[0], height: height), second = planarCircle(ranges[1], height: height)
            let sum = first.radius + second.radius
            let t = sum > 0 ? first.radius / sum : 0.5
            let dx = second.x - first.x, dy = second.y - first.y
            let separation = (dx * dx + dy * dy).squareRoot()
            let along = t * separation
            let halfChord = max(first.radius * first.radius - along * along, 0).squareRoot()
            let point = bounds.clamped(PlanarPoint(x: first.x + t * dx, y: first.y + t * dy))
            let accuracy = max(separation / 2, halfChord) + max(first.sigma, second.sigma)
            return finished(point, z: height, accuracy: accuracy, cap: cap, count: 2)
        }

        let planarSpread = max(maxX - minX, maxY - minY)
        let spatial = options.dimensions == .automatic && heightsKnown && count >= 4
            && maxZ - minZ > 0 && maxZ - minZ >= 0.1 * planarSpread
        let zLow = min(minZ, height) - venue.margin, zHigh = max(maxZ, height) + venue.margin

        var x = 0.0, y = 0.0
        if let centroid = centroid ?? start.center(of: observation), centroid.x.isFinite, centroid.y.isFinite {
            (x, y) = (centroid.x, centroid.y)
        } else {
            // No centroid: the beacons weighted by 1/(d² + σ²), the nearer and more certain the more.
            var sumW = 0.0
            for range in ranges {
                let w = 1 / (range.distance * range.distance + range.sigma * range.sigma + 1e-6)
                sumW += w; x += w * range.x; y += w * range.y
            }
            (x, y) = (x / sumW, y / sumW)
        }
        let limits = Limits(bounds: bounds, zLow: zLow, zHigh: zHigh, height: height, spatial: spatial,
                            tolerance: 1e-4 * max(cap, 1))
        let fromCentroid = bounds.clamped(PlanarPoint(x: x.isFinite ? x : minX, y: y.isFinite ? y : minY))
        var startPoint = (x: fromCentroid.x, y: fromCentroid.y, z: height)
        var startState = evaluate(ranges, at: startPoint, spatial: spatial)
        // The linear solution may lie in a basin the centroid's does not (beacons along a corridor
        // leave a mirror minimum on the far side of their line): start from whichever fits better.
        if let linear = linear.solution() {
            let fromLinear = bounds.clamped(linear)
            let point = (x: fromLinear.x, y: fromLinear.y, z: height)
            // The cost alone first (the normal equations' divisions and sums left out): the
            // centroid's start fits better in most fixes of real recordings.
            if cost(ranges, at: point) < startState.cost {
                (startPoint, startState) = (point, evaluate(ranges, at: point, spatial: spatial))
            }
        }
        let (point, state) = refine(ranges, from: startPoint, state: startState, limits: limits)

        // Accuracy: the x/y block of (JᵀΣ⁻¹J)⁻¹ (plain 1/σ² weights), scaled by the residual
        // variance factor Σu²/(n − unknowns): the sums of the last point evaluated (within the
        // tolerance of the answer) when no range there lies in the loss's tail.
        let plain = state.isPlain ? state : evaluate(ranges, at: point, spatial: spatial, plain: true)
        let unknowns = spatial ? 3 : 2
        var factor = count > unknowns ? plain.chiSquare / Double(count - unknowns) : 1
        if options.weighting == .inverseVariance { factor = max(factor, 1) }
        var radius = cap
        if let (varianceX, varianceY) = plain.planarVariances(spatial: spatial) {
            let candidate = RangeGeometry.circular68 * (factor * (varianceX + varianceY) / 2).squareRoot()
            if candidate.isFinite { radius = candidate }
        }
        return finished(PlanarPoint(x: point.x, y: point.y), z: point.z, accuracy: radius, cap: cap, count: count)
    }

    /// A packed range as a circle on the receiver's plan.
    @inline(__always)
    private func planarCircle(_ range: PackedRange, height: Double) -> RangeCircle {
        let dz = range.z - height
        let squared = range.distance * range.distance - dz * dz
        return RangeCircle(x: range.x, y: range.y, radius: squared > 0 ? squared.squareRoot() : 0, sigma: range.sigma)
    }

    /// Where the iterations may go.
    private struct Limits {
        var bounds: PositioningVenue.Extent
        var zLow: Double, zHigh: Double, height: Double
        var spatial: Bool
        var tolerance: Double
    }

    /// Levenberg–Marquardt iterations from `start`, every step clamped to the limits.
    private func refine(_ ranges: PackedRanges, from start: (x: Double, y: Double, z: Double),
                        state: NormalEquations, limits: Limits) -> (point: (x: Double, y: Double, z: Double), state: NormalEquations) {
        let spatial = limits.spatial
        var point = start
        var state = state
        var lambda = 1e-3
        for _ in 0..<max(options.maximumIterations, 0) {
            guard let step = state.step(lambda: lambda, spatial: spatial) else { break }
            let planar = limits.bounds.clamped(PlanarPoint(x: point.x + step.x, y: point.y + step.y))
            let candidate = (x: planar.x, y: planar.y,
                             z: spatial ? min(max(point.z + step.z, limits.zLow), limits.zHigh) : limits.height)
            let moved = abs(candidate.x - point.x) + abs(candidate.y - point.y) + abs(candidate.z - point.z)
            // A step this short is the last: taken without the evaluation that would test it (it
            // changes the cost by next to nothing either way; near the solution, where Gauss–Newton
            // converges fast on consistent ranges, it is most of the remaining error). The sums
            // kept are those less than the tolerance away, which is all the accuracy needs.
            if moved <= limits.tolerance {
                point = candidate
                break
            }
            let next = evaluate(ranges, at: candidate, spatial: spatial)
            if next.cost <= state.cost, next.cost.isFinite {
                let gain = state.cost - next.cost
                point = candidate
                state = next
                lambda = max(lambda * 0.1, 1e-12)
                if gain <= 1e-12 * next.cost { break }
            } else {
                // From a small λ the retried step would be nearly the one rejected: λ is at least
                // 1 after a rejection (about half the Gauss–Newton step), then grows tenfold.
                lambda = max(lambda * 10, 1)
                if lambda > 1e12 { break }
            }
        }
        return (point, state)
    }

    /// An estimate with the accuracy capped, or `nil` if anything is not finite.
    private func finished(_ point: PlanarPoint, z: Double, accuracy: Double, cap: Double, count: Int) -> PositionEstimate? {
        let estimate = PositionEstimate(point: SpatialPoint(x: point.x, y: point.y, z: z),
                                        accuracy: accuracy.isFinite ? min(max(accuracy, 0), cap) : cap, beaconCount: count)
        return estimate.isFinite ? estimate : nil
    }

    /// A pair of ranges' terms at a point: what ``evaluate(_:at:spatial:plain:)`` sums.
    private struct PairTerms {
        typealias Pair = SIMD2<Double>
        /// The robust cost ρ(u) of each lane (0 in the padding lane).
        var rho: Pair
        /// The residual r and its scaled value u = r/scale.
        var residual: Pair, u: Pair
        /// 1/scale, the robust weight ψ(u)/u (0 in the padding lane), and the factor turning the
        /// offsets from the beacons into ∂r/∂p.
        var inverseScale: Pair, weightRobust: Pair, jacobian: Pair
        /// The offsets of the point from the two beacons.
        var dx: Pair, dy: Pair, dz: Pair
        /// The lanes in the loss's tail (robust weight below 1).
        var tail: SIMDMask<SIMD2<Int64>>
    }

    /// The terms of ranges `index` and `index + 1` (the padding after an odd count's last range
    /// counts for nothing) at `point` under `loss`. Inlined, so that a caller using only some of
    /// them (``cost(_:at:)``) does not compute the rest.
    @inline(__always)
    private func terms(_ ranges: PackedRanges, _ index: Int, at point: LanePoint, loss: Loss) -> PairTerms {
        typealias Pair = SIMD2<Double>
        let logarithmic = options.residual == .logDistance
        let uniform = options.weighting == .uniform
        let k = Pair(repeating: tuning)
        let one = Pair(repeating: 1)
        // The second lane of an odd count's last pair repeats the range and counts for nothing.
        let live = index + 1 < ranges.count ? one : Pair(1, 0)
        let dx = point.x - ranges.pair(ranges.x, at: index)
        let dy = point.y - ranges.pair(ranges.y, at: index)
        let dz = point.z - ranges.pair(ranges.z, at: index)
        let range = ranges.pair(ranges.distance, at: index)
        let inverseSigma = ranges.pair(ranges.inverseSigma, at: index)
        let squared = dx * dx + dy * dy + dz * dz
        // 1/d as d·(1/d²): the division does not wait for the square root.
        let distance = squared.squareRoot()
        let inverseDistance = (distance * (one / squared)).replacing(with: 0, where: distance .<= 1e-12)
        // residual r, 1/scale (u = r/scale) and the factor turning (dx, dy, dz) into ∂r/∂p.
        var residual: Pair, inverseScale: Pair, jacobian: Pair
        if logarithmic {
            let floorValue = Pair(repeating: 1e-3)
            let d = range.replacing(with: floorValue, where: range .< floorValue)
            let clamped = distance.replacing(with: floorValue, where: distance .< floorValue)
            residual = Pair(log(clamped[0]) - log(d[0]), log(clamped[1]) - log(d[1]))
            inverseScale = uniform ? one : d * inverseSigma
            jacobian = (inverseDistance * inverseDistance).replacing(with: 0, where: distance .<= floorValue)
        } else {
            residual = distance - range
            inverseScale = uniform ? one : inverseSigma
            jacobian = inverseDistance
        }
        let u = residual * inverseScale
        var weightRobust = live, rho = 0.5 * u * u * live
        var tail = SIMDMask<SIMD2<Int64>>()
        switch loss {
        case .squared:
            break
        case .huber:
            let a = u.replacing(with: -u, where: u .< 0)
            let beyond = a .> k
            if any(beyond) {
                // Only for the few ranges in the tail: k/a and k·a − k²/2.
                weightRobust.replace(with: k / a * live, where: beyond)
                rho.replace(with: (k * a - 0.5 * k * k) * live, where: beyond)
                tail = beyond .& (live .> 0)
            }
        case .cauchy:
            let q = u / k
            weightRobust = live / (1 + q * q)
            rho = 0.5 * k * k * Pair(log1p(q[0] * q[0]), log1p(q[1] * q[1])) * live
            tail = live .> 0
        }
        return PairTerms(rho: rho, residual: residual, u: u, inverseScale: inverseScale, weightRobust: weightRobust,
                         jacobian: jacobian, dx: dx, dy: dy, dz: dz, tail: tail)
    }

    /// The robust cost alone at `point`: what ``evaluate(_:at:spatial:plain:)`` gives as `cost`.
    private func cost(_ ranges: PackedRanges, at point: (x: Double, y: Double, z: Double)) -> Double {
        let at = LanePoint(point)
        var cost = PairTerms.Pair()
        var index = 0
        while index < ranges.count {
            cost += terms(ranges, index, at: at, loss: options.loss).rho
            index += 2
        }
        return cost.sum()
    }

    /// Robust cost, gradient and Gauss–Newton matrix of the IRLS problem at `point`.
    /// With `plain`, every robust weight is 1 (the least-squares matrix and Σu², for the accuracy).
    ///
    /// The ranges are taken two at a time in `SIMD2<Double>` lanes (SSE2 or NEON, on every machine
    /// the package runs on), which halves the square roots and divisions that bound the cost of a
    /// fix; an odd count's last pair repeats its range with the second lane's weight 0. The two
    /// lanes' sums are added at the end.
    private func evaluate(_ ranges: PackedRanges, at point: (x: Double, y: Double, z: Double), spatial: Bool,
                          plain: Bool = false) -> NormalEquations {
        typealias Pair = SIMD2<Double>
        let loss = plain ? Loss.squared : options.loss
        let at = LanePoint(point)
        let zero = Pair()
        var cost = zero, chiSquare = zero, tail = SIMDMask<SIMD2<Int64>>()
        var hxx = zero, hxy = zero, hyy = zero, hxz = zero, hyz = zero, hzz = zero
        var gx = zero, gy = zero, gz = zero
        var index = 0
        while index < ranges.count {
            let t = terms(ranges, index, at: at, loss: loss)
            index += 2
            cost += t.rho
            chiSquare += t.weightRobust * t.u * t.u
            tail .|= t.tail
            let jx = t.jacobian * t.dx, jy = t.jacobian * t.dy, jz = t.jacobian * t.dz
            let w = t.weightRobust * t.inverseScale * t.inverseScale
            let wr = w * t.residual
            hxx += w * jx * jx
            hxy += w * jx * jy
            hyy += w * jy * jy
            gx += wr * jx
            gy += wr * jy
            if spatial {
                hxz += w * jx * jz
                hyz += w * jy * jz
                hzz += w * jz * jz
                gz += wr * jz
            }
        }
        var sums = NormalEquations()
        sums.isPlain = !any(tail)
        sums.cost = cost.sum(); sums.chiSquare = chiSquare.sum()
        sums.hxx = hxx.sum(); sums.hxy = hxy.sum(); sums.hyy = hyy.sum()
        sums.hxz = hxz.sum(); sums.hyz = hyz.sum(); sums.hzz = hzz.sum()
        sums.gx = gx.sum(); sums.gy = gy.sum(); sums.gz = gz.sum()
        return sums
    }
}

/// A point's coordinates, each in both lanes of a pair.
private struct LanePoint {
    var x: SIMD2<Double>, y: SIMD2<Double>, z: SIMD2<Double>

    init(_ point: (x: Double, y: Double, z: Double)) {
        x = SIMD2(repeating: point.x)
        y = SIMD2(repeating: point.y)
        z = SIMD2(repeating: point.z)
    }
}
