/// Why an MQTT client could not do what it was asked, each case saying which broker and what to
/// do about it.
public enum MQTTError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The broker refused the connection (`CONNACK` with a non-zero return code): a wrong user
    /// name or password, a client id it rejects, no right to connect. Not retried.
    case connectionRefused(broker: String, returnCode: UInt8)
    /// The broker refused a subscription (`SUBACK` 128): the user may not read that filter.
    case subscriptionRefused(broker: String, filter: String)
    /// A topic or filter that cannot be sent.
    case invalidTopic(String, problem: String)
    /// A message longer than the longest packet the client sends.
    case messageTooLong(length: Int, maximum: Int)
    /// Too many messages wait for the broker (queued while disconnected, or not yet
    /// acknowledged at QoS 1).
    case queueFull(broker: String, capacity: Int)
    /// Something did not happen in time: the connection, an acknowledgement.
    case timedOut(broker: String, waitingFor: String, seconds: Double)
    /// The client was stopped.
    case stopped

    /// Whether the error is the broker's answer, not the network's: reconnecting would only
    /// get the same answer.
    public var isPermanent: Bool {
        if case .connectionRefused = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .connectionRefused(let broker, let code):
            let reason = switch code {
            case 1: "it does not speak MQTT 3.1.1 (return code 1)"
            case 2: "it rejects the client id (return code 2); give another with the URL's clientId"
            case 3: "it is unavailable (return code 3)"
            case 4: "the user name or password is wrong (return code 4)"
            case 5: "this user is not authorised to connect (return code 5)"
            default: "return code \(code)"
            }
            return "The MQTT broker \(broker) refused the connection: \(reason)."
        case .subscriptionRefused(let broker, let filter):
            return "The MQTT broker \(broker) refused the subscription to \"\(filter)\" (the broker's access list may not let this user read it)."
        case .invalidTopic(let topic, let problem):
            return "\"\(topic.prefix(200))\" is not a valid MQTT topic: \(problem)."
        case .messageTooLong(let length, let maximum):
            return "A message of \(length) bytes is longer than the \(maximum) bytes a packet may take."
        case .queueFull(let broker, let capacity):
            return "\(capacity) messages wait for the MQTT broker \(broker) already; this one was not queued."
        case .timedOut(let broker, let what, let seconds):
            return "The MQTT broker \(broker) did not answer within \(seconds.formatted()) s (\(what))."
        case .stopped:
            return "The MQTT client was stopped."
        }
    }
}

private extension Double {
    func formatted() -> String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
