/// Several solvers combined by trusts, as IBeaconLocation's `Processor` combines its algorithms:
/// the answer is Σ tᵢ·Pᵢ over the members that gave one, with their trusts normalised to sum 1.
///
/// - Trusts are normalised to sum 1; when they are all zero (or none is a positive finite number)
///   every member gets the same trust. Negative or non-finite trusts count as zero.
/// - A member that returns `nil` (or a non-finite estimate) is left out and the trusts of the
///   others are normalised again; when every member with a positive trust is left out the
///   answer is `nil`, even if a zero-trust member answered (trust 0 means "do not use"), unless
///   all trusts are zero.
/// - Accuracy radius: the members' answers are taken as a mixture — member i's answer spread
///   around Pᵢ with radius rᵢ, chosen with probability tᵢ — whose radius around the fused point P is
///   √(Σ tᵢ·(rᵢ² + |Pᵢ − P|²)): the members' own radii, widened by how much they disagree. (The
///   68 % radius of a round Gaussian is 1.07 times its root-mean-square radius, close enough to 1
///   that radii and root-mean-square distances mix as they are.)
/// - `beaconCount` is the largest of the members' that answered.
///
/// Locating calls each member once and allocates nothing of its own. A ``Multilateration`` member
/// starts from the answer of an earlier ``WeightedCentroid`` member that places observations like
/// its own starting centroid, rather than working it out again.
///
/// ```swift
/// let fusion = TrustFusion([(FingerprintSolver(venue: venue, training: scans), 0.7),
///                           (WeightedCentroid(venue: venue), 0.3)])
/// let estimate = fusion.locate(observation)
/// ```
public struct TrustFusion: PositionSolver {
    /// One member: a solver and how much it is trusted.
    public struct Member: Sendable {
        /// The solver.
        public var solver: any PositionSolver
        /// Its trust, normalised over the members (only the ratios matter).
        public var trust: Double

        /// Creates a member.
        public init(solver: any PositionSolver, trust: Double) {
            self.solver = solver
            self.trust = trust
        }
    }

    /// The members, trusts as given.
    public let members: [Member]
    /// The name for reports (`"fusion"` unless given).
    public let name: String

    /// Per member: a ``Multilateration`` that starts from the answer of an earlier
    /// ``WeightedCentroid`` member (its index), so that the centroid is worked out once.
    private let startsFrom: [(multilateration: Multilateration, centroid: Int)?]
    /// Per member: whether some multilateration starts from its answer.
    private let startsOthers: [Bool]

    /// Creates the fusion of `members`.
    public init(_ members: [Member], name: String = "fusion") {
        self.members = members
        self.name = name
        let startsFrom: [(multilateration: Multilateration, centroid: Int)?] = members.indices.map { index in
            guard let multilateration = members[index].solver as? Multilateration else { return nil }
            let centroid = members[..<index].firstIndex { member in
                (member.solver as? WeightedCentroid).map(multilateration.startsLike) ?? false
            }
            return centroid.map { (multilateration, $0) }
        }
        self.startsFrom = startsFrom
        startsOthers = members.indices.map { index in startsFrom.contains { $0?.centroid == index } }
    }

    /// Creates the fusion of (solver, trust) pairs.
    public init(_ pairs: [(solver: any PositionSolver, trust: Double)], name: String = "fusion") {
        self.init(pairs.map { Member(solver: $0.solver, trust: $0.trust) }, name: name)
    }

    /// The trusts normalised to sum 1 (equal when none is positive), in member order.
    public var normalizedTrusts: [Double] {
        let usable = members.map { Self.usable($0.trust) }
        let total = usable.reduce(0, +)
        guard total > 0, total.isFinite else {
            return members.map { _ in 1 / Double(members.count) }
        }
        return usable.map { $0 / total }
    }

    /// The trust-weighted mean of the members' answers, or `nil` when none (with a trust) answered.
    public func locate(_ observation: Observation) -> PositionEstimate? {
        var total = 0.0
        for member in members { total += Self.usable(member.trust) }
        let equal = !(total > 0 && total.isFinite)
        var sumT = 0.0, sumX = 0.0, sumY = 0.0, sumZ = 0.0, sumSquares = 0.0, sumRadii = 0.0
        var beacons = 0
        var origin: SpatialPoint?
        // The answers of the members some multilateration starts from (only their plan position is used).
        var centroids: (index: Int, point: PlanarPoint?)?
        for (index, member) in members.enumerated() {
            let trust = equal ? 1 : Self.usable(member.trust)
            guard trust > 0 else { continue }
            let answer: PositionEstimate?
            if let shared = startsFrom[index] {
                var known: PlanarPoint??
                if let centroids, centroids.index == shared.centroid { known = .some(centroids.point) }
                answer = shared.multilateration.locate(observation, centroid: known)
            } else {
                answer = member.solver.locate(observation)
                if startsOthers[index] { centroids = (index, answer.map { PlanarPoint(x: $0.point.x, y: $0.point.y) }) }
            }
            guard let estimate = answer, estimate.isFinite else { continue }
            // Relative to the first answer, so that large coordinates lose no precision below.
            let reference = origin ?? estimate.point
            origin = reference
            let dx = estimate.point.x - reference.x, dy = estimate.point.y - reference.y
            sumT += trust
            sumX += trust * dx
            sumY += trust * dy
            sumZ += trust * estimate.point.z
            sumSquares += trust * (dx * dx + dy * dy)
            sumRadii += trust * estimate.accuracy * estimate.accuracy
            beacons = max(beacons, estimate.beaconCount)
        }
        guard sumT > 0, let origin else { return nil }
        let dx = sumX / sumT, dy = sumY / sumT
        // Σ tᵢ |Pᵢ − P|² = Σ tᵢ |Pᵢ|² − |P|² with normalised trusts; rounding may make it slightly negative.
        let disagreement = max(0, sumSquares / sumT - (dx * dx + dy * dy))
        let radius = (sumRadii / sumT + disagreement).squareRoot()
        let point = SpatialPoint(x: origin.x + dx, y: origin.y + dy, z: sumZ / sumT)
        let estimate = PositionEstimate(point: point, accuracy: radius, beaconCount: beacons)
        return estimate.isFinite ? estimate : nil
    }

    private static func usable(_ trust: Double) -> Double {
        trust.isFinite && trust > 0 ? trust : 0
    }
}
