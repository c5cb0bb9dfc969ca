import NIOCore

/// The MQTT 3.1.1 control packets a client sends and receives, and their bytes (OASIS MQTT
/// 3.1.1, §2–3). Decoding checks everything the specification calls malformed — reserved flag
/// bits, lengths that overrun the packet, topics that are not UTF-8 — and throws
/// ``MQTTPacket/DecodingError`` rather than guessing.
enum MQTTPacket: Sendable, Hashable {
    case connect(Connect)
    case connectionAcknowledgement(sessionPresent: Bool, returnCode: UInt8)
    case publish(Publish)
    case publishAcknowledgement(packetId: UInt16)
    case subscribe(packetId: UInt16, filters: [Subscription])
    case subscribeAcknowledgement(packetId: UInt16, returnCodes: [UInt8])
    case unsubscribe(packetId: UInt16, filters: [String])
    case unsubscribeAcknowledgement(packetId: UInt16)
    case pingRequest
    case pingResponse
    case disconnect

    /// A `CONNECT` packet's fields.
    struct Connect: Sendable, Hashable {
        var clientId: String
        var cleanSession: Bool
        var keepAliveSeconds: UInt16
        var userName: String?
        var password: [UInt8]?
        var will: MQTTMessage?
    }

    /// A `PUBLISH` packet's fields: the message, its packet id (QoS 1) and whether it is sent
    /// again.
    struct Publish: Sendable, Hashable {
        var message: MQTTMessage
        var packetId: UInt16?
        var duplicate: Bool
    }

    /// A filter asked for in a `SUBSCRIBE`, with the highest QoS wanted.
    struct Subscription: Sendable, Hashable {
        var filter: String
        var qos: MQTTQoS
    }

    /// Why bytes are not an MQTT packet.
    struct DecodingError: Error, CustomStringConvertible, Hashable {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The longest remaining length the protocol can express (four length bytes).
    static let maximumRemainingLength = 268_435_455

    // MARK: Encoding

    /// Writes the packet's bytes to `buffer`.
    func write(to buffer: inout ByteBuffer) {
        var body = ByteBuffer()
        let header: UInt8
        switch self {
        case .connect(let connect):
            header = 0x10
            body.writeMQTTString("MQTT")
            body.writeInteger(UInt8(4))
            var flags: UInt8 = connect.cleanSession ? 0x02 : 0
            if let will = connect.will {
                flags |= 0x04 | (will.qos.rawValue << 3) | (will.retain ? 0x20 : 0)
            }
            if connect.userName != nil { flags |= 0x80 }
            if connect.password != nil { flags |= 0x40 }
            body.writeInteger(flags)
            body.writeInteger(connect.keepAliveSeconds)
            body.writeMQTTString(connect.clientId)
            if let will = connect.will {
                body.writeMQTTString(will.topic)
                body.writeMQTTBytes(will.payload)
            }
            if let userName = connect.userName { body.writeMQTTString(userName) }
            if let password = connect.password { body.writeMQTTBytes(password) }
        case .connectionAcknowledgement(let sessionPresent, let returnCode):
            header = 0x20
            body.writeInteger(UInt8(sessionPresent ? 1 : 0))
            body.writeInteger(returnCode)
        case .publish(let publish):
            header = 0x30 | (publish.duplicate ? 0x08 : 0) | (publish.message.qos.rawValue << 1)
                | (publish.message.retain ? 0x01 : 0)
            body.writeMQTTString(publish.message.topic)
            if let packetId = publish.packetId { body.writeInteger(packetId) }
            body.writeBytes(publish.message.payload)
        case .publishAcknowledgement(let packetId):
            header = 0x40
            body.writeInteger(packetId)
        case .subscribe(let packetId, let filters):
            header = 0x82
            body.writeInteger(packetId)
            for subscription in filters {
                body.writeMQTTString(subscription.filter)
                body.writeInteger(subscription.qos.rawValue)
            }
        case .subscribeAcknowledgement(let packetId, let returnCodes):
            header = 0x90
            body.writeInteger(packetId)
            body.writeBytes(returnCodes)
        case .unsubscribe(let packetId, let filters):
            header = 0xA2
            body.writeInteger(packetId)
            for filter in filters { body.writeMQTTString(filter) }
        case .unsubscribeAcknowledgement(let packetId):
            header = 0xB0
            body.writeInteger(packetId)
        case .pingRequest: header = 0xC0
        case .pingResponse: header = 0xD0
        case .disconnect: header = 0xE0
        }
        buffer.writeInteger(header)
        var length = body.readableBytes
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            buffer.writeInteger(byte)
        } while length > 0
        buffer.writeBuffer(&body)
    }

