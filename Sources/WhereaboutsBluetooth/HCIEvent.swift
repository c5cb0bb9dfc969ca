/// An HCI event packet, decoded: the events the scanner needs in full, the others by code.
///
/// ```swift
/// // LE Meta event, LE Advertising Report, one report.
/// switch try HCIEvent.decode(eventBytes) {
/// case .advertisingReports(let reports): print(reports.map(\.address))
/// case let other: print(other)
/// }
/// ```
///
/// Decoding checks every length against the bytes there are and never reads past them: a
/// malformed event is an ``HCIDecodingError``, never a trap.
public enum HCIEvent: Hashable, Sendable {
    /// Command Complete (`0x0E`): the command's opcode, how many commands the controller now
    /// accepts, and the return parameters (the first of which is usually the status).
    case commandComplete(opcode: UInt16, allowedCommands: UInt8, returnParameters: [UInt8])
    /// Command Status (`0x0F`): a command was accepted (status 0) or refused.
    case commandStatus(opcode: UInt16, status: UInt8, allowedCommands: UInt8)
    /// LE Meta (`0x3E`), LE Advertising Report (`0x02`): legacy advertisements.
    case advertisingReports([AdvertisingReport])
    /// LE Meta (`0x3E`), LE Extended Advertising Report (`0x0D`).
    case extendedAdvertisingReports([AdvertisingReport])
    /// Another LE Meta subevent, with its parameters after the subevent code.
    case leMeta(subevent: UInt8, parameters: [UInt8])
    /// Another event, with its parameters.
    case other(code: UInt8, parameters: [UInt8])

    /// Event codes.
    public enum Code {
        /// Command Complete.
        public static let commandComplete: UInt8 = 0x0E
        /// Command Status.
        public static let commandStatus: UInt8 = 0x0F
        /// LE Meta.
        public static let leMeta: UInt8 = 0x3E
    }

    /// LE Meta subevent codes.
    public enum Subevent {
        /// LE Advertising Report.
        public static let advertisingReport: UInt8 = 0x02
        /// LE Extended Advertising Report.
        public static let extendedAdvertisingReport: UInt8 = 0x0D
    }

    /// The advertising reports of the event (legacy or extended); empty for other events.
    public var advertisingReports: [AdvertisingReport] {
        switch self {
        case .advertisingReports(let reports), .extendedAdvertisingReports(let reports): reports
        default: []
        }
    }

