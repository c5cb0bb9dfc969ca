import Foundation

/// The btsnoop capture format: Android's "Bluetooth HCI snoop log" and `btmon -w`.
///
/// A file is a 16-byte header (`btsnoop\0`, version 1, datalink) and records, each 24 bytes of
/// header (original length, included length, flags, cumulative drops, timestamp) and the packet;
/// every number is big-endian. Timestamps count microseconds since midnight, 1 January of the
/// year 0 AD; ``unixEpochOffset`` is the Unix epoch on that clock.
///
/// ```swift
/// var writer = BTSnoopWriter(datalink: .h4)
/// writer.append(.event(eventBytes, time: 1_700_000_000, datalink: .h4))
/// try writer.write(to: URL(fileURLWithPath: "capture.btsnoop"))
///
/// var reader = try BTSnoopReader(url: URL(fileURLWithPath: "capture.btsnoop"))
/// while let record = try reader.next() {
///     if let event = record.eventPacket(datalink: reader.datalink) { print(record.time, event) }
/// }
/// ```
public enum BTSnoop {
    /// The magic bytes that start every capture: `btsnoop` and a NUL.
    public static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    /// The only format version.
    public static let version: UInt32 = 1
    /// The Unix epoch (1970-01-01) in btsnoop microseconds since 0 AD.
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000
    /// The length of the file header.
    public static let headerLength = 16
    /// The length of a record's header.
    public static let recordHeaderLength = 24
    /// The longest packet a record may include (an HCI packet is at most 4 + 65535 bytes; the
    /// monitor format adds a few bytes). Longer records are malformed.
    public static let maximumPacketLength = 65_544

    /// What the records hold.
    public enum Datalink: Hashable, Sendable {
        /// 1001: HCI packets without the H4 type byte; flags bit 1 marks commands and events.
        case hciUnencapsulated
        /// 1002: H4 (UART) packets, starting with the packet type byte (what Android writes).
        case h4
        /// 2001: the Linux monitor (`btmon -w`): the flags field holds the adapter index (high 16
        /// bits) and the monitor opcode (low 16 bits; 3 is an event packet).
        case monitor
        /// Another datalink, whose records are kept but not read as HCI packets.
        case other(UInt32)

        /// Creates a datalink from its number.
        public init(rawValue: UInt32) {
            switch rawValue {
            case 1001: self = .hciUnencapsulated
            case 1002: self = .h4
            case 2001: self = .monitor
            default: self = .other(rawValue)
            }
        }

        /// The datalink's number in the header.
        public var rawValue: UInt32 {
            switch self {
            case .hciUnencapsulated: 1001
            case .h4: 1002
            case .monitor: 2001
            case .other(let value): value
            }
        }
    }

    /// Monitor opcodes (the low 16 bits of a monitor record's flags).
    public enum MonitorOpcode {
        /// An HCI command packet sent to adapter.
        public static let commandPacket: UInt16 = 2
        /// An HCI event packet from the adapter.
        public static let eventPacket: UInt16 = 3
    }

    /// The btsnoop timestamp of a time in seconds since 1970.
    public static func timestamp(unixTime: Double) -> Int64 {
        let micros = (unixTime * 1_000_000).rounded()
        guard micros.isFinite, abs(micros) < 9e18 else { return unixEpochOffset }
        return unixEpochOffset &+ Int64(micros)
    }
}

/// One record of a btsnoop capture.
public struct BTSnoopRecord: Hashable, Sendable {
    /// The packet's length on the wire; more than `data.count` when the capture cut it.
    public var originalLength: UInt32
    /// The record's flags: for datalinks 1001/1002, bit 0 is the direction (1: received) and bit 1
    /// marks commands and events; for the monitor datalink, adapter index and opcode.
    public var flags: UInt32
    /// Packets lost before this record since the capture began.
    public var cumulativeDrops: UInt32
    /// Microseconds since 0 AD (see ``BTSnoop/unixEpochOffset``).
    public var timestamp: Int64
    /// The packet as captured.
    public var data: [UInt8]

