/// A key that a file holds and its format does not know: ignored when read (so that files from
/// newer writers stay readable, FORMATS.md), and reported, since it is most often a typo that
/// would otherwise drop a value without a word.
///
/// Its description reads like a compiler's warning, with the nearest known key when there is
/// one: `venue.json:9:7: beacons[0].txpower: unknown key, ignored — did you mean "txPower"?`.
/// Members unknown under one pattern (the same misspelling in every beacon) are counted in one.
public struct UnknownKey: Hashable, Sendable, CustomStringConvertible {
    /// The file's path or name, when known.
    public var file: String?
    /// The 1-based line of the first occurrence, when known.
    public var line: Int?
    /// The 1-based column of the key's opening quote, in bytes, when known.
    public var column: Int?
    /// The key path of the first occurrence, such as `beacons[0].txpower`.
    public var key: String
    /// The known key it most likely meant, if any is near.
    public var suggestion: String?
    /// How many members, or lines of a recording, hold the same unknown key.
    public var occurrences: Int

    /// Creates the report of an unknown key.
    public init(file: String? = nil, line: Int? = nil, column: Int? = nil, key: String, suggestion: String? = nil,
                occurrences: Int = 1) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.suggestion = suggestion
        self.occurrences = occurrences
    }

    /// The member's own name: the last component of ``key``.
    public var name: String {
        String(key.split(separator: ".", omittingEmptySubsequences: false).last ?? Substring(key))
    }

    /// `file:line:column: key: unknown key, ignored — did you mean "…"? (N times)`.
    public var description: String {
        let place = FormatError(file: file, line: line, column: column, key: key, message: "").description
        var text = place + "unknown key, ignored"
        if let suggestion { text += " — did you mean \"\(suggestion)\"?" }
        if occurrences > 1 { text += " (\(occurrences.counted("time")))" }
        return text
    }
}
