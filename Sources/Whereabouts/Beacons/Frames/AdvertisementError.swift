/// The beacon frame formats that ``Advertisement`` reads and writes.
public enum BeaconFrameKind: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Apple iBeacon: manufacturer specific data of company `0x004C`, type `0x02`.
    case iBeacon
    /// AltBeacon: manufacturer specific data of any company, beacon code `0xBEAC`.
    case altBeacon
    /// Eddystone-UID: service data of UUID `0xFEAA`, frame type `0x00`.
    case eddystoneUID
    /// Eddystone-URL: service data of UUID `0xFEAA`, frame type `0x10`.
    case eddystoneURL
    /// Eddystone-TLM (unencrypted): service data of UUID `0xFEAA`, frame type `0x20`, version `0x00`.
    case eddystoneTLM

    /// The format's usual name, such as `Eddystone-UID`.
    public var description: String {
        switch self {
        case .iBeacon: "iBeacon"
        case .altBeacon: "AltBeacon"
        case .eddystoneUID: "Eddystone-UID"
        case .eddystoneURL: "Eddystone-URL"
        case .eddystoneTLM: "Eddystone-TLM"
        }
    }

    /// Whether an AD structure of this format may carry `length` bytes of data (after its type byte).
    func acceptsDataLength(_ length: Int) -> Bool {
        switch self {
        case .iBeacon: length == 25        // company 2 + type 1 + length 1 + UUID 16 + major 2 + minor 2 + power 1
        case .altBeacon: length == 26      // company 2 + code 2 + id 20 + reference RSSI 1 + reserved 1
        case .eddystoneUID: length == 20 || length == 22  // UUID 2 + frame 18 (+ 2 RFU bytes)
        case .eddystoneURL: (5...22).contains(length)      // UUID 2 + type, power, scheme 3 + 0…17 URL bytes
        case .eddystoneTLM: length == 16   // UUID 2 + type 1 + version 1 + 12 bytes of telemetry
        }
    }

    fileprivate var expectedLengthDescription: String {
        switch self {
        case .eddystoneUID: "20 or 22"
        case .eddystoneURL: "5 to 22"
        case .iBeacon: "25"
        case .altBeacon: "26"
        case .eddystoneTLM: "16"
        }
    }
}

/// Advertising data that cannot be read: what is wrong and at which byte.
///
/// Offsets count from 0 at the first byte of the advertising data passed to
/// `Advertisement.parse(_:kind:)`. Structure offsets point at the AD structure's length byte.
///
/// ```swift
/// do {
///     let frame = try Advertisement.parse(bytes)
/// } catch {
///     print(error)  // "AD structure at byte 3 declares 26 bytes but only 20 follow"
/// }
/// ```
public enum AdvertisementError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The advertising data is longer than the advertising PDU can carry
    /// (31 bytes for legacy advertising, 1650 for extended advertising).
    case dataTooLong(length: Int, maximum: Int)
    /// The AD structure whose length byte is at `offset` declares `length` bytes (type and data)
    /// but only `available` bytes follow its length byte.
    case structureOverrun(offset: Int, length: Int, available: Int)
    /// The AD structure at `offset` is recognised as a frame of `kind` but carries `length` bytes
    /// of data (after its AD type byte), which that format does not allow.
    case invalidFrameLength(BeaconFrameKind, offset: Int, length: Int)
    /// The iBeacon length byte at `offset` is `value` instead of `0x15`.
    case invalidIBeaconLength(offset: Int, value: UInt8)
    /// Service data for the Eddystone UUID `0xFEAA` at `offset` has no frame type byte.
    case missingEddystoneFrameType(offset: Int)
    /// The Eddystone-URL scheme prefix byte at `offset` is `value`, not one of `0x00`…`0x03`.
    case invalidURLScheme(offset: Int, value: UInt8)
    /// The encoded URL byte at `offset` is `value`, a reserved code (`0x0E`…`0x20`, `0x7F`…`0xFF`).
    case invalidURLByte(offset: Int, value: UInt8)

    /// The offset of the byte the error is about; for ``dataTooLong(length:maximum:)``, the
    /// first byte that does not fit.
    public var offset: Int {
        switch self {
        case .dataTooLong(_, let maximum): maximum
        case .structureOverrun(let offset, _, _), .invalidFrameLength(_, let offset, _),
             .invalidIBeaconLength(let offset, _), .missingEddystoneFrameType(let offset),
             .invalidURLScheme(let offset, _), .invalidURLByte(let offset, _):
            offset
        }
    }

    /// A sentence naming the problem and its byte offset.
    public var description: String {
        switch self {
        case .dataTooLong(let length, let maximum):
            "advertising data is \(length) bytes long; at most \(maximum) fit in the advertising PDU"
        case .structureOverrun(let offset, let length, let available):
            "AD structure at byte \(offset) declares \(length) bytes but only \(available) follow"
        case .invalidFrameLength(let kind, let offset, let length):
            "\(kind) structure at byte \(offset) carries \(length) data bytes; expected \(kind.expectedLengthDescription)"
        case .invalidIBeaconLength(let offset, let value):
            "iBeacon length byte at byte \(offset) is \(hex(value)); expected 0x15"
        case .missingEddystoneFrameType(let offset):
            "Eddystone service data at byte \(offset) has no frame type"
        case .invalidURLScheme(let offset, let value):
            "Eddystone-URL scheme prefix at byte \(offset) is \(hex(value)); expected 0x00 to 0x03"
        case .invalidURLByte(let offset, let value):
            "Eddystone-URL byte at byte \(offset) is \(hex(value)), a reserved code"
        }
    }
}

/// A beacon frame that cannot be written as advertising data.
public enum FrameEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The URL does not start with `http://` or `https://` (compared without regard to case).
    case unsupportedURLScheme(String)
    /// The URL's UTF-8 byte at `offset` is not a graphic US-ASCII character (`0x21`…`0x7E`),
    /// the only characters Eddystone-URL can carry.
    case unencodableURLCharacter(String, offset: Int)
    /// The URL needs `encodedLength` bytes after the scheme prefix even with expansion codes,
    /// more than the `maximum` (17) an Eddystone-URL frame carries.
    case urlTooLong(String, encodedLength: Int, maximum: Int)

    /// A sentence naming the problem.
    public var description: String {
        switch self {
        case .unsupportedURLScheme(let url):
            "Eddystone-URL supports only http:// and https:// URLs, not \"\(url)\""
        case .unencodableURLCharacter(let url, let offset):
            "URL \"\(url)\" has a character at byte \(offset) that Eddystone-URL cannot carry (only graphic US-ASCII)"
        case .urlTooLong(let url, let encodedLength, let maximum):
            "URL \"\(url)\" needs \(encodedLength) bytes after the scheme; Eddystone-URL carries at most \(maximum)"
        }
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
}