    /// Decodes an HCI event packet: event code, parameter length, parameters (without the H4
    /// packet type byte `0x04`).
    ///
    /// - Parameters:
    ///   - bytes: The packet; its length must be exactly 2 + the parameter length.
    ///   - layout: How legacy advertising report events with more than one report lay out their
    ///     fields (see ``AdvertisingReportLayout``).
    /// - Throws: ``HCIDecodingError`` saying what is malformed.
    public static func decode(_ bytes: some Collection<UInt8>,
                              layout: AdvertisingReportLayout = .groupedByField) throws(HCIDecodingError) -> HCIEvent {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(HCIDecodingError) in try decode(buffer: UnsafeRawBufferPointer(buffer), layout: layout) }
        } ?? Array(bytes).withUnsafeBytes { buffer in
            Result { () throws(HCIDecodingError) in try decode(buffer: buffer, layout: layout) }
        }
        return try result.get()
    }

    static func decode(buffer: UnsafeRawBufferPointer, layout: AdvertisingReportLayout) throws(HCIDecodingError) -> HCIEvent {
        guard buffer.count >= 2 else { throw .truncatedHeader(length: buffer.count) }
        let code = buffer[0], declared = Int(buffer[1])
        guard buffer.count - 2 == declared else { throw .lengthMismatch(declared: declared, available: buffer.count - 2) }
        let parameters = UnsafeRawBufferPointer(rebasing: buffer[2...])
        switch code {
        case Code.commandComplete:
            guard parameters.count >= 3 else { throw .truncated(event: code, subevent: nil, needed: 3, available: parameters.count) }
            return .commandComplete(opcode: UInt16(parameters[1]) | UInt16(parameters[2]) << 8,
                                    allowedCommands: parameters[0], returnParameters: Array(parameters[3...]))
        case Code.commandStatus:
            guard parameters.count >= 4 else { throw .truncated(event: code, subevent: nil, needed: 4, available: parameters.count) }
            return .commandStatus(opcode: UInt16(parameters[2]) | UInt16(parameters[3]) << 8,
                                  status: parameters[0], allowedCommands: parameters[1])
        case Code.leMeta:
            guard parameters.count >= 1 else { throw .truncated(event: code, subevent: nil, needed: 1, available: 0) }
            let subevent = parameters[0]
            let rest = UnsafeRawBufferPointer(rebasing: parameters[1...])
            switch subevent {
            case Subevent.advertisingReport:
                return .advertisingReports(try legacyReports(rest, layout: layout))
            case Subevent.extendedAdvertisingReport:
                return .extendedAdvertisingReports(try extendedReports(rest))
            default:
                return .leMeta(subevent: subevent, parameters: Array(rest))
            }
        default:
            return .other(code: code, parameters: Array(parameters))
        }
    }

    /// The reports of an LE Advertising Report event, from `Num_Reports` on.
    private static func legacyReports(_ p: UnsafeRawBufferPointer, layout: AdvertisingReportLayout) throws(HCIDecodingError) -> [AdvertisingReport] {
        let subevent = Subevent.advertisingReport
        guard p.count >= 1 else { throw .truncated(event: Code.leMeta, subevent: subevent, needed: 1, available: 0) }
        let count = Int(p[0])
        guard count >= 1 else { throw .noReports(subevent: subevent) }
        // Fixed fields: event type 1, address type 1, address 6, data length 1, RSSI 1.
        let fixed = 10 * count
        guard p.count >= 1 + fixed else {
            throw .truncated(event: Code.leMeta, subevent: subevent, needed: 1 + fixed, available: p.count)
        }
        var reports: [AdvertisingReport] = []
        reports.reserveCapacity(count)
        switch layout {
        case .groupedByField:
            // Num_Reports, Event_Type[n], Address_Type[n], Address[n], Data_Length[n], Data[...], RSSI[n].
            let lengths = 1 + 8 * count
            var total = 0
            for index in 0..<count { total += Int(p[lengths + index]) }
            let needed = 1 + fixed + total
            guard p.count == needed else {
                throw p.count < needed ? .truncated(event: Code.leMeta, subevent: subevent, needed: needed, available: p.count)
                                       : .trailingBytes(subevent: subevent, count: p.count - needed)
            }
            var data = lengths + count
            let rssis = data + total
            for index in 0..<count {
                let length = Int(p[lengths + index])
                reports.append(AdvertisingReport(
                    eventType: UInt16(p[1 + index]), addressType: p[1 + count + index],
                    address: address(p, at: 1 + 2 * count + 6 * index),
                    rssi: rssi(p[rssis + index]),
                    data: Array(UnsafeRawBufferPointer(rebasing: p[data..<(data + length)]))))
                data += length
            }
        case .interleaved:
            // Num_Reports, then per report: Event_Type, Address_Type, Address, Data_Length, Data, RSSI.
            var offset = 1
            for _ in 0..<count {
                guard p.count - offset >= 10 else {
                    throw .truncated(event: Code.leMeta, subevent: subevent, needed: offset + 10, available: p.count)
                }
                let length = Int(p[offset + 8])
                let needed = offset + 10 + length
                guard p.count >= needed else { throw .truncated(event: Code.leMeta, subevent: subevent, needed: needed, available: p.count) }
                reports.append(AdvertisingReport(
                    eventType: UInt16(p[offset]), addressType: p[offset + 1], address: address(p, at: offset + 2),
                    rssi: rssi(p[offset + 9 + length]),
                    data: Array(UnsafeRawBufferPointer(rebasing: p[(offset + 9)..<(offset + 9 + length)]))))
                offset = needed
            }
            guard offset == p.count else { throw .trailingBytes(subevent: subevent, count: p.count - offset) }
        }
        return reports
    }

    /// The reports of an LE Extended Advertising Report event, from `Num_Reports` on: one report
    /// after another (the layout of Core 5.x, which BlueZ and Zephyr decode).
    private static func extendedReports(_ p: UnsafeRawBufferPointer) throws(HCIDecodingError) -> [AdvertisingReport] {
        let subevent = Subevent.extendedAdvertisingReport
        guard p.count >= 1 else { throw .truncated(event: Code.leMeta, subevent: subevent, needed: 1, available: 0) }
        let count = Int(p[0])
        guard count >= 1 else { throw .noReports(subevent: subevent) }
        var reports: [AdvertisingReport] = []
        reports.reserveCapacity(count)
        var offset = 1
        for _ in 0..<count {
            // Event type 2, address type 1, address 6, primary PHY 1, secondary PHY 1, SID 1,
            // TX power 1, RSSI 1, periodic interval 2, direct address type 1, direct address 6,
            // data length 1: 24 bytes before the data.
            guard p.count - offset >= 24 else {
                throw .truncated(event: Code.leMeta, subevent: subevent, needed: offset + 24, available: p.count)
            }
            let length = Int(p[offset + 23])
            let needed = offset + 24 + length
            guard p.count >= needed else { throw .truncated(event: Code.leMeta, subevent: subevent, needed: needed, available: p.count) }
            let power = Int8(bitPattern: p[offset + 12])
            reports.append(AdvertisingReport(
                eventType: UInt16(p[offset]) | UInt16(p[offset + 1]) << 8, isExtended: true,
                addressType: p[offset + 2], address: address(p, at: offset + 3),
                rssi: rssi(p[offset + 13]), txPower: power == 127 ? nil : power,
                primaryPHY: p[offset + 9], secondaryPHY: p[offset + 10], advertisingSID: p[offset + 11],
                periodicAdvertisingInterval: UInt16(p[offset + 14]) | UInt16(p[offset + 15]) << 8,
                data: Array(UnsafeRawBufferPointer(rebasing: p[(offset + 24)..<needed]))))
            offset = needed
        }
        guard offset == p.count else { throw .trailingBytes(subevent: subevent, count: p.count - offset) }
        return reports
    }

    private static func address(_ p: UnsafeRawBufferPointer, at offset: Int) -> BluetoothAddress {
        var value: UInt64 = 0
        for index in 0..<6 { value |= UInt64(p[offset + index]) << (8 * UInt64(index)) }
        return BluetoothAddress(rawValue: value)
    }

    private static func rssi(_ byte: UInt8) -> Int8? {
        let value = Int8(bitPattern: byte)
        return value == 127 ? nil : value
    }
}