    /// The length in bytes of a `PUBLISH` of `message` once written (counted, not written): the
    /// header byte, the remaining length's bytes, the topic with its length, the packet id at
    /// QoS 1, the payload.
    static func publishLength(of message: MQTTMessage) -> Int {
        let remaining = 2 + message.topic.utf8.count + (message.qos == .atMostOnce ? 0 : 2) + message.payload.count
        var lengthBytes = 1
        var rest = remaining / 128
        while rest > 0 { lengthBytes += 1; rest /= 128 }
        return 1 + lengthBytes + remaining
    }

    // MARK: Decoding

    /// Reads one packet from the front of `buffer`: `nil` (and nothing read) when the buffer
    /// does not hold a whole packet yet. Throws when the bytes are malformed or the packet is
    /// longer than `maximumLength` bytes — which it knows from the first five bytes, before the
    /// rest arrives.
    static func read(from buffer: inout ByteBuffer, maximumLength: Int) throws(DecodingError) -> MQTTPacket? {
        guard let header = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return nil }
        var remaining = 0
        var multiplier = 1
        var lengthBytes = 0
        while true {
            guard let byte = buffer.getInteger(at: buffer.readerIndex + 1 + lengthBytes, as: UInt8.self) else { return nil }
            lengthBytes += 1
            remaining += Int(byte & 0x7F) * multiplier
            if byte & 0x80 == 0 { break }
            guard lengthBytes < 4 else { throw DecodingError("its remaining length takes more than four bytes") }
            multiplier *= 128
        }
        let total = 1 + lengthBytes + remaining
        guard total <= maximumLength else {
            throw DecodingError("it is \(total) bytes long, and packets of at most \(maximumLength) are taken")
        }
        guard buffer.readableBytes >= total else { return nil }
        buffer.moveReaderIndex(forwardBy: 1 + lengthBytes)
        guard var body = buffer.readSlice(length: remaining) else { return nil }
        return try decode(header: header, body: &body)
    }

    private static func decode(header: UInt8, body: inout ByteBuffer) throws(DecodingError) -> MQTTPacket {
        let type = header >> 4
        let flags = header & 0x0F
        func requireFlags(_ expected: UInt8, _ name: String) throws(DecodingError) {
            guard flags == expected else { throw DecodingError("\(name) has the reserved flags \(flags), not \(expected)") }
        }
        func requireEnd(_ name: String) throws(DecodingError) {
            guard body.readableBytes == 0 else { throw DecodingError("\(name) has \(body.readableBytes) bytes too many") }
        }
        func packetId(_ name: String) throws(DecodingError) -> UInt16 {
            guard let id = body.readInteger(as: UInt16.self) else { throw DecodingError("\(name) ends before its packet id") }
            guard id != 0 else { throw DecodingError("\(name) has the packet id 0") }
            return id
        }
        switch type {
        case 1:
            try requireFlags(0, "CONNECT")
            guard try body.readMQTTString("CONNECT") == "MQTT", body.readInteger(as: UInt8.self) == 4,
                  let connectFlags = body.readInteger(as: UInt8.self), let keepAlive = body.readInteger(as: UInt16.self)
            else { throw DecodingError("CONNECT is not of MQTT 3.1.1") }
            guard connectFlags & 0x01 == 0 else { throw DecodingError("CONNECT sets its reserved flag") }
            let clientId = try body.readMQTTString("CONNECT")
            var will: MQTTMessage?
            if connectFlags & 0x04 != 0 {
                let topic = try body.readMQTTString("CONNECT's will")
                let payload = try body.readMQTTBytes("CONNECT's will")
                guard let qos = MQTTQoS(rawValue: (connectFlags >> 3) & 0x03) else { throw DecodingError("CONNECT's will has an unknown QoS") }
                will = MQTTMessage(topic: topic, payload: payload, qos: qos, retain: connectFlags & 0x20 != 0)
            }
            let userName = connectFlags & 0x80 != 0 ? try body.readMQTTString("CONNECT's user name") : nil
            let password = connectFlags & 0x40 != 0 ? try body.readMQTTBytes("CONNECT's password") : nil
            try requireEnd("CONNECT")
            return .connect(Connect(clientId: clientId, cleanSession: connectFlags & 0x02 != 0,
                                    keepAliveSeconds: keepAlive, userName: userName, password: password, will: will))
        case 2:
            try requireFlags(0, "CONNACK")
            guard let acknowledgeFlags = body.readInteger(as: UInt8.self), let code = body.readInteger(as: UInt8.self)
            else { throw DecodingError("CONNACK is shorter than 2 bytes") }
            guard acknowledgeFlags & 0xFE == 0 else { throw DecodingError("CONNACK sets reserved flags") }
            try requireEnd("CONNACK")
            return .connectionAcknowledgement(sessionPresent: acknowledgeFlags & 0x01 != 0, returnCode: code)
        case 3:
            guard let qos = MQTTQoS(rawValue: (flags >> 1) & 0x03) else {
                throw DecodingError("PUBLISH at QoS \((flags >> 1) & 0x03), and only QoS 0 and 1 were asked for")
            }
            let topic = try body.readMQTTString("PUBLISH")
            if let problem = MQTTTopic.problem(withName: topic) { throw DecodingError("PUBLISH's topic: \(problem)") }
            let id = qos == .atMostOnce ? nil : try packetId("PUBLISH")
            let payload = body.readBytes(length: body.readableBytes) ?? []
            return .publish(Publish(message: MQTTMessage(topic: topic, payload: payload, qos: qos, retain: flags & 0x01 != 0),
                                    packetId: id, duplicate: flags & 0x08 != 0))
        case 4:
            try requireFlags(0, "PUBACK")
            let id = try packetId("PUBACK")
            try requireEnd("PUBACK")
            return .publishAcknowledgement(packetId: id)
        case 8:
            try requireFlags(2, "SUBSCRIBE")
            let id = try packetId("SUBSCRIBE")
            var filters: [Subscription] = []
            while body.readableBytes > 0 {
                let filter = try body.readMQTTString("SUBSCRIBE")
                guard let byte = body.readInteger(as: UInt8.self), let qos = MQTTQoS(rawValue: byte) else {
                    throw DecodingError("SUBSCRIBE asks for an unknown QoS")
                }
                filters.append(Subscription(filter: filter, qos: qos))
            }
            guard !filters.isEmpty else { throw DecodingError("SUBSCRIBE names no filter") }
            return .subscribe(packetId: id, filters: filters)
        case 9:
            try requireFlags(0, "SUBACK")
            let id = try packetId("SUBACK")
            let codes = body.readBytes(length: body.readableBytes) ?? []
            guard !codes.isEmpty, codes.allSatisfy({ $0 <= 2 || $0 == 0x80 }) else {
                throw DecodingError("SUBACK's return codes \(codes) are not 0, 1, 2 or 128")
            }
            return .subscribeAcknowledgement(packetId: id, returnCodes: codes)
        case 10:
            try requireFlags(2, "UNSUBSCRIBE")
            let id = try packetId("UNSUBSCRIBE")
            var filters: [String] = []
            while body.readableBytes > 0 { filters.append(try body.readMQTTString("UNSUBSCRIBE")) }
            return .unsubscribe(packetId: id, filters: filters)
        case 11:
            try requireFlags(0, "UNSUBACK")
            let id = try packetId("UNSUBACK")
            try requireEnd("UNSUBACK")
            return .unsubscribeAcknowledgement(packetId: id)
        case 12, 13, 14:
            let name = ["PINGREQ", "PINGRESP", "DISCONNECT"][Int(type) - 12]
            try requireFlags(0, name)
            try requireEnd(name)
            return type == 12 ? .pingRequest : type == 13 ? .pingResponse : .disconnect
        case 5, 6, 7:
            throw DecodingError("a QoS 2 packet (type \(type)) came, and QoS 2 is never asked for")
        default:
            throw DecodingError("the packet type \(type) is reserved")
        }
    }
}