    /// Creates a record; the original length defaults to the packet's.
    public init(data: [UInt8], flags: UInt32, timestamp: Int64, cumulativeDrops: UInt32 = 0, originalLength: UInt32? = nil) {
        self.originalLength = originalLength ?? UInt32(truncatingIfNeeded: data.count)
        self.flags = flags
        self.cumulativeDrops = cumulativeDrops
        self.timestamp = timestamp
        self.data = data
    }

    /// A record of an HCI event packet (event code, length, parameters) received at `time`
    /// (seconds since 1970), framed for `datalink`: with the H4 type byte for `.h4`, with the
    /// received-event flags for `.hciUnencapsulated`, with the event opcode (adapter `index`) for
    /// `.monitor`.
    public static func event(_ event: [UInt8], time: Double, datalink: BTSnoop.Datalink, index: UInt16 = 0) -> BTSnoopRecord {
        let timestamp = BTSnoop.timestamp(unixTime: time)
        switch datalink {
        case .h4: return BTSnoopRecord(data: [HCIPacketType.event.rawValue] + event, flags: 0b11, timestamp: timestamp)
        case .monitor: return BTSnoopRecord(data: event, flags: UInt32(index) << 16 | UInt32(BTSnoop.MonitorOpcode.eventPacket), timestamp: timestamp)
        case .hciUnencapsulated, .other: return BTSnoopRecord(data: event, flags: 0b11, timestamp: timestamp)
        }
    }

    /// The record's time in seconds since 1970.
    public var time: Double { Double(timestamp &- BTSnoop.unixEpochOffset) / 1_000_000 }

    /// The HCI event packet (event code, length, parameters) the record holds, or `nil` when it
    /// holds another packet (or the datalink is not one of HCI).
    public func eventPacket(datalink: BTSnoop.Datalink) -> ArraySlice<UInt8>? {
        switch datalink {
        case .h4:
            guard data.first == HCIPacketType.event.rawValue else { return nil }
            return data.dropFirst()
        case .hciUnencapsulated:
            return flags & 0b11 == 0b11 ? data[...] : nil
        case .monitor:
            return UInt16(truncatingIfNeeded: flags) == BTSnoop.MonitorOpcode.eventPacket ? data[...] : nil
        case .other:
            return nil
        }
    }
}

/// A btsnoop capture that cannot be read: what is wrong and where.
public enum BTSnoopError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// The file is shorter than the 16-byte header.
    case truncatedHeader(length: Int)
    /// The file does not start with `btsnoop\0`.
    case notBTSnoop
    /// The version is not 1.
    case unsupportedVersion(UInt32)
    /// The record at `offset` stops before its header or packet ends.
    case truncatedRecord(offset: Int, needed: Int, available: Int)
    /// The record at `offset` includes more bytes than its packet had, or more than any HCI
    /// packet has.
    case invalidRecordLength(offset: Int, included: UInt32, original: UInt32)

    /// A sentence naming the problem and what to do.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): cannot read the capture: \(reason)"
        case .truncatedHeader(let length): "capture of \(length) bytes is shorter than the 16-byte btsnoop header"
        case .notBTSnoop: "not a btsnoop capture (it does not start with \"btsnoop\"); give a btsnoop_hci.log or a btmon -w file"
        case .unsupportedVersion(let version): "btsnoop version \(version) is not supported (only version 1)"
        case .truncatedRecord(let offset, let needed, let available):
            "btsnoop record at byte \(offset) needs \(needed) bytes but only \(available) remain (the capture was cut short)"
        case .invalidRecordLength(let offset, let included, let original):
            "btsnoop record at byte \(offset) includes \(included) bytes of a \(original)-byte packet"
        }
    }
}

