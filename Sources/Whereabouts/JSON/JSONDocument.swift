import Foundation

/// Reading a whole JSON document (a venue, a walk, a model) and decoding it, with errors that
/// name the file, the line and the column, and the keys the format does not know.
enum JSONDocument {
    /// The bytes of a file, or an error naming it.
    static func contents(of url: URL) throws(FormatError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw FormatError(file: url.path, message: "cannot read the file: \(error.localizedDescription)")
        }
    }

    /// Whether the text's first line is a JSON object with `readings`: a recording's scan.
    static func looksLikeRecording<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        let firstLine = bytes.prefix(1 << 20).prefix { $0 != 0x0A }
        guard firstLine.count < bytes.count, let value = try? JSONParser.parse(Array(firstLine)),
              case .object = value else { return false }
        return value["readings"] != nil
    }

    /// Parses `bytes` and decodes the value with `body`; every error names `file`, and the line
    /// and column of its key. The members `body` did not ask for are added to `unknownKeys`,
    /// each with its line and column.
    static func decode<Bytes: Collection<UInt8>, Value>(
        _ bytes: Bytes, file: String?, unknownKeys: inout [UnknownKey],
        with body: (JSONReader) throws(FormatError) -> Value
    ) throws(FormatError) -> Value {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            if looksLikeRecording(bytes) {
                throw FormatError(file: file, message: "this looks like a recording (JSON Lines: one scan, with \"readings\", a line), "
                                    + "not a single JSON document such as a venue; check which file goes with which option")
            }
            throw FormatError(file: file, syntax: error)
        }
        let ledger = KeyLedger()
        let decoded: Value
        do {
            decoded = try body(JSONReader(value, ledger: ledger))
        } catch {
            throw placed(error, in: bytes).located(file: file)
        }
        for var unknown in ledger.unknownKeys(in: value) {
            unknown.file = file
            if let location = JSONKeyLocation.find(unknown.key, in: bytes) {
                unknown.line = location.line
                unknown.column = location.column
            }
            unknownKeys.append(unknown)
        }
        return decoded
    }

    /// Parses `bytes` and decodes the value with `body`, leaving out the unknown keys.
    static func decode<Bytes: Collection<UInt8>, Value>(
        _ bytes: Bytes, file: String?, with body: (JSONReader) throws(FormatError) -> Value
    ) throws(FormatError) -> Value {
        var ignored: [UnknownKey] = []
        return try decode(bytes, file: file, unknownKeys: &ignored, with: body)
    }

    /// `error` with the line and column of its key's value in `bytes` (of the object that lacks
    /// it, for a missing key), when it has none yet.
    static func placed<Bytes: Collection<UInt8>>(_ error: FormatError, in bytes: Bytes) -> FormatError {
        guard error.column == nil, !error.key.isEmpty else { return error }
        var path = error.key
        while !path.isEmpty {
            if let location = JSONKeyLocation.find(path, in: bytes, value: true) {
                var placed = error
                placed.line = location.line
                placed.column = location.column
                return placed
            }
            path = parent(of: path)
        }
        return error
    }

    /// `beacons[2].txPower` → `beacons[2]` → `beacons` → "".
    static func parent(of path: String) -> String {
        if path.hasSuffix("]"), let open = path.lastIndex(of: "[") { return String(path[..<open]) }
        if let dot = path.lastIndex(of: ".") { return String(path[..<dot]) }
        return ""
    }
}
