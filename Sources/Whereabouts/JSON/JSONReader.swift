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

    /// A boolean, or an error naming the path.
    func bool() throws(FormatError) -> Bool {
        guard case .bool(let flag) = value else { throw fail("expected a boolean, found \(value.kindDescription)") }
        return flag
    }

    func optionalDouble(_ key: String) throws(FormatError) -> Double? { try member(key)?.double() }
    func optionalInt(_ key: String) throws(FormatError) -> Int? { try member(key)?.int() }
    func optionalString(_ key: String) throws(FormatError) -> String? { try member(key)?.string() }
}
