import Foundation

extension PlaceContainment {
    /// The number of rays the Gaussian is integrated along (a fixed count: the cost of a fix is
    /// at most this many times the edges of ``maximumCandidates`` places).
    public static let rayCount = 128

    /// The reach, in standard deviations, beyond which a place's bounding box holds too little of
    /// a fix to count (at most exp(−5²/2) ≈ 3.7·10⁻⁶).
    public static let reachInStandardDeviations = 5.0

    /// The ray directions, half a step off the axes (so that a ray never runs along a wall
    /// through the fix that is parallel to an axis), in opposite pairs.
    private static let directions: [(x: Double, y: Double)] = (0..<rayCount).map { k in
        let angle = (Double(k) + 0.5) * 2 * Double.pi / Double(rayCount)
        return (cos(angle), sin(angle))
    }

    /// How a fix's Gaussian is shared among the places of its floor (of every floor when it has
    /// none): each point of the plan counts for the smallest place containing it, and each place
    /// gets the Gaussian's mass over its points; the rest is in no place.
    ///
    /// Along each of ``rayCount`` rays from the fix's point, the stretches inside each place are
    /// found in closed form (circle: a quadratic; polygon: the crossings of its edges), the
    /// smallest place claiming each stretch first, and each stretch [r₁, r₂] weighs
    /// exp(−r₁²/2σ²) − exp(−r₂²/2σ²); the rays' masses are averaged. A fix with accuracy 0 is a
    /// point (all of it in the smallest place containing it).
    ///
    /// A fix that carries its own ``Fix/placeProbabilities`` (a posterior's mass in each place)
    /// is shared as it says instead, over the places this containment knows; the rest is in no
    /// place.
    public func distribution(of fix: Fix) -> Distribution {
        if let given = fix.placeProbabilities { return distribution(given, floor: fix.floor) }
        let sigma = Self.standardDeviation(accuracy: fix.accuracy)
        let mean = fix.point.planar
        guard mean.x.isFinite, mean.y.isFinite else { return Distribution(places: [], none: 1) }
        let candidates = candidateIndices(around: mean, floor: fix.floor, reach: Self.reachInStandardDeviations * sigma)
        guard sigma > 0 else {
            guard let index = candidates.first(where: { shapes[$0].contains(mean) }) else {
                return Distribution(places: [], none: 1)
            }
            return Distribution(places: [Membership(place: places[index], probability: 1)], none: 0)
        }
        var masses = [Double](repeating: 0, count: candidates.count)
        var claimed: [(start: Double, end: Double)] = []
        var stretches: [(start: Double, end: Double)] = []
        var crossings: [Double] = []
        claimed.reserveCapacity(16)
        stretches.reserveCapacity(8)
        crossings.reserveCapacity(16)
        let scale = 1 / sigma
        for direction in Self.directions {
            claimed.removeAll(keepingCapacity: true)
            for (slot, index) in candidates.enumerated() {
                shapes[index].stretches(from: mean, direction: direction, scale: scale, into: &stretches, crossings: &crossings)
                for stretch in stretches {
                    masses[slot] += Self.claim(stretch, in: &claimed)
                }
            }
        }
        var shares: [(slot: Int, probability: Double)] = []
        var total = 0.0
        for slot in candidates.indices where masses[slot] > 0 {
            let probability = Swift.min(1, masses[slot] / Double(Self.rayCount))
            total += probability
            shares.append((slot, probability))
        }
        // Most first; within a relative 10⁻⁹ (rounding), the smaller place (candidates are in size order).
        shares.sort { a, b in
            let scale = Swift.max(a.probability, b.probability)
            if abs(a.probability - b.probability) > 1e-9 * scale { return a.probability > b.probability }
            return a.slot < b.slot
        }
        let found = shares.map { Membership(place: places[candidates[$0.slot]], probability: $0.probability) }
        return Distribution(places: found, none: Swift.min(1, Swift.max(0, 1 - total)))
    }

    /// A distribution as given: the probabilities of the places of `floor` (every floor when
    /// `nil`) that this containment knows, most first (ties: the smaller place first), scaled
    /// down when they add up to more than 1.
    private func distribution(_ given: [PlaceEstimate], floor: Int?) -> Distribution {
        var found: [(index: Int, probability: Double)] = []
        var seen = Set<Int>()
        for estimate in given.prefix(maximumCandidates) {
            guard let id = estimate.place, let index = indexByID[id], floor == nil || places[index].floor == floor,
                  estimate.probability > 0, seen.insert(index).inserted else { continue }
            found.append((index, estimate.probability))
        }
        let total = found.reduce(0) { $0 + $1.probability }
        let scale = total > 1 ? 1 / total : 1
        found.sort { a, b in
            a.probability != b.probability ? a.probability > b.probability : sizeRank[a.index] < sizeRank[b.index]
        }
        let memberships = found.map { Membership(place: places[$0.index], probability: $0.probability * scale) }
        return Distribution(places: memberships, none: Swift.max(0, 1 - total * scale))
    }

    /// The places of `floor` (every floor when `nil`) whose bounding box comes within `reach` of
    /// `point`, smallest first; at most ``maximumCandidates``, the nearest.
    private func candidateIndices(around point: PlanarPoint, floor: Int?, reach: Double) -> [Int] {
        var near: [(index: Int, distance: Double)] = []
        for index in bySize where floor == nil || floor == places[index].floor {
            let distance = shapes[index].boxDistance(to: point)
            if distance <= reach { near.append((index, distance)) }
        }
        let limit = Swift.max(1, maximumCandidates)
        if near.count > limit {
            // The nearest, then back in size order.
            near.sort { ($0.distance, sizeRank[$0.index]) < ($1.distance, sizeRank[$1.index]) }
            near.removeLast(near.count - limit)
            near.sort { sizeRank[$0.index] < sizeRank[$1.index] }
        }
        return near.map(\.index)
    }

