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

    /// Parses `bytes` and decodes the value with `body`; every error names `file`.
    static func decode<Bytes: Collection<UInt8>, Value>(
        _ bytes: Bytes, file: String?, with body: (JSONValue) throws(FormatError) -> Value
    ) throws(FormatError) -> Value {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw FormatError(file: file, message: "not valid JSON: \(error)")
        }
        do {
            return try body(value)
        } catch {
            throw error.located(file: file)
        }
    }
}
