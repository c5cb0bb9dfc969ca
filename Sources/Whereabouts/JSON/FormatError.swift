import Foundation

/// A file that does not follow Whereabouts' formats (FORMATS.md), saying where: the file, the
/// line (for JSON Lines), the key path, and what is wrong.
///
/// Its description reads like a compiler's: `walk.jsonl:12: readings[3].rssi: expected a number, found a string`.
public struct FormatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file's path or name, when known.
    public var file: String?
    /// The 1-based line number, for JSON Lines files.
    public var line: Int?
    /// The key path inside the JSON value, such as `beacons[3].uuid`; empty for the whole value.
    public var key: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String? = nil, line: Int? = nil, key: String = "", message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `file:line: key: message`, leaving out the parts that are unknown.
    public var description: String {
        var prefix = ""
        if let file { prefix += file }
        if let line { prefix += (prefix.isEmpty ? "line " : ":") + String(line) }
        if !prefix.isEmpty { prefix += ": " }
        if !key.isEmpty { prefix += key + ": " }
        return prefix + message
    }

    /// The same error attributed to a file (and line), keeping the key and the message.
    public func located(file: String?, line: Int? = nil) -> FormatError {
        FormatError(file: file ?? self.file, line: line ?? self.line, key: key, message: message)
    }
}

/// Reads typed values out of a ``JSONValue`` while keeping the key path for error messages.
struct JSONReader {
    let value: JSONValue
    let path: String

    init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.path = path
    }

    func fail(_ message: String) -> FormatError { FormatError(key: path, message: message) }

    func childPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The members of an object, or an error naming the path.
    func object() throws(FormatError) -> [(key: String, value: JSONValue)] {
        guard case .object(let members) = value else { throw fail("expected an object, found \(value.kindDescription)") }
        return members
    }

    func member(_ key: String) -> JSONReader? {
        guard let child = value[key], child != .null else { return nil }
        return JSONReader(child, path: childPath(key))
    }

    func required(_ key: String) throws(FormatError) -> JSONReader {
        _ = try object()
        guard let child = member(key) else { throw FormatError(key: childPath(key), message: "missing required key") }
        return child
    }

    func elements() throws(FormatError) -> [JSONReader] {
        guard case .array(let items) = value else { throw fail("expected an array, found \(value.kindDescription)") }
        return items.enumerated().map { JSONReader($1, path: "\(path)[\($0)]") }
    }

    func double() throws(FormatError) -> Double {
        guard case .number(let n) = value else { throw fail("expected a number, found \(value.kindDescription)") }
        return n
    }

    func int() throws(FormatError) -> Int {
        let n = try double()
        guard n == n.rounded(), abs(n) < 1e15 else { throw fail("expected an integer, found \(n)") }
        return Int(n)
    }

    func string() throws(FormatError) -> String {
        guard case .string(let s) = value else { throw fail("expected a string, found \(value.kindDescription)") }
        return s
    }

    func optionalDouble(_ key: String) throws(FormatError) -> Double? { try member(key)?.double() }
    func optionalInt(_ key: String) throws(FormatError) -> Int? { try member(key)?.int() }
    func optionalString(_ key: String) throws(FormatError) -> String? { try member(key)?.string() }
}

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