    /// The mass of the part of `stretch` (in standard deviations from the fix) not yet in
    /// `claimed`, which then takes it in; `claimed` stays sorted and disjoint.
    private static func claim(_ stretch: (start: Double, end: Double), in claimed: inout [(start: Double, end: Double)]) -> Double {
        /// exp(−a²/2) − exp(−b²/2), without cancellation when a and b are close (a huge σ).
        @inline(__always) func weight(_ a: Double, _ b: Double) -> Double {
            guard b > a else { return 0 }
            guard b.isFinite else { return exp(-0.5 * a * a) }
            return -exp(-0.5 * a * a) * expm1(-0.5 * (b - a) * (b + a))
        }
        var mass = 0.0
        var cursor = stretch.start
        var insertAt = claimed.count
        for (position, taken) in claimed.enumerated() {
            if taken.end <= cursor { continue }
            if insertAt == claimed.count { insertAt = position }
            if taken.start >= stretch.end { break }
            if taken.start > cursor { mass += weight(cursor, taken.start) }
            cursor = Swift.max(cursor, taken.end)
            if cursor >= stretch.end { break }
        }
        if cursor < stretch.end { mass += weight(cursor, stretch.end) }
        // Merge the stretch into the claimed list.
        var start = stretch.start, end = stretch.end
        var first = insertAt
        while first > 0, claimed[first - 1].end >= start { first -= 1 }
        var last = first
        while last < claimed.count, claimed[last].start <= end {
            start = Swift.min(start, claimed[last].start)
            end = Swift.max(end, claimed[last].end)
            last += 1
        }
        claimed.replaceSubrange(first..<last, with: [(start, end)])
        return mass
    }

    /// A place's geometry, ready for rays: a circle, or a polygon's vertices, and a bounding box.
    struct Outline: Sendable {
        var isCircle: Bool
        var centerX = 0.0, centerY = 0.0, radius = 0.0
        var xs: [Double] = [], ys: [Double] = []
        var minX = 0.0, minY = 0.0, maxX = 0.0, maxY = 0.0
        var area: Double
        let shape: Venue.Place.Shape

        init(_ place: Venue.Place) {
            shape = place.shape
            area = place.shape.area ?? .infinity
            switch place.shape {
            case .circle(let center, let radius, _):
                isCircle = true
                centerX = center.x
                centerY = center.y
                self.radius = radius
                minX = center.x - radius
                maxX = center.x + radius
                minY = center.y - radius
                maxY = center.y + radius
            case .polygon(let vertices):
                isCircle = false
                xs = vertices.map(\.x)
                ys = vertices.map(\.y)
                minX = xs.min() ?? 0
                maxX = xs.max() ?? 0
                minY = ys.min() ?? 0
                maxY = ys.max() ?? 0
            case .label:
                isCircle = false
                minX = .infinity
                minY = .infinity
                maxX = -.infinity
                maxY = -.infinity
            }
        }

        /// The distance from a point to the bounding box (0 inside it).
        func boxDistance(to point: PlanarPoint) -> Double {
            let dx = Swift.max(minX - point.x, 0, point.x - maxX)
            let dy = Swift.max(minY - point.y, 0, point.y - maxY)
            let distance = (dx * dx + dy * dy).squareRoot()
            return distance.isNaN ? .infinity : distance
        }

        /// Whether the shape contains the point (edge included).
        func contains(_ point: PlanarPoint) -> Bool {
            shape.contains(point)
        }

        /// The stretches of the ray `mean + t·direction`, t ≥ 0, inside the shape, as t·`scale`.
        func stretches(from mean: PlanarPoint, direction: (x: Double, y: Double), scale: Double,
                       into stretches: inout [(start: Double, end: Double)], crossings: inout [Double]) {
            stretches.removeAll(keepingCapacity: true)
            if isCircle {
                let cx = centerX - mean.x, cy = centerY - mean.y
                let b = direction.x * cx + direction.y * cy
                let discriminant = b * b - (cx * cx + cy * cy - radius * radius)
                guard discriminant > 0 else { return }
                let root = discriminant.squareRoot()
                let far = b + root
                guard far > 0 else { return }
                stretches.append((Swift.max(0, b - root) * scale, far * scale))
                return
            }
            let count = xs.count
            guard count >= 3 else { return }
            crossings.removeAll(keepingCapacity: true)
            // An edge P→Q crosses the ray's line when its ends lie on either side (half-open:
            // a vertex on the line counts for one edge); the crossing counts when ahead of the fix.
            var px = xs[count - 1] - mean.x, py = ys[count - 1] - mean.y
            var sideP = direction.x * py - direction.y * px
            for k in 0..<count {
                let qx = xs[k] - mean.x, qy = ys[k] - mean.y
                let sideQ = direction.x * qy - direction.y * qx
                if (sideP > 0) != (sideQ > 0) {
                    let u = sideP / (sideP - sideQ)
                    let t = direction.x * (px + u * (qx - px)) + direction.y * (py + u * (qy - py))
                    if t > 0 { crossings.append(t) }
                }
                px = qx
                py = qy
                sideP = sideQ
            }
            guard !crossings.isEmpty else { return }
            crossings.sort()
            // An odd number of crossings ahead: the fix is inside, the first stretch starts at it.
            var k = 0
            if crossings.count % 2 == 1 {
                stretches.append((0, crossings[0] * scale))
                k = 1
            }
            while k + 1 < crossings.count {
                stretches.append((crossings[k] * scale, crossings[k + 1] * scale))
                k += 2
            }
        }
    }
}
