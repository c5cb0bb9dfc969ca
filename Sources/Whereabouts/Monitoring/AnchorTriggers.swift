/// A beacon placed where a user would stand, with what is known about that spot — NaviBeacon's
/// beacon and its `NaviBeaconData`.
///
/// ```swift
/// let desk = AnchorBeacon(id: "front-desk", beacon: .iBeacon(identity),
///                         coordinate: GeoCoordinate(latitude: 41.3551, longitude: 2.1322), heading: 90, floor: 0)
/// ```
struct AnchorBeacon: Hashable, Sendable {
    /// A label to tell anchors apart.
    var id: String
    /// How readings name the beacon.
    var beacon: BeaconReference
    /// Latitude and longitude of the spot, if known.
    var coordinate: GeoCoordinate?
    /// The spot in the venue's local frame, if known.
    var point: PlanarPoint?
    /// The heading a user there faces, degrees clockwise from north, if known.
    var heading: Double?
    /// The floor of the spot, if known.
    var floor: Int?

    /// Creates an anchor; every piece of data is optional.
    init(id: String, beacon: BeaconReference, coordinate: GeoCoordinate? = nil, point: PlanarPoint? = nil,
                heading: Double? = nil, floor: Int? = nil) {
        self.id = id
        self.beacon = beacon
        self.coordinate = coordinate
        self.point = point
        self.heading = heading
        self.floor = floor
    }

    /// The anchor of a venue beacon: its local position and floor, its coordinate when the venue
    /// has an origin (or the file gave one), no heading.
    init(venueBeacon beacon: Venue.Beacon, in venue: Venue) {
        var point: PlanarPoint?
        if let x = beacon.x, let y = beacon.y { point = PlanarPoint(x: x, y: y) }
        let coordinate = beacon.coordinate ?? point.flatMap { venue.localFrame?.coordinate(for: $0) }
        self.init(id: beacon.id, beacon: .id(beacon.id), coordinate: coordinate, point: point, floor: beacon.floor)
    }
}

/// A beacon heard in one ranging round: which anchor, how close, how loud (CoreLocation's `CLBeacon`).
struct AnchorSighting: Hashable, Sendable {
    /// The beacon, as the reading named it.
    var beacon: BeaconReference
    /// How close it is.
    var proximity: Proximity
    /// The RSSI, dBm.
    var rssi: Double
    /// When, seconds on the scans' clock.
    var time: Double

    /// Creates a sighting.
    init(beacon: BeaconReference, proximity: Proximity, rssi: Double, time: Double) {
        self.beacon = beacon
        self.proximity = proximity
        self.rssi = rssi
        self.time = time
    }
}

/// The location fix an anchor sets: what the anchor knows about its spot.
struct AnchorFix: Hashable, Sendable {
    /// The anchor's id.
    var anchor: String
    /// When, the sighting's time.
    var time: Double
    /// The spot's latitude and longitude, when the anchor has both.
    var coordinate: GeoCoordinate?
    /// The spot in the local frame, when known.
    var point: PlanarPoint?
    /// The heading to set, when the anchor has one (otherwise keep the last heading).
    var heading: Double?
    /// The floor to set, when the anchor has one.
    var floor: Int?
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
/// ```swift
/// var triggers = AnchorTriggers()
/// triggers.add(desk)
/// triggers.process(AnchorSighting(beacon: desk.beacon, proximity: .immediate, rssi: -45, time: 10))   // a fix
/// triggers.process(AnchorSighting(beacon: desk.beacon, proximity: .immediate, rssi: -44, time: 11))   // nil: disarmed
/// ```
struct AnchorTriggers: Sendable {
    /// The rounds at ``Proximity/near`` an anchor needs to re-arm; default 5.
    var rearmRounds: Int
    /// A callback that replaces the default behaviour: it gets every sighting of an anchor, and
    /// ``process(_:)`` then returns `nil`.
    var onSighting: (@Sendable (AnchorSighting, AnchorBeacon) -> Void)?
    /// The anchors, in the order added.
    private(set) var anchors: [AnchorBeacon] = []
    /// Whether sightings are ignored (NaviBeacon's `pauseScanning`).
    private(set) var isPaused = false
    private var countdowns: [BeaconReference: Int] = [:]

    /// Creates triggers with no anchors.
    init(rearmRounds: Int = 5, onSighting: (@Sendable (AnchorSighting, AnchorBeacon) -> Void)? = nil) {
        self.rearmRounds = rearmRounds
        self.onSighting = onSighting
    }

    /// Adds an anchor, armed; an anchor of the same beacon is replaced (and re-armed).
    mutating func add(_ anchor: AnchorBeacon) {
        anchors.removeAll { $0.beacon == anchor.beacon }
        anchors.append(anchor)
        countdowns[anchor.beacon] = nil
    }

    /// Removes the anchor of a beacon.
    mutating func remove(_ beacon: BeaconReference) {
        anchors.removeAll { $0.beacon == beacon }
        countdowns[beacon] = nil
    }

    /// Whether the anchor of a beacon would fire on its next immediate sighting.
    func isArmed(_ beacon: BeaconReference) -> Bool {
        anchors.contains { $0.beacon == beacon } && (countdowns[beacon] ?? 0) == 0
    }

    /// The near rounds the anchor of a beacon still needs to re-arm (0 when armed).
    func countdown(_ beacon: BeaconReference) -> Int {
        countdowns[beacon] ?? 0
    }

    /// Ignores sightings until ``resume()``.
    mutating func pause() { isPaused = true }

    /// Takes sightings again.
    mutating func resume() { isPaused = false }

    /// Takes in one sighting; returns the fix an armed anchor sets, if this sighting fires one.
    mutating func process(_ sighting: AnchorSighting) -> AnchorFix? {
        guard !isPaused, let anchor = anchors.first(where: { $0.beacon == sighting.beacon }) else { return nil }
        if let onSighting {
            onSighting(sighting, anchor)
            return nil
        }
        let remaining = countdowns[anchor.beacon] ?? 0
        switch sighting.proximity {
        case .immediate:
            guard remaining == 0 else { return nil }
            countdowns[anchor.beacon] = Swift.max(0, rearmRounds)
            return AnchorFix(anchor: anchor.id, time: sighting.time, coordinate: anchor.coordinate,
                             point: anchor.point, heading: anchor.heading, floor: anchor.floor)
        case .near:
            if remaining > 0 { countdowns[anchor.beacon] = remaining - 1 }
            return nil
        case .far, .unknown:
            return nil
        }
    }
}
