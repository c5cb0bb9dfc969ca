import Foundation

/// A beacon placed where a user would stand, with what is known about that spot — NaviBeacon's
/// beacon and its `NaviBeaconData`. It matches one beacon, or every beacon of a proximity UUID
/// (NaviBeacon ranged by UUID).
///
/// ```swift
/// let desk = AnchorBeacon(id: "front-desk", uuid: uuid,
///                         coordinate: GeoCoordinate(latitude: 41.3551, longitude: 2.1322), heading: 90, floor: 0)
/// let door = AnchorBeacon(id: "door", beacon: .id("b2"), point: PlanarPoint(x: 3, y: 4), floor: 1)
/// ```
public struct AnchorBeacon: Hashable, Sendable {
    /// Which beacons an anchor answers to.
    public enum Match: Hashable, Sendable {
        /// One beacon, as readings name it (a venue id, or an iBeacon or Eddystone identity).
        case beacon(BeaconReference)
        /// Every iBeacon of a region: a proximity UUID, optionally narrowed to a major and minor.
        case region(BeaconRegion)
    }

    /// A label to tell anchors apart.
    public var id: String
    /// The beacons it answers to.
    public var match: Match
    /// Latitude and longitude of the spot, if known.
    public var coordinate: GeoCoordinate?
    /// The spot in the venue's local frame, if known.
    public var point: PlanarPoint?
    /// The heading a user there faces, degrees clockwise from north, if known.
    public var heading: Double?
    /// The floor of the spot, if known.
    public var floor: Int?

    /// Creates an anchor for the beacons `match` names; every piece of data is optional.
    public init(id: String, match: Match, coordinate: GeoCoordinate? = nil, point: PlanarPoint? = nil,
                heading: Double? = nil, floor: Int? = nil) {
        self.id = id
        self.match = match
        self.coordinate = coordinate
        self.point = point
        self.heading = heading
        self.floor = floor
    }

    /// Creates an anchor of one beacon.
    public init(id: String, beacon: BeaconReference, coordinate: GeoCoordinate? = nil, point: PlanarPoint? = nil,
                heading: Double? = nil, floor: Int? = nil) {
        self.init(id: id, match: .beacon(beacon), coordinate: coordinate, point: point, heading: heading, floor: floor)
    }

    /// Creates an anchor of every beacon of a proximity UUID (NaviBeacon's `addBeacon`).
    public init(id: String, uuid: UUID, coordinate: GeoCoordinate? = nil, point: PlanarPoint? = nil,
                heading: Double? = nil, floor: Int? = nil) {
        // The region is named by its UUID, so that two anchors of one UUID have the same match.
        self.init(id: id, match: .region(BeaconRegion(uuid: uuid, referenceId: uuid.uuidString)), coordinate: coordinate,
                  point: point, heading: heading, floor: floor)
    }

    /// The anchor of a venue beacon: its local position and floor, its coordinate when the venue
    /// has an origin (or the file gave one), no heading.
    public init(venueBeacon beacon: Venue.Beacon, in venue: Venue) {
        var point: PlanarPoint?
        if let x = beacon.x, let y = beacon.y { point = PlanarPoint(x: x, y: y) }
        let coordinate = beacon.coordinate ?? point.flatMap { venue.localFrame?.coordinate(for: $0) }
        self.init(id: beacon.id, beacon: .id(beacon.id), coordinate: coordinate, point: point, floor: beacon.floor)
    }

    /// Whether a ranged beacon is one of this anchor's: the same reference, the same iBeacon
    /// identity, or an identity inside the anchor's region.
    public func matches(_ ranged: RangedBeacon) -> Bool {
        switch match {
        case .beacon(let reference):
            if reference == ranged.beacon { return true }
            if case .iBeacon(let identity) = reference { return ranged.identity == identity }
            return false
        case .region(let region):
            return ranged.identity.map(region.contains) ?? false
        }
    }
}

/// The location fix an anchor sets: what the anchor knows about its spot.
public struct AnchorFix: Hashable, Sendable {
    /// The anchor's id.
    public var anchor: String
    /// When, the sighting's time.
    public var time: Double
    /// The spot's latitude and longitude, when the anchor has both.
    public var coordinate: GeoCoordinate?
    /// The spot in the local frame, when known.
    public var point: PlanarPoint?
    /// The heading to set, when the anchor has one (otherwise keep the last heading).
    public var heading: Double?
    /// The floor to set, when the anchor has one.
    public var floor: Int?

    /// Creates a fix.
    public init(anchor: String, time: Double, coordinate: GeoCoordinate? = nil, point: PlanarPoint? = nil,
                heading: Double? = nil, floor: Int? = nil) {
        self.anchor = anchor
        self.time = time
        self.coordinate = coordinate
        self.point = point
        self.heading = heading
        self.floor = floor
    }
}

/// The device's location, heading and floor as anchors set them — what NaviBeacon set on its
/// MotionDna core.
///
/// ``apply(_:)`` follows NaviBeacon's default: the location only when the anchor has both a
/// latitude and a longitude (keeping the last heading), the heading when it has one, the floor
/// when it has one.
///
/// ```swift
/// var state = AnchoredState()
/// if let fix = triggers.process(ranged) { state.apply(fix) }
/// print(state.coordinate as Any, state.heading as Any, state.floor as Any)
/// ```
public struct AnchoredState: Hashable, Sendable {
    /// The location last set.
    public var coordinate: GeoCoordinate?
    /// The location last set on the venue's plan, when the anchor knew it.
    public var point: PlanarPoint?
    /// The heading, degrees clockwise from north.
    public var heading: Double?
    /// The floor.
    public var floor: Int?
    /// The anchor that last set something, and when.
    public var lastAnchor: String?
    /// When the state last changed.
    public var time: Double?

