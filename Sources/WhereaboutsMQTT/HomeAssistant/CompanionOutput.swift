import Foundation
import Whereabouts

/// Tags' positions and rooms as ESPresense's companion publishes them, with Home Assistant's MQTT
/// discovery, so that what already reads the companion — Home Assistant's `device_tracker` and
/// sensors, automations on the room — reads Whereabouts unchanged:
///
/// - `<base>/<tag>`: the place the tag is in (the venue's place id), or `not_home`; retained.
/// - `<base>/<tag>/attributes`: `{"x", "y", "z", "latitude", "longitude", "floor", "accuracy",
///   "confidence", "fixes", "last_seen", "source_type"}` of its latest fix; retained.
/// - `<discovery>/device_tracker/whereabouts_<tag>/config` and
///   `<discovery>/sensor/whereabouts_<tag>_room/config`: a tracker whose state is the place and
///   whose attributes are the above, and a room sensor; retained, once per tag.
/// - `<base>/status`: `online` while the bridge runs, `offline` as its last will (both trackers'
///   availability).
///
/// `confidence` is 0–100: 100 while the fix's accuracy radius is within a metre, 100 ÷ radius
/// beyond. Tags are published only when the venue's `tags` name them, unless
/// ``publishesUnnamedTags``.
public struct CompanionOutput: Sendable {
    /// The companion's topics' base.
    public var baseTopic: String
    /// Home Assistant's discovery prefix; `nil` publishes no discovery.
    public var discoveryPrefix: String?
    /// Whether tags the venue does not name are published too.
    public var publishesUnnamedTags: Bool
    private let namedTags: Set<String>
    private let metresPerUnit: Double

    /// An output for `venue`'s tags.
    public init(venue: Venue, baseTopic: String = "espresense/companion", discoveryPrefix: String? = "homeassistant",
                publishesUnnamedTags: Bool = false) {
        self.baseTopic = baseTopic
        self.discoveryPrefix = discoveryPrefix
        self.publishesUnnamedTags = publishesUnnamedTags
        namedTags = Set(venue.tags.map(\.id))
        metresPerUnit = venue.units.metres ?? 1
    }

    /// The last level of ``statusTopic``: `status`, or one per process when several share the
    /// tags (`status-1of2`), each tag's availability then its own process's.
    public var statusLevel = "status"

    /// Where the bridge says whether it runs.
    public var statusTopic: String { baseTopic + "/" + statusLevel }

    /// The last will to give the client: `offline` on ``statusTopic``, retained.
    public var will: MQTTMessage { MQTTMessage(topic: statusTopic, payload: "offline", qos: .atLeastOnce, retain: true) }

    /// What to publish once connected: `online` on ``statusTopic``, retained.
    public var online: MQTTMessage { MQTTMessage(topic: statusTopic, payload: "online", qos: .atLeastOnce, retain: true) }

    /// Whether `tag` is published.
    public func publishes(_ tag: String) -> Bool { publishesUnnamedTags || namedTags.contains(tag) }

    /// `tag` as one topic level and one Home Assistant object id: letters, digits, `-` and `_`
    /// kept, anything else `_`.
    public static func objectId(of tag: String) -> String {
        String(tag.prefix(128).unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_") ? Character(scalar) : "_"
        })
    }

    /// The tag's state topic.
    public func stateTopic(of tag: String) -> String { "\(baseTopic)/\(Self.objectId(of: tag))" }

    /// The retained state: the place the tag is in, or `not_home`.
    public func state(of tag: String, place: String?) -> MQTTMessage {
        MQTTMessage(topic: stateTopic(of: tag), payload: place ?? "not_home", qos: .atLeastOnce, retain: true)
    }

    /// The retained attributes of the tag's latest fix.
    public func attributes(of fix: Fix, tag: String) -> MQTTMessage {
        var members: [(key: String, value: JSONValue)] = [
            ("source_type", .string("bluetooth_le")),
            ("x", .number(Self.rounded(fix.point.x * metresPerUnit))),
            ("y", .number(Self.rounded(fix.point.y * metresPerUnit))),
            ("z", .number(Self.rounded(fix.point.z * metresPerUnit))),
        ]
        if let coordinate = fix.coordinate {
            members.append(("latitude", .number(coordinate.latitude)))
            members.append(("longitude", .number(coordinate.longitude)))
        }
        if let floor = fix.floor { members.append(("floor", .number(Double(floor)))) }
        let radius = fix.accuracy * metresPerUnit
        members.append(("accuracy", .number(Self.rounded(radius))))
        members.append(("confidence", .number((100 / max(1, radius)).rounded())))
        members.append(("fixes", .number(Double(fix.beacons.count))))
        members.append(("last_seen", .string(Date(timeIntervalSince1970: fix.time).formatted(.iso8601))))
        return MQTTMessage(topic: stateTopic(of: tag) + "/attributes", payload: JSONWriter().bytes(from: .object(members)),
                           qos: .atLeastOnce, retain: true)
    }

    /// Home Assistant's discovery of the tag: a `device_tracker` and a room `sensor` (none
    /// without a ``discoveryPrefix``).
    public func discovery(of tag: String) -> [MQTTMessage] {
        guard let discoveryPrefix else { return [] }
        let object = Self.objectId(of: tag)
        let device: JSONValue = .object([
            ("identifiers", .array([.string("whereabouts_\(object)")])),
            ("name", .string(tag)),
            ("manufacturer", .string("Whereabouts")),
        ])
        let availability: [(key: String, value: JSONValue)] = [
            ("availability_topic", .string(statusTopic)),
            ("payload_available", .string("online")),
            ("payload_not_available", .string("offline")),
        ]
        let tracker: JSONValue = .object([
            ("name", .null),
            ("unique_id", .string("whereabouts_\(object)")),
            ("object_id", .string("whereabouts_\(object)")),
            ("state_topic", .string(stateTopic(of: tag))),
            ("json_attributes_topic", .string(stateTopic(of: tag) + "/attributes")),
            ("source_type", .string("bluetooth_le")),
            ("payload_home", .string("home")),
            ("payload_not_home", .string("not_home")),
            ("device", device),
        ] + availability)
        let sensor: JSONValue = .object([
            ("name", .string("Room")),
            ("unique_id", .string("whereabouts_\(object)_room")),
            ("object_id", .string("whereabouts_\(object)_room")),
            ("state_topic", .string(stateTopic(of: tag))),
            ("icon", .string("mdi:map-marker")),
            ("device", device),
        ] + availability)
        return [
            MQTTMessage(topic: "\(discoveryPrefix)/device_tracker/whereabouts_\(object)/config",
                        payload: JSONWriter().bytes(from: tracker), qos: .atLeastOnce, retain: true),
            MQTTMessage(topic: "\(discoveryPrefix)/sensor/whereabouts_\(object)_room/config",
                        payload: JSONWriter().bytes(from: sensor), qos: .atLeastOnce, retain: true),
        ]
    }

    private static func rounded(_ value: Double) -> Double { (value * 1_000).rounded() / 1_000 }
}
