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
        let ledger = KeyLedger()
        let (value, decoded) = try parse(bytes, file: file, ledger: ledger, with: body)
        let found = ledger.unknownKeys(in: value)
        let locations = JSONKeyLocation.find(found.map(\.key), in: bytes)
        for var unknown in found {
            unknown.file = file
            unknown.line = locations[unknown.key]?.line
            unknown.column = locations[unknown.key]?.column
            unknownKeys.append(unknown)
        }
        return decoded
    }

    /// Parses `bytes` and decodes the value with `body`, which reads it without noting its keys.
    static func decode<Bytes: Collection<UInt8>, Value>(
        _ bytes: Bytes, file: String?, with body: (JSONReader) throws(FormatError) -> Value
    ) throws(FormatError) -> Value {
        try parse(bytes, file: file, ledger: nil, with: body).decoded
    }

    /// The parsed value and what `body` made of it, read through `ledger` when there is one.
    private static func parse<Bytes: Collection<UInt8>, Value>(
        _ bytes: Bytes, file: String?, ledger: KeyLedger?, with body: (JSONReader) throws(FormatError) -> Value
    ) throws(FormatError) -> (value: JSONValue, decoded: Value) {
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
        do {
            return (value, try body(JSONReader(value, ledger: ledger)))
        } catch {
            throw placed(error, in: bytes).located(file: file)
        }
    }

    /// `error` with the line and column of its key's value in `bytes` (of the object that lacks
    /// it, for a missing key), when it has none yet.
    static func placed<Bytes: Collection<UInt8>>(_ error: FormatError, in bytes: Bytes) -> FormatError {
        guard error.column == nil, !error.key.isEmpty else { return error }
        var paths: [String] = []
        var path = error.key
        while !path.isEmpty {
            paths.append(path)
            path = parent(of: path)
        }
        // The deepest of the key and its ancestors that the text has, all looked up in one pass.
        let locations = JSONKeyLocation.find(paths, in: bytes, value: true)
        guard let location = paths.lazy.compactMap({ locations[$0] }).first else { return error }
        var placed = error
        placed.line = location.line
        placed.column = location.column
        return placed
    }

    /// `beacons[2].txPower` → `beacons[2]` → `beacons` → "".
    static func parent(of path: String) -> String {
        if path.hasSuffix("]"), let open = path.lastIndex(of: "[") { return String(path[..<open]) }
        if let dot = path.lastIndex(of: ".") { return String(path[..<dot]) }
        return ""
    }
}