extension ByteBuffer {
    /// Writes a UTF-8 string with its two-byte length (MQTT 3.1.1 §1.5.3).
    mutating func writeMQTTString(_ string: String) {
        writeMQTTBytes(Array(string.utf8))
    }

    /// Writes bytes with their two-byte length.
    mutating func writeMQTTBytes(_ bytes: [UInt8]) {
        writeInteger(UInt16(truncatingIfNeeded: bytes.count))
        writeBytes(bytes.prefix(Int(UInt16.max)))
    }

    /// Reads a string with its two-byte length; it must be UTF-8 without U+0000.
    mutating func readMQTTString(_ packet: String) throws(MQTTPacket.DecodingError) -> String {
        let bytes = try readMQTTBytes(packet)
        guard let string = String(validating: bytes, as: UTF8.self), !bytes.contains(0) else {
            throw MQTTPacket.DecodingError("\(packet) holds a string that is not UTF-8")
        }
        return string
    }

    /// Reads bytes with their two-byte length.
    mutating func readMQTTBytes(_ packet: String) throws(MQTTPacket.DecodingError) -> [UInt8] {
        guard let length = readInteger(as: UInt16.self), let bytes = readBytes(length: Int(length)) else {
            throw MQTTPacket.DecodingError("\(packet) ends inside a string")
        }
        return bytes
    }
}
