/// Places kept in order of distance from the current position, with Hekaerge's policies for
/// overlapping geofences and floors.
///
/// The distance of a place is the distance from the position to its centre minus its radius (to
/// its nearest edge for a polygon): negative inside. Two places compare by the seed's rules:
///
/// 1. inside both, on the same floor: the smaller one first (by area: for circles, the smaller
///    radius);
/// 2. otherwise the nearer one first (so every place the position is inside comes before every
///    place it is outside);
/// 3. on a tie, or inside both on different floors: the place on the current floor first;
/// 4. otherwise the input order.
///
/// The seed's comparator is not a strict weak ordering (inside two places of two other floors it
/// calls them equal, whatever their sizes), so its results depended on the sorting algorithm.
/// Whereabouts sorts by a total order that agrees with every decision the seed's comparator does
/// make: the places the position is inside, those of the current floor first, each floor's
/// smaller first (then nearer, then input order); then the places it is outside, nearer first
/// (ties: current floor first, then input order). The order is therefore the same whatever the
/// order before, which is what lets ``update(position:)`` re-sort the previous order in place by
/// insertion — fast, since a small move of the position changes the order little. Labels (places
/// without geometry) are infinitely far and come last.
///
/// Unlike the seed, the distances are planar distances in the venue's local frame and units
/// (latitude/longitude places were converted, on the WGS84 ellipsoid, when the venue was read);
/// the seed's great-circle distances on a sphere differ from them by a few tenths of a percent.
///
/// ```swift
/// var ranking = PlaceRanking(places: venue.places)
/// ranking.orderedPlaces.map(\.id)                      // input order: no position yet
/// if ranking.update(position: .init(fix: fix)) {       // true when the order or the state changed
///     print(ranking.orderedPlaces.map(\.id))
/// }
/// ```
public struct PlaceRanking: Sendable {
    /// Where the ranking measures from: a point of the plan and, when known, the current floor.
    public struct Position: Hashable, Sendable {
        /// The point, venue units.
        public var point: PlanarPoint
        /// The current floor, or `nil` when unknown (no place is then "on the current floor").
        public var floor: Int?

        /// Creates a position.
        public init(point: PlanarPoint, floor: Int?) {
            self.point = point
            self.floor = floor
        }

        /// The position of a fix: its point on the plan and its floor.
        public init(fix: Fix) {
            self.init(point: fix.point.planar, floor: fix.floor)
        }
    }

    /// A place in the order, with its signed distance from the position.
    public struct RankedPlace: Hashable, Sendable {
        /// The place.
        public var place: Venue.Place
        /// Its distance from the position minus its radius (to its edge for a polygon), venue
        /// units; negative inside, `nil` when no position is known, `+∞` for a label.
        public var distance: Double?

        /// Whether the position is inside the place (on the edge counts as inside).
        public var isInside: Bool { (distance ?? .infinity) <= 0 }
    }

    /// The places in the order they were given (Hekaerge's `getDefaultLocations`).
    public let places: [Venue.Place]
    /// The position the order is measured from, or `nil` when none is known.
    public private(set) var position: Position?

    private let sizes: [Double]
    private let shapes: [Shape]
    private var distances: [Double]
    private var keys: [Key]
    /// Indices into ``places``, in ranked order.
    private var order: [Int]

    /// The precomputed geometry of a place, so that a re-sort costs one distance per place.
    private enum Shape: Sendable {
        case circle(x: Double, y: Double, radius: Double)
        case polygon([PlanarPoint])
        case label
    }

    /// Creates a ranking of `places`, in their order until a position is known.
    public init(places: [Venue.Place]) {
        self.places = places
        sizes = places.map { $0.shape.area ?? .infinity }
        shapes = places.map { place in
            switch place.shape {
            case .circle(let center, let radius, _): .circle(x: center.x, y: center.y, radius: radius)
            case .polygon(let vertices): .polygon(vertices)
            case .label: .label
            }
        }
        distances = Array(repeating: .infinity, count: places.count)
        keys = Array(repeating: Key(inside: false, first: 0, second: 0, third: 0, index: 0), count: places.count)
        order = Array(places.indices)
    }

    /// The places in ranked order, or in input order when no position is known (Hekaerge's
    /// `getOrderedLocations`).
    public var orderedPlaces: [Venue.Place] { order.map { places[$0] } }

    /// The places in ranked order with their distances (all `nil` when no position is known).
    public var rankedPlaces: [RankedPlace] {
        order.map { RankedPlace(place: places[$0], distance: position == nil ? nil : distances[$0]) }
    }

    /// The indices into ``places`` in ranked order.
    public var orderedIndices: [Int] { order }

