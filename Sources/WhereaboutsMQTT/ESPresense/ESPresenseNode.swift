import Whereabouts

/// A gateway as an ESPresense node: each reading of a receiver's scan becomes the message an
/// ESPresense node publishes — `espresense/devices/<tag id>/<room>` with `{"id", "rssi",
/// "rssi@1m", "distance"}` — so that ESPresense's companion, Home Assistant's `mqtt_room` and
/// `whereabouts bridge` (``ESPresenseInput``) take a Linux gateway for one of its nodes.
///
/// ```swift
/// let node = ESPresenseNode(room: "kitchen")
/// for message in node.messages(for: scan) { try await client.publish(message) }
/// ```
public struct ESPresenseNode: Sendable {
    /// The room this node publishes as: the receiver's id in the venue.
    public var room: String
    /// The topics' base (`espresense`).
    public var baseTopic: String

    /// A node publishing as `room`.
    public init(room: String, baseTopic: String = "espresense") {
        self.room = room
        self.baseTopic = baseTopic
    }

    /// The messages of `scan`'s valid readings, one per tag.
    public func messages(for scan: Scan) -> [MQTTMessage] {
        let roomLevel = Self.topicLevel(room)
        return scan.readings.filter(\.isValid).map { reading in
            let id = Self.id(of: reading.beacon)
            var members: [(key: String, value: JSONValue)] = [("id", .string(id)), ("rssi", .number(reading.rssi))]
            if let power = reading.txPower { members.append(("rssi@1m", .number(power))) }
            if let distance = reading.reportedDistance { members.append(("distance", .number(distance))) }
            return MQTTMessage(topic: "\(baseTopic)/devices/\(Self.topicLevel(id))/\(roomLevel)",
                               payload: JSONWriter().bytes(from: .object(members)))
        }
    }

    /// The id ESPresense gives a tag: `iBeacon:<uuid>-<major>-<minor>` (lower case), the id itself
    /// otherwise. ``ESPresenseInput/tag(forId:)`` reads it back.
    public static func id(of beacon: BeaconReference) -> String {
        switch beacon {
        case .iBeacon(let identity): "iBeacon:\(identity.uuid.uuidString.lowercased())-\(identity.major)-\(identity.minor)"
        case .eddystone(let identity): "eddystone:\(identity.namespace)-\(identity.instance)"
        case .id(let id): id
        }
    }

    /// An id as one topic level: `/`, `+` and `#` (which would change the topic's shape) as `_`.
    static func topicLevel(_ id: String) -> String {
        String(id.map { $0 == "/" || $0 == "+" || $0 == "#" || $0 == "\u{0}" ? "_" : $0 })
    }
}
