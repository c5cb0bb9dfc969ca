import Foundation

/// An event of the ``EventHub``: Bluenet Localization's events, typed, with their topic names and
/// JSON payloads.
///
/// | topic | payload |
/// |---|---|
/// | `iBeaconAdvertisement` | `[{"uuid", "major", "minor", "rssi", "referenceId", "idString"}, …]` |
/// | `enterRegion`, `exitRegion` | the region's reference id, a string |
/// | `enterLocation`, `exitLocation`, `currentLocation` | `{"region": referenceId or null, "location": placeId}` |
public struct MonitoringEvent: Hashable, Sendable {
    /// What happened.
    public enum Kind: Hashable, Sendable {
        /// The tracked beacons heard over about a second of scan time.
        case advertisements([BeaconPacket])
        /// A tracked region was entered.
        case enterRegion(referenceId: String)
        /// A tracked region was left.
        case exitRegion(referenceId: String)
        /// A place was entered; `region` is the region the device was last seen in, if any.
        case enterLocation(region: String?, location: String)
        /// A place was left.
        case exitLocation(region: String?, location: String)
        /// The device is in a place (after every place estimate while it is in one).
        case currentLocation(region: String?, location: String)
    }

    /// The topic names, Bluenet's.
    public enum Topic {
        /// `iBeaconAdvertisement`
        public static let advertisement = "iBeaconAdvertisement"
        /// `enterRegion`
        public static let enterRegion = "enterRegion"
        /// `exitRegion`
        public static let exitRegion = "exitRegion"
        /// `enterLocation`
        public static let enterLocation = "enterLocation"
        /// `exitLocation`
        public static let exitLocation = "exitLocation"
        /// `currentLocation`
        public static let currentLocation = "currentLocation"
        /// Every topic.
        public static let all = [advertisement, enterRegion, exitRegion, enterLocation, exitLocation, currentLocation]
    }

    /// When, seconds on the scans' clock.
    public var time: Double
    /// What happened.
    public var kind: Kind

    /// Creates an event.
    public init(time: Double, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    /// The event's topic name.
    public var topic: String {
        switch kind {
        case .advertisements: Topic.advertisement
        case .enterRegion: Topic.enterRegion
        case .exitRegion: Topic.exitRegion
        case .enterLocation: Topic.enterLocation
        case .exitLocation: Topic.exitLocation
        case .currentLocation: Topic.currentLocation
        }
    }

    /// The payload Bluenet documents for the topic.
    public var payload: JSONValue {
        func location(_ region: String?, _ location: String) -> JSONValue {
            .object([("region", region.map(JSONValue.string) ?? .null), ("location", .string(location))])
        }
        switch kind {
        case .advertisements(let packets): return .array(packets.map(\.json))
        case .enterRegion(let id), .exitRegion(let id): return .string(id)
        case .enterLocation(let region, let place), .exitLocation(let region, let place),
             .currentLocation(let region, let place): return location(region, place)
        }
    }

    /// `{"t": time, "topic": topic, "data": payload}`, one line of `whereabouts watch --json`.
    public var json: JSONValue {
        .object([("t", .number(time)), ("topic", .string(topic)), ("data", payload)])
    }
}
