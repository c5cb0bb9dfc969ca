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

    /// One entry per place, kept in ranked order: its geometry, its floor and its sort key, side
    /// by side so that a re-sort walks memory in order.
    private var entries: [Entry]
    /// The circles' centres and radii in ranked order, apart from the entries so that the
    /// distance loop vectorises (a label's radius is −∞, so its distance is +∞; a polygon's is unused).
    private var xs: [Double], ys: [Double], radii: [Double]
    /// Scratch space for the distances of one update.
    private var scratch: [Double]

    /// A place's precomputed geometry and current sort key.
    private struct Entry: Sendable {
        /// The sort key, compared lexicographically as (a, b, c, index). Inside (distance ≤ 0):
        /// a = −2 on the current floor, −1 elsewhere; b = the area; c = the distance. Outside:
        /// a = the distance (> 0); b = 0 on the current floor, 1 elsewhere; c = 0.
        var a: Double = .infinity, b: Double = 0, c: Double = 0
        /// The area (+∞ for a label).
        let size: Double
        let floor: Int
        /// The index into ``PlaceRanking/places``, the last tie-breaker.
        let index: Int32
        /// Whether the place is a polygon (its distance is then measured to its edges).
        let isPolygon: Bool

        /// The signed distance from the position.
        var distance: Double { a > 0 ? a : c }

        @inline(__always)
        static func < (l: Entry, r: Entry) -> Bool {
            if l.a != r.a { return l.a < r.a }
            if l.b != r.b { return l.b < r.b }
            if l.c != r.c { return l.c < r.c }
            return l.index < r.index
        }
    }

    /// Creates a ranking of `places`, in their order until a position is known.
    public init(places: [Venue.Place]) {
        self.places = places
        entries = places.enumerated().map { index, place in
            Entry(size: place.shape.area ?? .infinity, floor: place.floor, index: Int32(truncatingIfNeeded: index),
                  isPolygon: { if case .polygon = place.shape { true } else { false } }())
        }
        var xs: [Double] = [], ys: [Double] = [], radii: [Double] = []
        for place in places {
            switch place.shape {
            case .circle(let center, let radius, _):
                xs.append(center.x)
                ys.append(center.y)
                radii.append(radius)
            case .polygon:
                xs.append(0)
                ys.append(0)
                radii.append(0)
            case .label:
                xs.append(0)
                ys.append(0)
                radii.append(-.infinity)
            }
        }
        self.xs = xs
        self.ys = ys
        self.radii = radii
        scratch = Array(repeating: 0, count: places.count)
    }

    /// The places in ranked order, or in input order when no position is known (Hekaerge's
    /// `getOrderedLocations`).
    public var orderedPlaces: [Venue.Place] { entries.map { places[Int($0.index)] } }

    /// The places in ranked order with their distances (all `nil` when no position is known).
    public var rankedPlaces: [RankedPlace] {
        entries.map { RankedPlace(place: places[Int($0.index)], distance: position == nil ? nil : $0.distance) }
    }

    /// The indices into ``places`` in ranked order.
    public var orderedIndices: [Int] { entries.map { Int($0.index) } }

    /// Moves the position (or forgets it, with `nil`) and re-sorts. Returns whether anything a
    /// listener cares about changed: the order, or whether a position is known. A position that
    /// moves without changing the order returns `false`.
    @discardableResult
    public mutating func update(position newPosition: Position?) -> Bool {
        let wasKnown = position != nil
        position = newPosition
        guard let newPosition else {
            // Back to the input order.
            let moved = entries.indices.contains { entries[$0].index != Int32(truncatingIfNeeded: $0) }
            if moved {
                // Undo the permutation of the geometry, then of the entries.
                var xs = xs, ys = ys, radii = radii
                for (position, entry) in entries.enumerated() {
                    let index = Int(entry.index)
                    xs[index] = self.xs[position]
                    ys[index] = self.ys[position]
                    radii[index] = self.radii[position]
                }
                self.xs = xs
                self.ys = ys
                self.radii = radii
                entries.sort { $0.index < $1.index }
            }
            return moved || wasKnown
        }
        computeKeys(for: newPosition)
        return insertionSort() || !wasKnown
    }

    private mutating func computeKeys(for position: Position) {
        let px = position.point.x, py = position.point.y
        let floor = position.floor
        let places = self.places
        let count = entries.count
        // The circles' distances in one loop the compiler can vectorise.
        xs.withUnsafeBufferPointer { xs in
            ys.withUnsafeBufferPointer { ys in
                radii.withUnsafeBufferPointer { radii in
                    scratch.withUnsafeMutableBufferPointer { distances in
                        for i in 0..<count {
                            let dx = px - xs[i], dy = py - ys[i]
                            distances[i] = (dx * dx + dy * dy).squareRoot() - radii[i]
                        }
                    }
                }
            }
        }
        let hasFloor = floor != nil, currentFloor = floor ?? 0
        let distances = scratch
        entries.withUnsafeMutableBufferPointer { entries in
            for i in entries.indices {
                let entry = entries[i]
                var distance = distances[i]
                if entry.isPolygon {
                    distance = places[Int(entry.index)].shape.signedDistance(from: position.point)
                }
                let onCurrentFloor = hasFloor && currentFloor == entry.floor
                if distance <= 0 {
                    entries[i].a = onCurrentFloor ? -2 : -1
                    entries[i].b = entry.size
                    entries[i].c = distance
                } else {
                    entries[i].a = distance
                    entries[i].b = onCurrentFloor ? 0 : 1
                    entries[i].c = 0
                }
            }
        }
    }

    /// Sorts ``entries`` by insertion, starting from the previous order; returns whether
    /// anything moved.
    private mutating func insertionSort() -> Bool {
        var moved = false
        let count = entries.count
        guard count > 1 else { return false }
        entries.withUnsafeMutableBufferPointer { entries in
            xs.withUnsafeMutableBufferPointer { xs in
                ys.withUnsafeMutableBufferPointer { ys in
                    radii.withUnsafeMutableBufferPointer { radii in
                        for i in 1..<count {
                            let current = entries[i]
                            guard current < entries[i - 1] else { continue }
                            let x = xs[i], y = ys[i], radius = radii[i]
                            var j = i - 1
                            while j > 0, current < entries[j - 1] { j -= 1 }
                            // Shift [j, i) up by one, the geometry along with the entries.
                            var k = i
                            while k > j {
                                entries[k] = entries[k - 1]
                                xs[k] = xs[k - 1]
                                ys[k] = ys[k - 1]
                                radii[k] = radii[k - 1]
                                k -= 1
                            }
                            entries[j] = current
                            xs[j] = x
                            ys[j] = y
                            radii[j] = radius
                            moved = true
                        }
                    }
                }
            }
        }
        return moved
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
