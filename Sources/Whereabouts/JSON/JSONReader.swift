/// Reads typed values out of a ``JSONValue`` while keeping the key path for error messages.
///
/// With a ``KeyLedger``, every key the decoder asks for is written down under its key pattern
/// (the path with array indices left out), so that the members nobody asked for — misspelt or
/// unknown keys — can be listed afterwards (``KeyLedger/unknownKeys(in:)``).
struct JSONReader {
    let value: JSONValue
    let path: String
    /// The key path without array indices (`beacons[].txPower`); kept only with a ledger.
    let pattern: String
    let ledger: KeyLedger?

    init(_ value: JSONValue, path: String = "", ledger: KeyLedger? = nil) {
        self.init(value, path: path, pattern: ledger == nil ? "" : KeyLedger.pattern(of: path), ledger: ledger)
    }

    private init(_ value: JSONValue, path: String, pattern: String, ledger: KeyLedger?) {
        self.value = value
        self.path = path
        self.pattern = pattern
        self.ledger = ledger
    }

    func fail(_ message: String) -> FormatError { FormatError(key: path, message: message) }

    func childPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// A reader of `value` as a child of this one (its path `path`, its pattern `pattern`).
    func child(_ value: JSONValue, path: String, pattern: @autoclosure () -> String) -> JSONReader {
        JSONReader(value, path: path, pattern: ledger == nil ? "" : pattern(), ledger: ledger)
    }

    /// The members of an object, or an error naming the path. The object's keys are the
    /// format's: any member the decoder does not ask for is unknown.
    func object() throws(FormatError) -> [(key: String, value: JSONValue)] {
        guard case .object(let members) = value else { throw fail("expected an object, found \(value.kindDescription)") }
        ledger?.visit(pattern)
        return members
    }

    /// The members of an object whose keys are data (names of places, of classifiers), not the
    /// format's: none of them is unknown.
    func members() throws(FormatError) -> [(key: String, value: JSONValue)] {
        guard case .object(let members) = value else { throw fail("expected an object, found \(value.kindDescription)") }
        ledger?.open(pattern)
        return members
    }

    func member(_ key: String) -> JSONReader? {
        ledger?.request(key, at: pattern)
        guard let child = value[key], child != .null else { return nil }
        return self.child(child, path: childPath(key), pattern: pattern.isEmpty ? key : pattern + "." + key)
    }

    func required(_ key: String) throws(FormatError) -> JSONReader {
        _ = try object()
        guard let child = member(key) else {
            // A member whose name is near the one missing is most likely it, misspelt.
            let known = ledger?.keys(at: pattern) ?? []
            let misspelt = NearestName.suggestion(for: key, among: ((try? object()) ?? []).map(\.key).filter { !known.contains($0) })
            throw FormatError(key: childPath(key), message: "missing required key"
                                + (misspelt.map { " (is \"\($0)\" it, misspelt?)" } ?? ""))
        }
        return child
    }

    func elements() throws(FormatError) -> [JSONReader] {
        guard case .array(let items) = value else { throw fail("expected an array, found \(value.kindDescription)") }
        return items.enumerated().map { child($1, path: "\(path)[\($0)]", pattern: pattern + "[]") }
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

    /// A boolean, or an error naming the path.
    func bool() throws(FormatError) -> Bool {
        guard case .bool(let flag) = value else { throw fail("expected a boolean, found \(value.kindDescription)") }
        return flag
    }

    func optionalDouble(_ key: String) throws(FormatError) -> Double? { try member(key)?.double() }
    func optionalInt(_ key: String) throws(FormatError) -> Int? { try member(key)?.int() }
    func optionalString(_ key: String) throws(FormatError) -> String? { try member(key)?.string() }
}
