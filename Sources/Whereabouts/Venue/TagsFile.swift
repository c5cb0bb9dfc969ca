import Foundation

/// Reads and writes a tags file (FORMATS.md §9): names for the tags that receivers hear, by the
/// identity each advertises — an iBeacon/AltBeacon or Eddystone identity, or, for a phone that
/// advertises from resolvable private addresses, its identity resolving key (IRK).
///
/// Kept apart from `venue.json` because keys are secrets: whoever holds a phone's IRK can follow
/// it, and the venue is shown to every map page. The file is written readable by its owner only.
///
/// ```json
/// {"tags": [
///   {"id": "anna-phone", "irk": "ec0234a357c8ad05341010a60a397d9b"},
///   {"id": "wristband-2", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 2}
/// ]}
/// ```
///
/// ```swift
/// let tags = try TagsFile.read(from: URL(fileURLWithPath: "tags.json"))
/// let venue = try VenueFile.read(from: venueURL).addingTags(tags, from: "tags.json")
/// ```
public enum TagsFile {
    /// Reads and validates a tags file.
    public static func read(from url: URL) throws(FormatError) -> [Venue.Tag] {
        try decode(JSONDocument.contents(of: url), file: url.path)
    }

    /// Reads a tags file as ``read(from:)`` does, adding the keys its format does not know (which
    /// are ignored) to `unknownKeys`, each with its line and column.
    public static func read(from url: URL, unknownKeys: inout [UnknownKey]) throws(FormatError) -> [Venue.Tag] {
        try JSONDocument.decode(JSONDocument.contents(of: url), file: url.path, unknownKeys: &unknownKeys, with: decode(root:))
    }

    /// Parses and validates tags from JSON bytes; `file` names the source in errors.
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes, file: String? = nil) throws(FormatError) -> [Venue.Tag] {
        try JSONDocument.decode(bytes, file: file, with: decode(root:))
    }

    static func decode(root: JSONReader) throws(FormatError) -> [Venue.Tag] {
        _ = try root.object()
        guard let tags = root.member("tags") else { return [] }
        return try VenueFile.decodeTags(tags, keysAllowed: true)
    }

    /// The JSON value of a tags file.
    public static func encode(_ tags: [Venue.Tag]) -> JSONValue {
        .object([("tags", .array(tags.map { tag in
            var members: [(key: String, value: JSONValue)] = [("id", .string(tag.id))]
            members += VenueFile.identityMembers(iBeacon: tag.iBeacon, eddystone: tag.eddystone)
            if let key = tag.identityResolvingKey { members.append(("irk", .string(hexadecimal(key)))) }
            return .object(members)
        }))])
    }

    /// Writes a tags file as indented JSON, replacing it at once, readable and writable by its
    /// owner only (its keys are secrets).
    public static func write(_ tags: [Venue.Tag], to url: URL) throws {
        let text = JSONWriter(indent: 2).string(from: encode(tags)) + "\n"
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: Data(text.utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path,
                                                           NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)])
        }
    }

    /// A key from 32 hexadecimal digits, most significant first (spaces, colons and dashes
    /// between them ignored), or `nil`.
    public static func identityResolvingKey(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: "-") })
        guard digits.count == 32 else { return nil }
        var key: [UInt8] = []
        key.reserveCapacity(16)
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = digits[index].hexDigitValue, let low = digits[index + 1].hexDigitValue else { return nil }
            key.append(high << 4 | low)
        }
        return key
    }

    /// `key` as lower-case hexadecimal digits, most significant first.
    public static func hexadecimal(_ key: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(key.count * 2)
        for byte in key {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

}
