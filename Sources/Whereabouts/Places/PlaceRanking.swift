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
/// The distances are planar distances in the venue's units, but for circles given by the
/// latitude and longitude of their centres when the ranking has the venue's frame
/// (``init(places:frame:)``): those are measured as the seed measured them, as great-circle
/// distances (``GeoCoordinate/distance(to:)``) from the position's coordinate, however far apart
/// the places are.
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

    // The geometry and the sort keys are kept per place in input order, one array per field, so
    // that the key loop runs over contiguous memory and vectorises; the ranked order is a
    // permutation sorted by insertion. The key of place i, compared lexicographically as
    // (a, b, c, i): inside (distance ≤ 0), a = −2 on the current floor and −1 elsewhere, b = the
    // area, c = the distance; outside, a = the distance (> 0), b = 0 on the current floor and 1
    // elsewhere, c = 0.
    private let xs: [Double], ys: [Double]
    /// Circle radii; a label's is −∞ so that its distance is +∞; a polygon's is unused.
    private let radii: [Double]
    private let sizes: [Double]
    private let floors: [Int]
    /// The indices of the polygon places, whose distances are measured to their edges.
    private let polygons: [Int]
    private var keyA: [Double], keyB: [Double], keyC: [Double]
    /// Indices into ``places``, in ranked order.
    private var order: [Int32]
    /// The frame that places the plan on the Earth, when great-circle distances are wanted.
    private let frame: LocalFrame?
    /// The circles measured by great-circle distance, and their centres.
    private let geodesic: [(index: Int, centre: GeoCoordinate)]

    /// Creates a ranking of `places`, in their order until a position is known. With `frame`
    /// (the venue's ``Venue/localFrame``), circles given by a latitude and longitude are ranked
    /// by great-circle distance from the position, as Hekaerge ranked its locations.
    public init(places: [Venue.Place], frame: LocalFrame? = nil) {
        self.places = places
        self.frame = frame
        var geodesic: [(index: Int, centre: GeoCoordinate)] = []
        if frame != nil {
            for (index, place) in places.enumerated() {
                if case .circle(_, _, let coordinate?) = place.shape, coordinate.isValid { geodesic.append((index, coordinate)) }
            }
        }
        self.geodesic = geodesic
        var xs: [Double] = [], ys: [Double] = [], radii: [Double] = [], polygons: [Int] = []
        for (index, place) in places.enumerated() {
            switch place.shape {
            case .circle(let center, let radius, _):
                xs.append(center.x)
                ys.append(center.y)
                radii.append(radius)
            case .polygon:
                xs.append(0)
                ys.append(0)
                radii.append(0)
                polygons.append(index)
            case .label:
                xs.append(0)
                ys.append(0)
                radii.append(-.infinity)
            }
        }
        self.xs = xs
        self.ys = ys
        self.radii = radii
        self.polygons = polygons
        sizes = places.map { $0.shape.area ?? .infinity }
        floors = places.map(\.floor)
        keyA = Array(repeating: .infinity, count: places.count)
        keyB = Array(repeating: 0, count: places.count)
        keyC = Array(repeating: 0, count: places.count)
        order = (0..<places.count).map { Int32(truncatingIfNeeded: $0) }
    }

    /// The signed distance of place `index` from the position.
    private func distance(_ index: Int) -> Double {
        keyA[index] > 0 ? keyA[index] : keyC[index]
    }

    /// The places in ranked order, or in input order when no position is known (Hekaerge's
    /// `getOrderedLocations`).
    public var orderedPlaces: [Venue.Place] { order.map { places[Int($0)] } }

    /// The places in ranked order with their distances (all `nil` when no position is known).
    public var rankedPlaces: [RankedPlace] {
        order.map { RankedPlace(place: places[Int($0)], distance: position == nil ? nil : distance(Int($0))) }
    }

    /// The indices into ``places`` in ranked order.
    public var orderedIndices: [Int] { order.map { Int($0) } }

    /// Moves the position (or forgets it, with `nil`) and re-sorts. Returns whether anything a
    /// listener cares about changed: the order, or whether a position is known. A position that
    /// moves without changing the order returns `false`.
    @discardableResult
    public mutating func update(position newPosition: Position?) -> Bool {
        let wasKnown = position != nil
        position = newPosition
        guard let newPosition else {
            // Back to the input order.
            var moved = false
            for i in order.indices where order[i] != Int32(truncatingIfNeeded: i) {
                order[i] = Int32(truncatingIfNeeded: i)
                moved = true
            }
            return moved || wasKnown
        }
        computeKeys(for: newPosition)
        return insertionSort() || !wasKnown
    }

    private mutating func computeKeys(for position: Position) {
        let px = position.point.x, py = position.point.y
        let hasFloor = position.floor != nil, currentFloor = position.floor ?? 0
        let count = places.count
        xs.withUnsafeBufferPointer { xs in
        ys.withUnsafeBufferPointer { ys in
        radii.withUnsafeBufferPointer { radii in
        sizes.withUnsafeBufferPointer { sizes in
        floors.withUnsafeBufferPointer { floors in
        keyA.withUnsafeMutableBufferPointer { keyA in
        keyB.withUnsafeMutableBufferPointer { keyB in
        keyC.withUnsafeMutableBufferPointer { keyC in
            for i in 0..<count {
                let dx = px - xs[i], dy = py - ys[i]
                let distance = (dx * dx + dy * dy).squareRoot() - radii[i]
                let onCurrentFloor = hasFloor && floors[i] == currentFloor
                let inside = distance <= 0
                keyA[i] = inside ? (onCurrentFloor ? -2 : -1) : distance
                keyB[i] = inside ? sizes[i] : (onCurrentFloor ? 0 : 1)
                keyC[i] = inside ? distance : 0
            }
        }}}}}}}}
        if let frame, !geodesic.isEmpty {
            let here = frame.coordinate(for: position.point)
            let metresPerUnit = frame.metresPerUnit > 0 && frame.metresPerUnit.isFinite ? frame.metresPerUnit : 1
            for (i, centre) in geodesic {
                setKey(i, distance: here.distance(to: centre) / metresPerUnit - radii[i], onCurrentFloor: hasFloor && floors[i] == currentFloor)
            }
        }
        for i in polygons {
            setKey(i, distance: places[i].shape.signedDistance(from: position.point), onCurrentFloor: hasFloor && floors[i] == currentFloor)
        }
    }

    /// The sort key of place `i` at a signed `distance` (the vectorised loop above writes the same).
    private mutating func setKey(_ i: Int, distance: Double, onCurrentFloor: Bool) {
        let inside = distance <= 0
        keyA[i] = inside ? (onCurrentFloor ? -2 : -1) : distance
        keyB[i] = inside ? sizes[i] : (onCurrentFloor ? 0 : 1)
        keyC[i] = inside ? distance : 0
    }

    /// Sorts ``order`` by insertion, starting from the previous order; returns whether anything moved.
    private mutating func insertionSort() -> Bool {
        var moved = false
        let count = order.count
        guard count > 1 else { return false }
        keyA.withUnsafeBufferPointer { a in
        keyB.withUnsafeBufferPointer { b in
        keyC.withUnsafeBufferPointer { c in
        order.withUnsafeMutableBufferPointer { order in
            @inline(__always) func less(_ p: Int32, _ q: Int32) -> Bool {
                let i = Int(p), j = Int(q)
                if a[i] != a[j] { return a[i] < a[j] }
                if b[i] != b[j] { return b[i] < b[j] }
                if c[i] != c[j] { return c[i] < c[j] }
                return p < q
            }
            for i in 1..<count {
                let current = order[i]
                guard less(current, order[i - 1]) else { continue }
                var j = i - 1
                order[i] = order[j]
                while j > 0, less(current, order[j - 1]) {
                    order[j] = order[j - 1]
                    j -= 1
                }
                order[j] = current
                moved = true
            }
        }}}}
        return moved
    }
}

