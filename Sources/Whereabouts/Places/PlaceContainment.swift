import Foundation

/// Which place a fix is in, taking its accuracy radius into account.
///
/// A fix is read as a circular 2-D Gaussian around its point whose 68 % radius is the fix's
/// ``Fix/accuracy`` (see ``PositionEstimate``): the per-axis standard deviation is
/// σ = accuracy / √(−2 ln 0.32) ≈ accuracy / 1.5096.
///
/// The place of a fix (``estimate(for:)``, ``placement(of:)``) follows the ``rule``; the default,
/// ``Rule/mostProbable``, is the place that holds the most of that Gaussian. Each point of the
/// plan belongs to the smallest place of the fix's floor that contains it (a desk inside a hall
/// is the desk's, as with point containment), and the share of a place is the Gaussian's mass
/// over its points (``distribution(of:)``): a fix on the wall between two equal rooms is half in
/// each, one at the centre of a large room all in it. The mass is integrated along 128 rays from
/// the fix's point, each in closed form (the radial mass between two distances r₁ < r₂ is
/// exp(−r₁²/2σ²) − exp(−r₂²/2σ²)), so a circle centred on the fix gets exactly
/// 1 − exp(−R²/2σ²); elsewhere the rays agree with the closed forms below within 10⁻³. A place
/// that looks narrower from the fix than the 2.8° between two rays may fall between them and
/// count as empty (it holds little of the fix then). Only the places whose bounding box comes
/// within 5 σ of the fix count (at most ``maximumCandidates`` of them, the nearest): farther ones
/// hold less than 4·10⁻⁶.
///
/// When the places together hold less than ``minimumMass`` of the fix (it lies in none and far
/// from all), the place is the nearest one by Hekaerge's distance — the distance to a circle's
/// centre minus its radius, to a polygon's nearest edge — if it is within ``fallbackDistance``
/// (by default the fix's accuracy radius); otherwise no place.
///
/// The exact mass of one place, whatever the others, is ``memberships(of:minimumProbability:)``:
///
/// - a circle: P(|X − c| ≤ R) for X ~ N(m, σ²I) is the CDF of a non-central χ² with two degrees
///   of freedom (1 − Marcum Q₁(d/σ, R/σ)), summed as its Poisson mixture
///   Σⱼ Pois(j; d²/2σ²) · P(Pois(R²/2σ²) ≥ j + 1), whose terms are all positive;
/// - a polygon: the sum over its edges of the signed mass of the triangle (mean, edge), each the
///   angular integral (1/2π) ∫ (1 − exp(−r(θ)²/2σ²)) dθ, by adaptive Simpson quadrature.
///
/// A fix with accuracy 0 is a point: probability 1 inside (edge included), 0 outside.
///
/// ```swift
/// let containment = PlaceContainment(venue: venue)
/// for share in containment.distribution(of: fix).places {
///     print(share.place.id, share.probability)             // "kitchen" 0.93, "hall" 0.07
/// }
/// let estimate = containment.estimate(for: fix)            // PlaceEstimate(place: "kitchen", probability: 0.93)
/// let byPoint = PlaceContainment(venue: venue, rule: .point)
/// ```
public struct PlaceContainment: Sendable {
    /// A place and the probability that the fix is in it.
    public struct Membership: Hashable, Sendable {
        /// The place.
        public var place: Venue.Place
        /// The probability, 0…1.
        public var probability: Double
    }

    /// How the place of a fix is chosen.
    public enum Rule: String, Hashable, Sendable, CaseIterable {
        /// The place holding the most of the fix's Gaussian (each point counted for the smallest
        /// place containing it); ties go to the smaller place. With less than
        /// ``PlaceContainment/minimumMass`` in all places, the nearest place within
        /// ``PlaceContainment/fallbackDistance``. The default.
        case mostProbable = "most-probable"
        /// Of the places holding at least half of the fix (each by its own mass), the smallest;
        /// no place when none does.
        case majority
        /// The fix's point alone: the smallest place containing it, probability 1; no place when
        /// none does.
        case point
    }

    /// The fix's Gaussian shared among the places: each point of the plan counted for the
    /// smallest place that contains it.
    public struct Distribution: Hashable, Sendable {
        /// The places holding some of the fix, most first (ties: the smaller first).
        public var places: [Membership]
        /// The mass in no place, 0…1.
        public var none: Double

        /// The mass in all places together.
        public var total: Double { places.reduce(0) { $0 + $1.probability } }
    }