/// How an LE Advertising Report event with several reports lays out their fields.
///
/// The Core Specification 4.x lists the event's parameters as arrays (`Event_Type[i]`,
/// `Address_Type[i]`, …) and lays arrayed parameters out **grouped by field**: all the event
/// types, then all the address types, all the addresses, all the data lengths, all the data,
/// then all the RSSIs. BlueZ's kernel, Zephyr and the Core 5.x wording read the reports
/// **interleaved**, one whole report after another. With one report per event, which is what
/// controllers send almost always, the two are the same bytes.
public enum AdvertisingReportLayout: Hashable, Sendable {
    /// The Core 4.x layout: every field as an array, one array after another (the default).
    case groupedByField
    /// One report after another, as BlueZ decodes them.
    case interleaved
}

/// An HCI event that cannot be decoded: what is wrong.
public enum HCIDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer than the 2 bytes of event code and parameter length.
    case truncatedHeader(length: Int)
    /// The parameter length byte says `declared` bytes but `available` follow.
    case lengthMismatch(declared: Int, available: Int)
    /// The event (or LE Meta subevent) needs `needed` parameter bytes but has `available`.
    case truncated(event: UInt8, subevent: UInt8?, needed: Int, available: Int)
    /// An advertising report event declares zero reports.
    case noReports(subevent: UInt8)
    /// An advertising report event has `count` bytes after its last report.
    case trailingBytes(subevent: UInt8, count: Int)

    /// A sentence naming the problem.
    public var description: String {
        switch self {
        case .truncatedHeader(let length):
            "HCI event of \(length) byte\(length == 1 ? "" : "s") is shorter than its 2-byte header"
        case .lengthMismatch(let declared, let available):
            "HCI event declares \(declared) parameter bytes but \(available) follow"
        case .truncated(let event, let subevent, let needed, let available):
            "HCI event \(hex(event))\(subevent.map { " (subevent \(hex($0)))" } ?? "") needs \(needed) parameter bytes but has \(available)"
        case .noReports(let subevent):
            "advertising report event (subevent \(hex(subevent))) declares no reports"
        case .trailingBytes(let subevent, let count):
            "advertising report event (subevent \(hex(subevent))) has \(count) byte\(count == 1 ? "" : "s") after its last report"
        }
    }
}

func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
}

func hex(_ value: UInt16) -> String {
    hex(UInt8(truncatingIfNeeded: value >> 8)) + String(hex(UInt8(truncatingIfNeeded: value)).dropFirst(2))
}
