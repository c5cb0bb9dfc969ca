import Foundation

/// A file that does not follow Whereabouts' formats (FORMATS.md), saying where: the file, the
/// line (for JSON Lines, and for JSON that is not well formed), the column (for JSON that is not
/// well formed), the key path, and what is wrong.
///
/// Its description reads like a compiler's: `walk.jsonl:12: readings[3].rssi: expected a number,
/// found a string`, or `venue.json:7:15: not valid JSON: expected ',' or '}' in object, found '"'`.
public struct FormatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file's path or name, when known.
    public var file: String?
    /// The 1-based line number, for JSON Lines files.
    public var line: Int?
    /// The 1-based column on the line, in bytes, for JSON that is not well formed.
    public var column: Int?
    /// The key path inside the JSON value, such as `beacons[3].uuid`; empty for the whole value.
    public var key: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String? = nil, line: Int? = nil, column: Int? = nil, key: String = "", message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    /// An error for JSON that is not well formed, at the syntax error's line and column.
    ///
    /// `line` is the line of a JSON Lines file that held the text, when the text was one line of it.
    public init(file: String? = nil, line: Int? = nil, syntax: JSONSyntaxError, advice: String? = nil) {
        self.init(file: file, line: syntax.line ?? line ?? 1, column: syntax.column,
                  message: "not valid JSON: " + syntax.message + (advice.map { " — " + $0 } ?? ""))
    }

    /// `file:line:column: key: message`, leaving out the parts that are unknown.
    public var description: String {
        var prefix = ""
        if let file { prefix += file }
        if let line { prefix += (prefix.isEmpty ? "line " : ":") + String(line) }
        if let column { prefix += (prefix.isEmpty ? "column " : (file == nil ? ", column " : ":")) + String(column) }
        if !prefix.isEmpty { prefix += ": " }
        if !key.isEmpty { prefix += key + ": " }
        return prefix + message
    }

    /// The same error attributed to a file (and line), keeping the key and the message.
    public func located(file: String?, line: Int? = nil) -> FormatError {
        FormatError(file: file ?? self.file, line: line ?? self.line, column: column, key: key, message: message)
    }
}
