/// What Whereabouts needs of a publish–subscribe broker: subscribe to topic filters, publish
/// messages, and read what comes on the subscriptions. ``MQTTClient`` is the MQTT one.
///
/// The ESPresense input and the Home Assistant output are written against this protocol, so
/// another transport (a test's loopback, a future MQTT 5 client) can take their place.
public protocol MessageBroker: Sendable {
    /// The messages that come on the subscriptions, in the order they came. One sequence for the
    /// broker's life: it ends when the broker is stopped.
    var messages: AsyncStream<MQTTMessage> { get }

    /// Subscribes to `filters` (each may hold `+` and `#`) at up to `qos`, and returns once the
    /// broker has confirmed them. Subscriptions outlive reconnections.
    func subscribe(to filters: [String], qos: MQTTQoS) async throws

    /// Publishes `message`: sent at once when connected, else queued (bounded) until the
    /// connection is back; at QoS 1 kept and sent again until the broker acknowledges it.
    func publish(_ message: MQTTMessage) async throws
}
