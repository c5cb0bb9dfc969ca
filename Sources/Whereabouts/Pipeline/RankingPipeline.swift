/// A venue's places ranked by distance from each device's fixes (Hekaerge's rules,
/// ``PlaceRanking``), one ranking per device, telling when the order a device shows changed. What
/// `whereabouts rank` runs after a ``FixPipeline``.
///
/// With a `top`, only the first places of each order are shown, and a change below them is no
/// change.
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
    }

    /// The places ranked, in the venue's order.
    public let places: [Venue.Place]
    /// How many places of each order are shown, or `nil` for all.
    public let top: Int?
    private let empty: PlaceRanking
    private var devices = DeviceSlots<Device>()

    /// Rankings of `places`, showing the first `top` of each order (all when `nil`; at least 1).
    public init(places: [Venue.Place], top: Int? = nil) {
        self.places = places
        self.top = top.map { max(1, $0) }
        empty = PlaceRanking(places: places)
    }

    /// Devices seen so far.
    public var deviceCount: Int { devices.count }

    /// Moves the fix's device to the fix and returns the places now shown for it, with their
    /// distances, when the places shown or their order changed (always on the device's first
    /// fix); `nil` otherwise.
    public mutating func update(with fix: Fix) -> [PlaceRanking.RankedPlace]? {
        update(device: fix.device, position: PlaceRanking.Position(fix: fix))
    }

    /// Moves a device to a position that is not a fix — Hekaerge's nearest beacon with a known
    /// place (``PlaceRanking/nearestBeacon(of:in:)``) when the scan gives no fix — and returns
    /// the places now shown for it as ``update(with:)`` does.
    public mutating func update(device: String?, position: PlaceRanking.Position) -> [PlaceRanking.RankedPlace]? {
        let empty = empty
        let slot = devices.slot(device: device, track: nil) { Device(ranking: empty) }
        let top = top
        return devices.update(slot) { device -> [PlaceRanking.RankedPlace]? in
            guard device.ranking.update(position: position) else { return nil }
            let places = top.map { Array(device.ranking.rankedPlaces.prefix($0)) } ?? device.ranking.rankedPlaces
            let shown = places.map(\.place.id)
            guard shown != device.shown else { return nil }
            device.shown = shown
            return places
        }
    }
}
