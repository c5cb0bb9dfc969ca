import Foundation
import Whereabouts
@testable import WhereaboutsServer

/// Checks JSON values against the OpenAPI 3.0 schemas of ``OpenAPIDocument``: the subset of
/// JSON Schema the document uses (`$ref`, `type` with `nullable`, `enum`, bounds, `pattern`,
/// `required`, `properties`, `additionalProperties`, `items`, `allOf`, `anyOf`, `oneOf`, `not`).
struct OpenAPISchemaValidator {
    let document: JSONValue

    /// The value at a local reference such as `#/components/schemas/Event`.
    func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var value: JSONValue? = document
        for part in reference.dropFirst(2).split(separator: "/") {
            value = value?[String(part).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")]
        }
        return value
    }

    /// Every way `value` breaks `schema`, each with the place in the value; empty when it fits.
    func errors(_ value: JSONValue, _ schema: JSONValue, at path: String = "$") -> [String] {
        if case .string(let reference)? = schema["$ref"] {
            guard let target = resolve(reference) else { return ["\(path): unresolved \(reference)"] }
            return errors(value, target, at: path)
        }
        var found: [String] = []
        if value == .null {
            if schema["nullable"] == .bool(true) { return [] }
            if schema["type"] != nil { return ["\(path): null where \(schema["type"].map { "\($0)" } ?? "") is expected"] }
        }
        if case .string(let type)? = schema["type"], !Self.has(value, type: type) {
            return ["\(path): \(value.kindDescription) where \(type) is expected"]
        }
        if case .array(let allowed)? = schema["enum"], !allowed.contains(value) {
            found.append("\(path): \(value) is not one of \(allowed)")
        }
        switch value {
        case .number(let number):
            if case .number(let minimum)? = schema["minimum"], number < minimum { found.append("\(path): \(number) < \(minimum)") }
            if case .number(let maximum)? = schema["maximum"], number > maximum { found.append("\(path): \(number) > \(maximum)") }
        case .string(let text):
            let length = text.unicodeScalars.count
            if case .number(let minimum)? = schema["minLength"], Double(length) < minimum { found.append("\(path): shorter than \(minimum)") }
            if case .number(let maximum)? = schema["maxLength"], Double(length) > maximum { found.append("\(path): longer than \(maximum)") }
            if case .string(let pattern)? = schema["pattern"] {
                let matches = (try? NSRegularExpression(pattern: pattern))
                    .map { $0.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil } ?? false
                if !matches { found.append("\(path): \"\(text)\" does not match \(pattern)") }
            }
        case .array(let items):
            if case .number(let minimum)? = schema["minItems"], Double(items.count) < minimum { found.append("\(path): fewer than \(minimum) items") }
            if case .number(let maximum)? = schema["maxItems"], Double(items.count) > maximum { found.append("\(path): more than \(maximum) items") }
            if let itemSchema = schema["items"] {
                for (index, item) in items.enumerated() { found += errors(item, itemSchema, at: "\(path)[\(index)]") }
            }
        case .object(let members):
            if case .array(let required)? = schema["required"] {
                for case .string(let name) in required where value[name] == nil { found.append("\(path): missing \(name)") }
            }
            if case .number(let minimum)? = schema["minProperties"], Double(members.count) < minimum { found.append("\(path): too few members") }
            if case .number(let maximum)? = schema["maxProperties"], Double(members.count) > maximum { found.append("\(path): too many members") }
            let properties = schema["properties"]
            for (key, member) in members {
                if let propertySchema = properties?[key] {
                    found += errors(member, propertySchema, at: "\(path).\(key)")
                } else if schema["additionalProperties"] == .bool(false) {
                    found.append("\(path): unexpected member \(key)")
                } else if let additional = schema["additionalProperties"], case .object = additional {
                    found += errors(member, additional, at: "\(path).\(key)")
                }
            }
        default:
            break
        }
        if case .array(let all)? = schema["allOf"] {
            for part in all { found += errors(value, part, at: path) }
        }
        if case .array(let any)? = schema["anyOf"], !any.contains(where: { errors(value, $0, at: path).isEmpty }) {
            found.append("\(path): fits none of anyOf (\(any.map { errors(value, $0, at: path).joined(separator: "; ") }.joined(separator: " | ")))")
        }
        if case .array(let one)? = schema["oneOf"], one.filter({ errors(value, $0, at: path).isEmpty }).count != 1 {
            found.append("\(path): does not fit exactly one of oneOf")
        }
        if let not = schema["not"], errors(value, not, at: path).isEmpty {
            found.append("\(path): fits a schema it must not fit")
        }
        return found
    }

    private static func has(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("number", .number): true
        case ("integer", .number(let number)): number == number.rounded()
        default: false
        }
    }
}
