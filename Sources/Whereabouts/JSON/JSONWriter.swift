/// Writes ``JSONValue``s as compact or indented JSON text.
///
/// Numbers are written in the shortest form that reads back to the same `Double`, and integral
/// values without a fraction (`-67`, not `-67.0`). Non-finite numbers, which JSON cannot hold, are
/// written as `null`.
public struct JSONWriter: Sendable {
    /// Indent nested values by this many spaces, or write everything on one line when `nil`.
    public var indent: Int?

    /// Creates a writer; `indent: nil` writes one line.
    public init(indent: Int? = nil) {
        self.indent = indent
    }

    /// The JSON text of a value.
    public func string(from value: JSONValue) -> String {
        var out = ""
        write(value, to: &out, level: 0)
        return out
    }

    /// Appends the JSON text of a value to `out`.
    public func write(_ value: JSONValue, to out: inout String, level: Int = 0) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): Self.appendNumber(n, to: &out)
        case .string(let s): Self.appendString(s, to: &out)
        case .array(let elements):
            if elements.isEmpty { out += "[]"; return }
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                newline(&out, level: level + 1)
                write(element, to: &out, level: level + 1)
            }
            newline(&out, level: level)
            out += "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                newline(&out, level: level + 1)
                Self.appendString(member.key, to: &out)
                out += indent == nil ? ":" : ": "
                write(member.value, to: &out, level: level + 1)
            }
            newline(&out, level: level)
            out += "}"
        }
    }

    private func newline(_ out: inout String, level: Int) {
        guard let indent else { return }
        out += "\n"
        out += String(repeating: " ", count: indent * level)
    }

    /// Appends a number in its shortest round-trip form.
    public static func appendNumber(_ n: Double, to out: inout String) {
        guard n.isFinite else { out += "null"; return }
        if n == n.rounded(), abs(n) < 1e15 {
            out += String(Int64(n))
        } else {
            out += n.description
        }
    }

    /// Appends a quoted, escaped string.
    public static func appendString(_ s: String, to out: inout String) {
        out += "\""
        var needsEscaping = false
        for byte in s.utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            needsEscaping = true
            break
        }
        if !needsEscaping {
            out += s
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        out += "\""
    }
}
