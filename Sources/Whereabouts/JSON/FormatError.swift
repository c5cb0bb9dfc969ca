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