    /// The place chosen for a fix, with what it was chosen from.
    public struct Placement: Hashable, Sendable {
        /// The place, or `nil` for none.
        public var place: Venue.Place?
        /// The mass of the fix in the place (``Rule/majority``: the place's own mass; ``Rule/point``:
        /// 1); with no place, the mass in no place.
        public var probability: Double
        /// Whether the place was chosen as the nearest one because no place held
        /// ``PlaceContainment/minimumMass`` of the fix.
        public var isNearest: Bool
        /// How the fix's mass is shared among the places (for ``Rule/point``, all of it in the
        /// place containing the point).
        public var distribution: Distribution
        /// Whether ``probability`` is a belief over the track (``PlaceEstimate/isBelief``): by
        /// ``Rule/mostProbable``, of a fix that carries its posterior's mass in each place
        /// (``Fix/placeProbabilities``).
        public var isBelief = false

        /// The estimate a ``PlaceMonitor`` takes: the place's id, ``probability`` and whether it
        /// is a belief.
        public var estimate: PlaceEstimate { PlaceEstimate(place: place?.id, probability: probability, isBelief: isBelief) }
    }

    /// The places with a geometry, in venue order.
    public let places: [Venue.Place]
    /// How the place of a fix is chosen; ``Rule/mostProbable`` by default.
    public var rule: Rule
    /// The mass all places together must hold before the most probable one is taken; below it,
    /// the nearest place (``Rule/mostProbable`` only). Default 0.01.
    public var minimumMass: Double
    /// How far (venue units) the nearest place may be from the fix to be chosen when no place holds
    /// ``minimumMass``; `nil` (the default) for the fix's accuracy radius.
    public var fallbackDistance: Double?
    /// The most places the mass is shared among (the nearest by bounding box); default 64.
    public var maximumCandidates: Int

    /// The places' geometry, in the order of ``places``.
    let shapes: [Outline]
    /// Indices into ``places``, smallest area first (venue order among equals).
    let bySize: [Int]
    /// The rank of each place in ``bySize``.
    let sizeRank: [Int]
    /// The index in ``places`` of each id (its first place).
    let indexByID: [String: Int]

    /// Takes the circle and polygon places of a venue (labels have no geometry to be in).
    public init(venue: Venue, rule: Rule = .mostProbable, minimumMass: Double = 0.01, fallbackDistance: Double? = nil) {
        self.init(places: venue.places, rule: rule, minimumMass: minimumMass, fallbackDistance: fallbackDistance)
    }

    /// Takes the circle and polygon places of a list.
    public init(places: [Venue.Place], rule: Rule = .mostProbable, minimumMass: Double = 0.01, fallbackDistance: Double? = nil) {
        let kept = places.filter { $0.shape.area != nil }
        self.places = kept
        self.rule = rule
        self.minimumMass = minimumMass
        self.fallbackDistance = fallbackDistance
        maximumCandidates = 64
        let shapes = kept.map(Outline.init)
        self.shapes = shapes
        let bySize = kept.indices.sorted { (shapes[$0].area, $0) < (shapes[$1].area, $1) }
        var sizeRank = [Int](repeating: 0, count: kept.count)
        for (rank, index) in bySize.enumerated() { sizeRank[index] = rank }
        self.bySize = bySize
        self.sizeRank = sizeRank
        indexByID = Dictionary(kept.enumerated().map { ($0.element.id, $0.offset) }) { first, _ in first }
    }

    /// The places of the fix's floor (of every floor when the fix has none) that hold at least
    /// `minimumProbability` of it, each by its own mass whatever the other places, most probable
    /// first (ties: the smaller place first).
    public func memberships(of fix: Fix, minimumProbability: Double = 1e-3) -> [Membership] {
        let sigma = Self.standardDeviation(accuracy: fix.accuracy)
        let point = fix.point.planar
        var found: [Membership] = []
        for place in places where fix.floor == nil || fix.floor == place.floor {
            let probability = Self.probability(of: place.shape, aroundMean: point, standardDeviation: sigma)
            if probability >= minimumProbability { found.append(Membership(place: place, probability: probability)) }
        }
        return found.sorted {
            $0.probability != $1.probability ? $0.probability > $1.probability
                : ($0.place.shape.area ?? 0) < ($1.place.shape.area ?? 0)
        }
    }

    /// The place a fix is in by the ``rule``, with its probability: the per-scan input of a
    /// ``PlaceMonitor``.
    public func estimate(for fix: Fix) -> PlaceEstimate {
        placement(of: fix).estimate
    }

    /// The place a fix is in by the ``rule``, with its mass and the distribution it was chosen from.
    public func placement(of fix: Fix) -> Placement {
        switch rule {
        case .mostProbable:
            var placement = mostProbablePlacement(of: fix)
            placement.isBelief = fix.placeProbabilities != nil
            return placement
        case .majority: return majorityPlacement(of: fix)
        case .point: return pointPlacement(of: fix)
        }
    }