    /// Creates a state that knows nothing.
    public init() {}

    /// Applies an anchor's fix, NaviBeacon's way (see the type's discussion).
    public mutating func apply(_ fix: AnchorFix) {
        if let coordinate = fix.coordinate {
            self.coordinate = coordinate
            point = fix.point
        } else if let point = fix.point {
            self.point = point
        }
        if let heading = fix.heading { self.heading = heading }
        if let floor = fix.floor { self.floor = floor }
        lastAnchor = fix.anchor
        time = fix.time
    }
}

/// NaviBeacon's behaviour: set the device's location from a beacon's data when the device is
/// right at it, then wait until it has stepped back before doing so again.
///
/// Per anchor: on an ``Proximity/immediate`` sighting an armed anchor emits an ``AnchorFix`` and
/// disarms with a countdown of ``rearmRounds`` (default 5); each ``Proximity/near`` round counts
/// that anchor's countdown down by one and it re-arms at zero; ``Proximity/far`` and
/// ``Proximity/unknown`` rounds do not count. Each anchor has its own countdown (NaviBeacon
/// shared one between all its beacons). A custom ``onSighting`` callback, called with every
/// sighting of an anchor and its data, replaces the default behaviour (as NaviBeacon's
/// `onBeaconChanged` did).
///
/// Feed it the ranging rounds of any source with a ``BeaconRanger``:
///
/// ```swift
/// var ranger = BeaconRanger(venue: venue)
/// var triggers = AnchorTriggers()
/// var state = AnchoredState()
/// triggers.add(desk)
/// for scan in scans {
///     for round in ranger.add(scan) { for fix in triggers.process(round: round) { state.apply(fix) } }
/// }
/// ```
public struct AnchorTriggers: Sendable {
    /// The rounds at ``Proximity/near`` an anchor needs to re-arm; default 5.
    public var rearmRounds: Int
    /// A callback that replaces the default behaviour: it gets every sighting of an anchor, and
    /// ``process(_:)`` then returns `nil`.
    public var onSighting: (@Sendable (RangedBeacon, AnchorBeacon) -> Void)?
    /// The anchors, in the order added.
    public private(set) var anchors: [AnchorBeacon] = []
    /// Whether sightings are ignored (NaviBeacon's `pauseScanning`).
    public private(set) var isPaused = false
    /// The most anchors kept; adding more drops the oldest (a bound on hostile input).
    public static let maximumAnchors = 4_096
    private var countdowns: [String: Int] = [:]

    /// Creates triggers with no anchors.
    public init(rearmRounds: Int = 5, onSighting: (@Sendable (RangedBeacon, AnchorBeacon) -> Void)? = nil) {
        self.rearmRounds = rearmRounds
        self.onSighting = onSighting
    }

    /// Adds an anchor, armed; an anchor with the same match (NaviBeacon: the same UUID) or the
    /// same id is replaced (and re-armed).
    public mutating func add(_ anchor: AnchorBeacon) {
        for old in anchors where old.match == anchor.match || old.id == anchor.id { countdowns[old.id] = nil }
        anchors.removeAll { $0.match == anchor.match || $0.id == anchor.id }
        if anchors.count >= Self.maximumAnchors, let oldest = anchors.first {
            countdowns[oldest.id] = nil
            anchors.removeFirst()
        }
        anchors.append(anchor)
        countdowns[anchor.id] = nil
    }

    /// Removes the anchor with an id.
    public mutating func remove(id: String) {
        anchors.removeAll { $0.id == id }
        countdowns[id] = nil
    }

    /// Whether the anchor `id` would fire on its next immediate sighting.
    public func isArmed(_ id: String) -> Bool {
        anchors.contains { $0.id == id } && (countdowns[id] ?? 0) == 0
    }

    /// The near rounds the anchor `id` still needs to re-arm (0 when armed).
    public func countdown(_ id: String) -> Int {
        countdowns[id] ?? 0
    }

    /// Ignores sightings until ``resume()``.
    public mutating func pause() { isPaused = true }

    /// Takes sightings again.
    public mutating func resume() { isPaused = false }

    /// The anchor a sighting goes to: the first added that matches it; `nil` when none does or
    /// while paused.
    public func anchor(matching sighting: RangedBeacon) -> AnchorBeacon? {
        isPaused ? nil : anchors.first { $0.matches(sighting) }
    }

    /// Takes in one ranging round; returns the fixes it fired, in the round's order.
    public mutating func process(round: [RangedBeacon]) -> [AnchorFix] {
        round.compactMap { process($0) }
    }

    /// Takes in one sighting; returns the fix an armed anchor sets, if this sighting fires one.
    /// The sighting goes to the first anchor that matches it.
    public mutating func process(_ sighting: RangedBeacon) -> AnchorFix? {
        guard let anchor = anchor(matching: sighting) else { return nil }
        if let onSighting {
            onSighting(sighting, anchor)
            return nil
        }
        let remaining = countdowns[anchor.id] ?? 0
        switch sighting.proximity {
        case .immediate:
            guard remaining == 0 else { return nil }
            countdowns[anchor.id] = Swift.max(0, rearmRounds)
            return AnchorFix(anchor: anchor.id, time: sighting.time, coordinate: anchor.coordinate,
                             point: anchor.point, heading: anchor.heading, floor: anchor.floor)
        case .near:
            if remaining > 0 { countdowns[anchor.id] = remaining - 1 }
            return nil
        case .far, .unknown:
            return nil
        }
    }
}
