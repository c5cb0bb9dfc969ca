import Foundation

/// A belief over which room a device is in, carried from scan to scan: a sticky hidden-Markov
/// filter over the venue's places and "no place", fed with each fix's containment distribution
/// (``PlaceContainment/Distribution``).
///
/// Each scan, the belief first lets time pass — a device stays in its room with probability
/// exp(−Δt / ``Configuration/meanDwell``), and the rest moves to the rooms next to it (places
/// whose outlines come within ``Configuration/adjacency`` of each other) and to no place — then weighs each state by the share of
/// the fix it holds, raised to ``Configuration/evidenceExponent`` (below 1: consecutive fixes are
/// correlated, so each is worth less than independent evidence) and floored at
/// ``Configuration/evidenceFloor`` (a fix never rules a room out). The estimate is the most
/// probable state with its probability, which a ``PlaceMonitor`` turns into events: a room then
/// changes when the belief has moved, not when a fix strays; a device between rooms with no
/// room holding most of the belief is in none.
///
/// Without a fix, the belief only lets time pass. Its state is one probability per place of the
/// floor it was last on that holds any of it (at most ``Configuration/maximumStates``).
///
/// ```swift
/// var belief = PlaceBelief(venue: venue)
/// let estimate = belief.update(with: containment.placement(of: fix).distribution, at: scan.time)
/// for event in monitor.observe(estimate, at: scan.time) { … }
/// ```
public struct PlaceBelief: Sendable {
    /// The filter's settings.
    public struct Configuration: Hashable, Sendable {
        /// How fast the belief lets go of a room: the seconds over which all but e⁻¹ of it leaks
        /// to the neighbours (a mean dwell); default 2. Chosen with the exponent on the three-room
        /// fixture's seeds 1–5 (Fixtures/three-rooms) and the simulated family's seeds 1–5: 60 s
        /// with 0.5 held rooms too long (0.53–0.61 of scans right); with 1, the default
        /// algorithm's monitor is right for 0.86 of the fixture's scans at 5 s, 0.89 at 2 s and
        /// 0.93 at 1 s (but up to 1.3 × the walk's room changes), the posterior's 0.83, 0.87 and
        /// 0.90; on the family's small rooms 1 s loses (0.14, against 0.15 at 2 s and 0.16 at 5 s).
        public var meanDwell: Double
        /// The power each fix's shares are raised to, 0…1 (below 1: consecutive fixes count as
        /// less than independent evidence); default 1.
        public var evidenceExponent: Double
        /// The smallest share a state is weighed by; default 0.02.
        public var evidenceFloor: Double
        /// Places whose outlines (bounding boxes) come within this distance are next to each
        /// other, venue units; default 0.5.
        public var adjacency: Double
        /// The most states kept (the most probable); default 64.
        public var maximumStates: Int

        /// Creates settings.
        public init(meanDwell: Double = 2, evidenceExponent: Double = 1, evidenceFloor: Double = 0.02,
                    adjacency: Double = 0.5, maximumStates: Int = 64) {
            self.meanDwell = meanDwell
            self.evidenceExponent = evidenceExponent
            self.evidenceFloor = evidenceFloor
            self.adjacency = adjacency
            self.maximumStates = maximumStates
        }
    }

    /// The settings.
    public let configuration: Configuration
    /// The probability of each place (by id) holding some of the belief; `nil` keys "no place".
    public private(set) var probabilities: [String?: Double] = [:]
    /// The time of the last update.
    public private(set) var time: Double?
    private let neighbours: [String: Set<String>]

    /// A belief over `venue`'s places with a geometry, knowing nothing yet.
    public init(venue: Venue, configuration: Configuration = Configuration()) {
        self.init(neighbours: Self.neighbours(of: venue.places, within: configuration.adjacency), configuration: configuration)
    }

    /// A belief over places whose neighbours are known (``neighbours(of:within:)``, worked out
    /// once for every device's belief).
    init(neighbours: [String: Set<String>], configuration: Configuration) {
        self.configuration = configuration
        self.neighbours = neighbours
    }

    /// Takes in a fix's distribution over places at `time`; returns the most probable state
    /// (`place` `nil`: no place) and its probability.
    public mutating func update(with distribution: PlaceContainment.Distribution, at time: Double) -> PlaceEstimate {
        advance(to: time)
        // The shares among the places: a fix's Gaussian spilling past the venue's outer walls is
        // its radius, not evidence of being outside. A fix with (nearly) nothing in any place is
        // evidence of no place.
        let total = distribution.total
        var evidence: [String?: Double] = [:]
        if total < configuration.evidenceFloor {
            evidence[nil] = 1
        } else {
            for membership in distribution.places { evidence[membership.place.id, default: 0] += membership.probability / total }
        }
        if probabilities.isEmpty {
            // The first fix: its own shares.
            probabilities = evidence
        } else {
            for key in Self.ordered(Set(probabilities.keys).union(evidence.keys)) {
                let share = Swift.max(configuration.evidenceFloor, evidence[key] ?? 0)
                probabilities[key] = (probabilities[key] ?? 0) * pow(share, configuration.evidenceExponent)
            }
        }
        normalize()
        return estimate
    }