extension PlaceRanking {
    /// A beacon heard, for a position taken from the nearest beacon (Hekaerge's way, when no fix
    /// is available): which beacon, how close, how loud.
    public struct HeardBeacon: Hashable, Sendable {
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

        /// The sighting of a beacon of a ranging round (``BeaconRanger``).
        public init(_ ranged: RangedBeacon) {
            self.init(beacon: ranged.beacon, proximity: ranged.proximity, rssi: ranged.rssi)
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
    /// let sightings = [PlaceRanking.HeardBeacon(beacon: .id("h3-1"), proximity: .near, rssi: -70)]
    /// ranking.update(position: PlaceRanking.position(nearestOf: sightings, in: venue))
    /// ```
    public static func position(nearestOf sightings: [HeardBeacon], in venue: Venue) -> Position? {
        nearestBeacon(of: sightings, in: venue)?.position
    }

    /// The beacon ``position(nearestOf:in:)`` takes the position from, with that position: the
    /// nearest beacon in range with a known position in `venue`, or `nil` when none has one.
    public static func nearestBeacon(of sightings: [HeardBeacon], in venue: Venue)
        -> (sighting: HeardBeacon, beacon: Venue.Beacon, position: Position)? {
        var best: (sighting: HeardBeacon, beacon: Venue.Beacon, position: Position)?
        for sighting in sightings {
            guard let index = venue.beaconIndex(for: sighting.beacon) else { continue }
            let beacon = venue.beacons[index]
            guard let x = beacon.x, let y = beacon.y, x.isFinite, y.isFinite else { continue }
            if let current = best?.sighting {
                guard sighting.proximity < current.proximity
                        || (sighting.proximity == current.proximity && sighting.rssi > current.rssi) else { continue }
            }
            best = (sighting, beacon, Position(point: PlanarPoint(x: x, y: y), floor: beacon.floor ?? 0))
        }
        return best
    }
}
