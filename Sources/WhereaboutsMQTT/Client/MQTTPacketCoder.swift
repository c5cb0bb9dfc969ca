import NIOCore

/// Reads MQTT packets from a connection's bytes; a malformed or oversized packet is an error
/// that closes the connection (`MQTTPacket.read(from:maximumLength:)`).
struct MQTTPacketDecoder: ByteToMessageDecoder {
    typealias InboundOut = MQTTPacket

    /// The longest packet taken, in bytes.
    let maximumLength: Int

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let packet = try MQTTPacket.read(from: &buffer, maximumLength: maximumLength) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(packet))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

/// Writes MQTT packets as a connection's bytes.
struct MQTTPacketEncoder: MessageToByteEncoder {
    typealias OutboundIn = MQTTPacket

    func encode(data: MQTTPacket, out: inout ByteBuffer) throws {
        data.write(to: &out)
    }
}
