import Foundation

/// Reading a whole JSON document (a venue, a walk) and decoding it, with errors that name the file.
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

    /// Parses `bytes` and decodes the value with `body`; every error names `file`.
    static func decode<Bytes: Collection<UInt8>, Value>(
        _ bytes: Bytes, file: String?, with body: (JSONValue) throws(FormatError) -> Value
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
        do {
            return try body(value)
        } catch {
            throw error.located(file: file)
        }
    }
}
