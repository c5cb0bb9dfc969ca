/// How hard the broker and the client try to deliver a message (MQTT 3.1.1 §4.3).
///
/// Exactly-once delivery (QoS 2) is not offered: what Whereabouts sends and takes — sightings,
/// positions, rooms — is either perishable or idempotent, and at-least-once is what Home
/// Assistant and ESPresense use.
public enum MQTTQoS: UInt8, Sendable, Hashable, Comparable, CaseIterable {
    /// Sent once, never acknowledged: lost when the connection drops.
    case atMostOnce = 0
    /// Acknowledged by the receiver (`PUBACK`); resent after a reconnection until it is, so it
    /// may arrive twice.
    case atLeastOnce = 1

    public static func < (lhs: MQTTQoS, rhs: MQTTQoS) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A message published to, or received from, an MQTT broker.
///
/// ```swift
/// let state = MQTTMessage(topic: "espresense/companion/keys", payload: "kitchen", retain: true)
/// try await client.publish(state)
/// ```
public struct MQTTMessage: Sendable, Hashable {
    /// The topic: levels separated by `/`, without the wildcards `+` and `#`.
    public var topic: String
    /// The payload's bytes (JSON or plain text for everything Whereabouts publishes).
    public var payload: [UInt8]
    /// The delivery guarantee it was, or is to be, sent with.
    public var qos: MQTTQoS
    /// Whether the broker keeps it as the topic's last value for later subscribers.
    public var retain: Bool

    /// A message of `payload`'s bytes.
    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// A message whose payload is `text` in UTF-8.
    public init(topic: String, payload text: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    /// The payload read as UTF-8, or `nil` when it is not valid UTF-8.
    public var text: String? { String(validating: payload, as: UTF8.self) }
}