    /// ``Rule/majority``: of the places holding at least half of the fix, the smallest (a desk
    /// inside a hall wins over the hall); when none does, no place, with the probability
    /// 1 − (the largest probability of a place).
    private func majorityPlacement(of fix: Fix) -> Placement {
        let found = memberships(of: fix)
        let distribution = Distribution(places: found, none: Swift.max(0, 1 - (found.first?.probability ?? 0)))
        let likely = found.filter { $0.probability >= 0.5 }
        if let smallest = likely.min(by: { ($0.place.shape.area ?? 0) < ($1.place.shape.area ?? 0) }) {
            return Placement(place: smallest.place, probability: smallest.probability, isNearest: false, distribution: distribution)
        }
        return Placement(place: nil, probability: distribution.none, isNearest: false, distribution: distribution)
    }

    /// ``Rule/point``: the smallest place of the fix's floor containing its point.
    private func pointPlacement(of fix: Fix) -> Placement {
        let point = fix.point.planar
        for index in bySize where fix.floor == nil || fix.floor == places[index].floor {
            if shapes[index].contains(point) {
                let membership = Membership(place: places[index], probability: 1)
                return Placement(place: places[index], probability: 1, isNearest: false,
                                 distribution: Distribution(places: [membership], none: 0))
            }
        }
        return Placement(place: nil, probability: 1, isNearest: false, distribution: Distribution(places: [], none: 1))
    }

    /// ``Rule/mostProbable``: the place of the largest share, or the nearest place within reach.
    private func mostProbablePlacement(of fix: Fix) -> Placement {
        let distribution = distribution(of: fix)
        if let best = distribution.places.first, distribution.total >= minimumMass {
            return Placement(place: best.place, probability: best.probability, isNearest: false, distribution: distribution)
        }
        let reach = fallbackDistance ?? (fix.accuracy.isFinite ? Swift.max(0, fix.accuracy) : 0)
        let point = fix.point.planar
        var nearest: (index: Int, distance: Double)?
        for index in bySize where fix.floor == nil || fix.floor == places[index].floor {
            let outline = shapes[index]
            guard outline.boxDistance(to: point) <= reach else { continue }
            let distance = places[index].shape.signedDistance(from: point)
            if distance <= reach, distance < nearest?.distance ?? .infinity { nearest = (index, distance) }
        }
        if let nearest {
            let place = places[nearest.index]
            let mass = distribution.places.first { $0.place.id == place.id }?.probability ?? 0
            return Placement(place: place, probability: mass, isNearest: true, distribution: distribution)
        }
        return Placement(place: nil, probability: distribution.none, isNearest: false, distribution: distribution)
    }

    /// √(−2 ln 0.32): the 68 % radius of a circular 2-D Gaussian in per-axis standard deviations.
    public static let radius68 = PositionEstimate.radiusPerStandardDeviation

    /// The per-axis standard deviation of a fix whose 68 % radius is `accuracy`
    /// (accuracy / 1.5096); 0 for a negative or non-finite accuracy.
    public static func standardDeviation(accuracy: Double) -> Double {
        guard accuracy.isFinite, accuracy > 0 else { return 0 }
        return accuracy / radius68
    }

    /// The probability mass inside `shape` of a circular Gaussian around `mean` with per-axis
    /// standard deviation `standardDeviation` (0: a point). A label holds nothing.
    public static func probability(of shape: Venue.Place.Shape, aroundMean mean: PlanarPoint,
                                   standardDeviation sigma: Double) -> Double {
        switch shape {
        case .label:
            return 0
        case .circle(let center, let radius, _):
            return circleProbability(offset: center.distance(to: mean), radius: radius, standardDeviation: sigma)
        case .polygon(let vertices):
            return polygonProbability(vertices, mean: mean, standardDeviation: sigma)
        }
    }

    /// P(|X − c| ≤ R) for X ~ N(m, σ²I) with |m − c| = `offset`: 1 − Q₁(d/σ, R/σ).
    ///
    /// At the centre it is 1 − exp(−R²/2σ²). Far outside (more than 12 σ beyond the edge) it is
    /// 0, far inside 1; for a circle more than 300 σ across it is the straight-edge limit
    /// Φ((R − d)/σ).
    public static func circleProbability(offset: Double, radius: Double, standardDeviation sigma: Double) -> Double {
        guard radius > 0, radius.isFinite, offset.isFinite else { return 0 }
        guard sigma > 0, sigma.isFinite else { return offset <= radius ? 1 : 0 }
        let a = offset / sigma, b = radius / sigma
        if a - b > 12 { return 0 }
        if b - a > 12 { return 1 }
        let mu = a * a / 2, nu = b * b / 2
        if mu > 45_000 { return 0.5 * erfc(-(b - a) / 2.0.squareRoot()) }
        // Σⱼ w_j · U_j, w_j = Pois(j; mu), U_j = P(Pois(nu) ≥ j + 1) = 1 − Σ_{i ≤ j} Pois(i; nu).
        let logMu = mu > 0 ? log(mu) : -Double.infinity
        let logNu = log(nu)
        var logWeight = -mu
        var logPoisson = -nu
        var cumulative = exp(logPoisson)
        var total = 0.0
        var weightSum = 0.0
        let last = Int(mu + 12 * mu.squareRoot() + 40)
        var j = 0
        while true {
            let weight = exp(logWeight)
            let upper = Swift.max(0, 1 - cumulative)
            total += weight * upper
            weightSum += weight
            if j >= last || (Double(j) > mu && (upper < 1e-17 || weightSum > 1 - 1e-16)) { break }
            j += 1
            logWeight += logMu - log(Double(j))
            logPoisson += logNu - log(Double(j))
            cumulative += exp(logPoisson)
        }
        return Swift.min(1, Swift.max(0, total))
    }

