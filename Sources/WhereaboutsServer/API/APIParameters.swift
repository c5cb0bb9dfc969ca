import Whereabouts

/// Reads a method's parameters, whether they came as a URL query (every value a string,
/// arrays as repeated keys) or as the JSON `params` of a batch call.
public struct APIParameters: Sendable {
    /// The parameters as a JSON object.
    public let value: JSONValue

    /// Parameters from a JSON object (a batch call's `params`).
    public init(json value: JSONValue) throws(APIError) {
        guard case .object = value else {
            throw APIError(.invalidParameters, "`params` must be an object, found \(value.kindDescription).")
        }
        self.value = value
    }

    /// Parameters from a URL query; `arrayKeys` are collected into arrays.
    public init(query: QueryParameters, arrayKeys: Set<String>) {
        var members: [(key: String, value: JSONValue)] = []
        var seen: Set<String> = []
        for (rawKey, _) in query.pairs {
            let key = rawKey.hasSuffix("[]") ? String(rawKey.dropLast(2)) : rawKey
            guard seen.insert(key).inserted else { continue }
            if arrayKeys.contains(key) {
                members.append((key, .array(query.all(key).map(JSONValue.string))))
            } else if let text = query[key] {
                members.append((key, .string(text)))
            }
        }
        self.value = .object(members)
    }

    /// The parameters with `name` set to `value` (replacing any given).
    public func adding(_ name: String, _ value: JSONValue) -> APIParameters {
        guard case .object(var members) = self.value else { return self }
        members.removeAll { $0.key == name }
        members.append((name, value))
        return APIParameters(unchecked: .object(members))
    }

    private init(unchecked value: JSONValue) {
        self.value = value
    }

    /// A number parameter (a JSON number or a decimal string) within `range`.
    public func number(_ name: String, in range: ClosedRange<Double> = -1e15...1e15) throws(APIError) -> Double? {
        guard let raw = value[name], raw != .null else { return nil }
        let number: Double?
        switch raw {
        case .number(let n): number = n
        case .string(let text): number = Double(text).flatMap { $0.isFinite ? $0 : nil }
        default: number = nil
        }
        guard let number, range.contains(number) else {
            throw APIError(.invalidParameters, "`\(name)` must be a number from \(Int64(range.lowerBound)) to \(Int64(range.upperBound)).")
        }
        return number
    }

    /// A whole-number parameter within `range`.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard let number = try number(name, in: Double(range.lowerBound)...Double(range.upperBound)) else { return nil }
        guard number == number.rounded() else { throw APIError(.invalidParameters, "`\(name)` must be a whole number.") }
        return Int(number)
    }

    /// A boolean parameter (`true`/`false`, or `1`/`0` in a query).
    public func bool(_ name: String) throws(APIError) -> Bool? {
        guard let raw = value[name], raw != .null else { return nil }
        switch raw {
        case .bool(let b): return b
        case .string("true"), .string("1"), .string(""): return true
        case .string("false"), .string("0"): return false
        default: throw APIError(.invalidParameters, "`\(name)` must be true or false.")
        }
    }

    /// A string parameter.
    public func string(_ name: String) throws(APIError) -> String? {
        guard let raw = value[name], raw != .null else { return nil }
        guard case .string(let text) = raw else { throw APIError(.invalidParameters, "`\(name)` must be a string.") }
        return text
    }

    /// The most items an array parameter may hold (a query's `streams[]`, `types[]`).
    public static let maximumListLength = 1_000

    /// An array-of-strings parameter (a single string counts as a one-element array), of at
    /// most ``maximumListLength`` items.
    public func strings(_ name: String) throws(APIError) -> [String]? {
        guard let raw = value[name], raw != .null else { return nil }
        switch raw {
        case .string(let text): return [text]
        case .array(let items):
            guard items.count <= Self.maximumListLength else {
                throw APIError(.invalidParameters, "`\(name)` holds \(items.count) items; at most \(Self.maximumListLength) are allowed.")
            }
            var result: [String] = []
            for item in items {
                guard case .string(let text) = item else {
                    throw APIError(.invalidParameters, "`\(name)` must be an array of strings.")
                }
                result.append(text)
            }
            return result
        default:
            throw APIError(.invalidParameters, "`\(name)` must be an array of strings.")
        }
    }
}
