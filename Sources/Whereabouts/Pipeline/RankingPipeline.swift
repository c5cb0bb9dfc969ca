/// A venue's places ranked by distance from each device's fixes (Hekaerge's rules,
/// ``PlaceRanking``), one ranking per device, telling when the order a device shows changed. What
/// `whereabouts rank` runs after a ``FixPipeline``.
///
/// With a `top`, only the first places of each order are shown, and a change below them is no
/// change. With a `positionTimeout`, a live source's silence makes a device's position unknown
/// (``advance(to:)``): that many seconds after its last update its places fall back to the venue's
/// order, as Hekaerge's did when no beacon was in range.
///
/// ```swift
/// var rankings = RankingPipeline(places: venue.places, top: 3)
/// for fix in fixes {
///     if let shown = rankings.update(with: fix) { print(fix.device ?? "-", shown.map(\.place.id)) }
/// }
/// ```
public struct RankingPipeline: Sendable {
    /// One device's ranking and the places last shown for it.
    private struct Device: Sendable {
        var ranking: PlaceRanking
        var shown: [String]?
        /// When the position was last updated.
        var updated: Double?
    }

    /// A device whose position became unknown with time (``advance(to:)``).
    public struct Forgotten: Sendable {
        /// The device.
        public var device: String?
        /// When: its last update plus the timeout.
        public var time: Double
        /// The places now shown, in the venue's order, without distances.
        public var places: [PlaceRanking.RankedPlace]
    }

    /// The places ranked, in the venue's order.
    public let places: [Venue.Place]
    /// How many places of each order are shown, or `nil` for all.
    public let top: Int?
    /// Seconds without an update after which ``advance(to:)`` forgets a device's position, or
    /// `nil` to keep it.
    public let positionTimeout: Double?
    private let empty: PlaceRanking
    private var devices = DeviceSlots<Device>()

    /// Rankings of `places`, showing the first `top` of each order (all when `nil`; at least 1);
    /// a position is forgotten `positionTimeout` seconds after its last update when time passes
    /// without one (``advance(to:)``).
    public init(places: [Venue.Place], top: Int? = nil, positionTimeout: Double? = nil) {
        self.places = places
        self.top = top.map { max(1, $0) }
        self.positionTimeout = positionTimeout.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        empty = PlaceRanking(places: places)
    }

    /// Devices seen so far.
    public var deviceCount: Int { devices.count }

    /// Moves the fix's device to the fix and returns the places now shown for it, with their
    /// distances, when the places shown or their order changed (always on the device's first
    /// fix); `nil` otherwise.
    public mutating func update(with fix: Fix) -> [PlaceRanking.RankedPlace]? {
        update(device: fix.device, position: PlaceRanking.Position(fix: fix), at: fix.time)
    }

    /// Moves a device to a position that is not a fix — Hekaerge's nearest beacon with a known
    /// place (``PlaceRanking/nearestBeacon(of:in:)``) when the scan gives no fix — and returns
    /// the places now shown for it as ``update(with:)`` does.
    public mutating func update(device: String?, position: PlaceRanking.Position, at time: Double? = nil) -> [PlaceRanking.RankedPlace]? {
        let empty = empty
        let slot = devices.slot(device: device, track: nil) { Device(ranking: empty) }
        let top = top
        return devices.update(slot) { device -> [PlaceRanking.RankedPlace]? in
            if let time, time.isFinite { device.updated = Swift.max(device.updated ?? time, time) }
            return Self.show(position, on: &device, top: top)
        }
    }

    /// Lets time run on to `time` without an update (a live source's silence): the devices whose
    /// position is now ``positionTimeout`` seconds old forget it, and show the venue's order.
    public mutating func advance(to time: Double) -> [Forgotten] {
        guard let timeout = positionTimeout, time.isFinite else { return [] }
        var forgotten: [Forgotten] = []
        let top = top
        for slot in devices.indices {
            let name = devices.device(of: slot)
            devices.update(slot) { device in
                guard let updated = device.updated, device.ranking.position != nil, time >= updated + timeout else { return }
                device.updated = nil
                if let places = Self.show(nil, on: &device, top: top) {
                    forgotten.append(Forgotten(device: name, time: updated + timeout, places: places))
                }
            }
        }
        return forgotten
    }

    /// When the next position is forgotten without an update, or `nil` when none will be.
    public var nextDeadline: Double? {
        guard let timeout = positionTimeout else { return nil }
        var deadline: Double?
        for slot in devices.indices {
            let device = devices[slot]
            if let updated = device.updated, device.ranking.position != nil {
                deadline = Swift.min(deadline ?? updated + timeout, updated + timeout)
            }
        }
        return deadline
    }

    /// Moves (or forgets) a device's position; the places now shown when they changed.
    private static func show(_ position: PlaceRanking.Position?, on device: inout Device, top: Int?) -> [PlaceRanking.RankedPlace]? {
        guard device.ranking.update(position: position) else { return nil }
        let places = top.map { Array(device.ranking.rankedPlaces.prefix($0)) } ?? device.ranking.rankedPlaces
        let shown = places.map(\.place.id)
        guard shown != device.shown else { return nil }
        device.shown = shown
        return places
    }
}