    /// The mass of a circular Gaussian inside a simple polygon: Σ over edges of the signed mass of
    /// the triangle (mean, a, b), (1/2π) ∫ (1 − exp(−r(θ)²/2σ²)) dθ over the edge's angle.
    public static func polygonProbability(_ vertices: [PlanarPoint], mean: PlanarPoint,
                                          standardDeviation sigma: Double) -> Double {
        guard vertices.count >= 3 else { return 0 }
        guard sigma > 0, sigma.isFinite else { return PlanarGeometry.contains(vertices, mean) ? 1 : 0 }
        if PlanarGeometry.distanceToBoundary(vertices, mean) > 12 * sigma {
            return PlanarGeometry.contains(vertices, mean) ? 1 : 0
        }
        var total = 0.0
        var previous = vertices[vertices.count - 1]
        for vertex in vertices {
            let ax = (previous.x - mean.x) / sigma, ay = (previous.y - mean.y) / sigma
            let bx = (vertex.x - mean.x) / sigma, by = (vertex.y - mean.y) / sigma
            previous = vertex
            total += triangleMass(ax: ax, ay: ay, bx: bx, by: by)
        }
        return Swift.min(1, Swift.max(0, abs(total)))
    }

    /// The signed mass of the standard Gaussian in the triangle (0, a, b), positive when a → b
    /// turns counter-clockwise.
    private static func triangleMass(ax: Double, ay: Double, bx: Double, by: Double) -> Double {
        let cross = ax * by - ay * bx
        let dot = ax * bx + ay * by
        let ex = bx - ax, ey = by - ay
        let length = (ex * ex + ey * ey).squareRoot()
        guard length > 0, abs(cross) > 1e-300 else { return 0 }
        let angle = atan2(cross, dot)
        let h = abs(cross) / length
        // The foot of the perpendicular from the origin to the line ab.
        let t = -(ax * ex + ay * ey) / (length * length)
        let foot = atan2(ay + t * ey, ax + t * ex)
        let start = atan2(ay, ax)
        let halfH2 = h * h / 2
        let integrand: (Double) -> Double = { theta in
            let c = Swift.max(cos(theta - foot), 1e-300)
            return -expm1(-halfH2 / (c * c))
        }
        let integral = adaptiveSimpson(integrand, from: start, to: start + angle, tolerance: 1e-12)
        return integral / (2 * .pi)
    }

    /// ∫ f over [a, b] by adaptive Simpson quadrature.
    static func adaptiveSimpson(_ f: (Double) -> Double, from a: Double, to b: Double, tolerance: Double) -> Double {
        let fa = f(a), fb = f(b), m = (a + b) / 2, fm = f(m)
        let whole = (b - a) / 6 * (fa + 4 * fm + fb)
        return simpsonStep(f, a, b, fa, fm, fb, whole, tolerance, depth: 40)
    }

    private static func simpsonStep(_ f: (Double) -> Double, _ a: Double, _ b: Double, _ fa: Double, _ fm: Double,
                                    _ fb: Double, _ whole: Double, _ tolerance: Double, depth: Int) -> Double {
        let m = (a + b) / 2
        let lm = (a + m) / 2, rm = (m + b) / 2
        let flm = f(lm), frm = f(rm)
        let left = (m - a) / 6 * (fa + 4 * flm + fm)
        let right = (b - m) / 6 * (fm + 4 * frm + fb)
        let difference = left + right - whole
        if depth <= 0 || abs(difference) <= 15 * tolerance {
            return left + right + difference / 15
        }
        return simpsonStep(f, a, m, fa, flm, fm, left, tolerance / 2, depth: depth - 1)
            + simpsonStep(f, m, b, fm, frm, fb, right, tolerance / 2, depth: depth - 1)
    }
}