    /// Moves the position (or forgets it, with `nil`) and re-sorts. Returns whether anything a
    /// listener cares about changed: the order, or whether a position is known. A position that
    /// moves without changing the order returns `false`.
    @discardableResult
    public mutating func update(position newPosition: Position?) -> Bool {
        let wasKnown = position != nil
        position = newPosition
        guard let newPosition else {
            // Back to the input order.
            var changed = wasKnown
            for i in order.indices where order[i] != i {
                order[i] = i
                changed = true
            }
            return changed
        }
        computeKeys(for: newPosition)
        return insertionSort() || !wasKnown
    }

    private mutating func computeKeys(for position: Position) {
        let px = position.point.x, py = position.point.y
        let floor = position.floor
        places.withUnsafeBufferPointer { places in
            for i in 0..<places.count {
                let distance: Double
                switch shapes[i] {
                case .circle(let x, let y, let radius):
                    let dx = px - x, dy = py - y
                    distance = (dx * dx + dy * dy).squareRoot() - radius
                case .polygon:
                    distance = places[i].shape.signedDistance(from: position.point)
                case .label:
                    distance = .infinity
                }
                distances[i] = distance
                let otherFloor: Double = places[i].floor == floor ? 0 : 1
                if distance <= 0 {
                    keys[i] = Key(inside: true, first: otherFloor, second: sizes[i], third: distance, index: i)
                } else {
                    keys[i] = Key(inside: false, first: distance, second: otherFloor, third: 0, index: i)
                }
            }
        }
    }

    /// Sorts ``order`` by ``keys`` by insertion, starting from the previous order; returns whether
    /// anything moved.
    private mutating func insertionSort() -> Bool {
        var moved = false
        let keys = self.keys
        order.withUnsafeMutableBufferPointer { order in
            keys.withUnsafeBufferPointer { keys in
                guard order.count > 1 else { return }
                for i in 1..<order.count {
                    let current = order[i]
                    let key = keys[current]
                    var j = i
                    while j > 0, key < keys[order[j - 1]] {
                        order[j] = order[j - 1]
                        j -= 1
                    }
                    if j != i {
                        order[j] = current
                        moved = true
                    }
                }
            }
        }
        return moved
    }

    /// The sort key of a place: every decision of the seed's comparator, as a lexicographic order.
    private struct Key: Sendable {
        /// Inside places (distance ≤ 0) come first.
        var inside: Bool
        /// Inside: 0 on the current floor, 1 elsewhere. Outside: the distance.
        var first: Double
        /// Inside: the area. Outside: 0 on the current floor, 1 elsewhere.
        var second: Double
        /// Inside: the distance. Outside: 0.
        var third: Double
        /// The input index, the last tie-breaker.
        var index: Int

        static func < (a: Key, b: Key) -> Bool {
            if a.inside != b.inside { return a.inside }
            if a.first != b.first { return a.first < b.first }
            if a.second != b.second { return a.second < b.second }
            if a.third != b.third { return a.third < b.third }
            return a.index < b.index
        }
    }
}

extension PlaceRanking {
    /// A beacon heard, for a position taken from the nearest beacon (Hekaerge's way, when no fix
    /// is available): which beacon, how close, how loud.
    public struct BeaconSighting: Hashable, Sendable {
        /// The beacon, as the reading named it.
        public var beacon: BeaconReference
        /// Its proximity class.
        public var proximity: Proximity
        /// Its RSSI, dBm; breaks ties between beacons of the same proximity (stronger first).
        public var rssi: Double

        /// Creates a sighting.
        public init(beacon: BeaconReference, proximity: Proximity, rssi: Double) {
            self.beacon = beacon
            self.proximity = proximity
            self.rssi = rssi
        }
    }

    /// The position Hekaerge used: the place of the nearest beacon in range that has a known
    /// position in `venue` — the closest proximity class first (`immediate < near < far <
    /// unknown`), then the strongest RSSI, then the first given — on that beacon's floor; `nil`
    /// when no beacon in range has one.
    ///
    /// Every call looks at the proximities afresh, so a beacon already in range that comes
    /// closer moves the position (the seed ignored such changes).
    ///
    /// ```swift
    /// let sightings = [PlaceRanking.BeaconSighting(beacon: .id("h3-1"), proximity: .near, rssi: -70)]
    /// ranking.update(position: PlaceRanking.position(nearestOf: sightings, in: venue))
    /// ```
    public static func position(nearestOf sightings: [BeaconSighting], in venue: Venue) -> Position? {
        var best: (sighting: BeaconSighting, position: Position)?
        for sighting in sightings {
            guard let index = venue.beaconIndex(for: sighting.beacon) else { continue }
            let beacon = venue.beacons[index]
            guard let x = beacon.x, let y = beacon.y, x.isFinite, y.isFinite else { continue }
            if let current = best?.sighting {
                guard sighting.proximity < current.proximity
                        || (sighting.proximity == current.proximity && sighting.rssi > current.rssi) else { continue }
            }
            best = (sighting, Position(point: PlanarPoint(x: x, y: y), floor: beacon.floor ?? 0))
        }
        return best?.position
    }
}