    /// Lets time pass to `time`: the belief leaks out of each room toward its neighbours.
    public mutating func advance(to time: Double) {
        defer { self.time = Swift.max(self.time ?? time, time) }
        guard let last = self.time, time > last, !probabilities.isEmpty else { return }
        let stay = exp(-(time - last) / Swift.max(configuration.meanDwell, 1e-9))
        var next: [String?: Double] = [:]
        // In a fixed order (dictionaries iterate in a per-process order), so that the sums, and
        // the rooms entered, are the same on every run.
        for state in Self.ordered(probabilities.keys) {
            let probability = probabilities[state] ?? 0
            next[state, default: 0] += probability * stay
            let targets = self.targets(from: state)
            guard !targets.isEmpty else { next[state, default: 0] += probability * (1 - stay); continue }
            let each = probability * (1 - stay) / Double(targets.count)
            for target in targets { next[target, default: 0] += each }
        }
        probabilities = next
        normalize()
    }

    /// The most probable state and its probability (no place with probability 1 before any fix),
    /// as a belief (``PlaceEstimate/isBelief``).
    public var estimate: PlaceEstimate {
        guard let best = probabilities.max(by: { a, b in
            a.value != b.value ? a.value < b.value : (a.key ?? "") > (b.key ?? "")
        }) else { return PlaceEstimate(place: nil, probability: 1, isBelief: true) }
        return PlaceEstimate(place: best.key, probability: best.value, isBelief: true)
    }

    /// Where a device in `state` may go: the neighbouring places and no place (from no place:
    /// the places the belief holds).
    private func targets(from state: String?) -> [String?] {
        guard let state else { return probabilities.keys.compactMap { $0 }.sorted().map { $0 } }
        return [nil] + (neighbours[state] ?? []).sorted().map { $0 }
    }

    /// States in a fixed order: no place first, then the places by id.
    private static func ordered<States: Sequence>(_ states: States) -> [String?] where States.Element == String? {
        states.sorted { a, b in
            guard let a else { return b != nil }
            guard let b else { return false }
            return a < b
        }
    }

    private mutating func normalize() {
        var kept = probabilities.filter { $0.value > 1e-12 }
        if kept.count > configuration.maximumStates {
            let order = Self.ordered(kept.keys)
            let ranked = order.enumerated().sorted { a, b in
                let (pa, pb) = (kept[a.element] ?? 0, kept[b.element] ?? 0)
                return pa != pb ? pa > pb : a.offset < b.offset
            }
            kept = Dictionary(uniqueKeysWithValues: ranked.prefix(configuration.maximumStates).map { ($0.element, kept[$0.element] ?? 0) })
        }
        let total = Self.ordered(kept.keys).reduce(0) { $0 + (kept[$1] ?? 0) }
        guard total > 0, total.isFinite else { probabilities = [:]; return }
        probabilities = kept.mapValues { $0 / total }
    }

    /// Places whose bounding boxes (of the same floor) come within `distance` of each other.
    static func neighbours(of places: [Venue.Place], within distance: Double) -> [String: Set<String>] {
        let boxes: [(id: String, floor: Int, minX: Double, minY: Double, maxX: Double, maxY: Double)] = places.compactMap { place in
            switch place.shape {
            case .label: return nil
            case .circle(let center, let radius, _):
                return (place.id, place.floor, center.x - radius, center.y - radius, center.x + radius, center.y + radius)
            case .polygon(let points):
                guard let minX = points.map(\.x).min(), let maxX = points.map(\.x).max(),
                      let minY = points.map(\.y).min(), let maxY = points.map(\.y).max() else { return nil }
                return (place.id, place.floor, minX, minY, maxX, maxY)
            }
        }
        var found: [String: Set<String>] = [:]
        // A sweep along x: each box meets only those starting before it ends (plus the distance).
        let sorted = boxes.sorted { $0.minX < $1.minX }
        for (i, a) in sorted.enumerated() {
            for b in sorted[(i + 1)...] {
                if b.minX - a.maxX > distance { break }
                guard a.floor == b.floor else { continue }
                let gapX = Swift.max(0, Swift.max(a.minX, b.minX) - Swift.min(a.maxX, b.maxX))
                let gapY = Swift.max(0, Swift.max(a.minY, b.minY) - Swift.min(a.maxY, b.maxY))
                if (gapX * gapX + gapY * gapY).squareRoot() <= distance {
                    found[a.id, default: []].insert(b.id)
                    found[b.id, default: []].insert(a.id)
                }
            }
        }
        return found
    }
}