/// Reads the records of a btsnoop capture, one at a time, from its bytes.
///
/// Reading checks every length against the bytes there are: a malformed capture is a
/// ``BTSnoopError`` naming the byte, never a trap.
public struct BTSnoopReader: Sendable {
    /// The datalink the header declares.
    public let datalink: BTSnoop.Datalink
    /// The offset of the next record.
    public private(set) var offset: Int
    /// How many records have been read.
    public private(set) var recordsRead = 0
    private let bytes: [UInt8]

    /// Reads the header of the capture in `bytes`.
    public init(bytes: [UInt8]) throws(BTSnoopError) {
        guard bytes.count >= BTSnoop.headerLength else { throw .truncatedHeader(length: bytes.count) }
        guard bytes.prefix(8).elementsEqual(BTSnoop.magic) else { throw .notBTSnoop }
        let version = Self.uint32(bytes, at: 8)
        guard version == BTSnoop.version else { throw .unsupportedVersion(version) }
        datalink = BTSnoop.Datalink(rawValue: Self.uint32(bytes, at: 12))
        self.bytes = bytes
        offset = BTSnoop.headerLength
    }

    /// Reads the header of the capture at `url`.
    public init(url: URL) throws(BTSnoopError) {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw .unreadable(path: url.path, reason: (error as NSError).localizedDescription)
        }
        try self.init(bytes: [UInt8](data))
    }

    /// The next record, or `nil` at the end of the capture.
    public mutating func next() throws(BTSnoopError) -> BTSnoopRecord? {
        let available = bytes.count - offset
        if available == 0 { return nil }
        guard available >= BTSnoop.recordHeaderLength else {
            throw .truncatedRecord(offset: offset, needed: BTSnoop.recordHeaderLength, available: available)
        }
        let original = Self.uint32(bytes, at: offset), included = Self.uint32(bytes, at: offset + 4)
        guard included <= original, included <= BTSnoop.maximumPacketLength else {
            throw .invalidRecordLength(offset: offset, included: included, original: original)
        }
        let needed = BTSnoop.recordHeaderLength + Int(included)
        guard available >= needed else { throw .truncatedRecord(offset: offset, needed: needed, available: available) }
        let start = offset + BTSnoop.recordHeaderLength
        let record = BTSnoopRecord(data: Array(bytes[start..<(start + Int(included))]),
                                   flags: Self.uint32(bytes, at: offset + 8),
                                   timestamp: Int64(bitPattern: UInt64(Self.uint32(bytes, at: offset + 16)) << 32
                                                    | UInt64(Self.uint32(bytes, at: offset + 20))),
                                   cumulativeDrops: Self.uint32(bytes, at: offset + 12),
                                   originalLength: original)
        offset += needed
        recordsRead += 1
        return record
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}

/// Writes a btsnoop capture: the header, then records, into memory; ``write(to:)`` saves it.
public struct BTSnoopWriter: Sendable {
    /// The datalink the header declares.
    public let datalink: BTSnoop.Datalink
    /// The capture so far.
    public private(set) var bytes: [UInt8]

    /// Starts a capture of `datalink` records.
    public init(datalink: BTSnoop.Datalink) {
        self.datalink = datalink
        bytes = BTSnoop.magic
        bytes.appendBigEndian(BTSnoop.version)
        bytes.appendBigEndian(datalink.rawValue)
    }

    /// Appends a record.
    public mutating func append(_ record: BTSnoopRecord) {
        bytes.appendBigEndian(record.originalLength)
        bytes.appendBigEndian(UInt32(truncatingIfNeeded: record.data.count))
        bytes.appendBigEndian(record.flags)
        bytes.appendBigEndian(record.cumulativeDrops)
        bytes.appendBigEndian(UInt32(truncatingIfNeeded: UInt64(bitPattern: record.timestamp) >> 32))
        bytes.appendBigEndian(UInt32(truncatingIfNeeded: UInt64(bitPattern: record.timestamp)))
        bytes += record.data
    }

    /// Writes the capture to `url`, atomically.
    public func write(to url: URL) throws {
        try Data(bytes).write(to: url, options: .atomic)
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
