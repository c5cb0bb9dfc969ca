/// Writes ``JSONValue``s as compact or indented JSON text.
///
/// Numbers are written in the shortest form that reads back to the same `Double`, and integral
/// values without a fraction (`-67`, not `-67.0`). Non-finite numbers, which JSON cannot hold, are
/// written as `null`.
///
/// The writer works on UTF-8 bytes; ``bytes(from:)`` and `write(_:to:level:)`
/// are the fast path for output that goes to a file or a socket, the `String` methods wrap them.
///
/// ```swift
/// JSONWriter().string(from: .object([("latitude", .number(46.5)), ("floor", .number(2))]))
/// // {"latitude":46.5,"floor":2}
/// ```
public struct JSONWriter: Sendable {
    /// Indent nested values by this many spaces, or write everything on one line when `nil`.
    public var indent: Int?

    /// Creates a writer; `indent: nil` writes one line.
    public init(indent: Int? = nil) {
        self.indent = indent
    }

    /// The JSON text of a value.
    public func string(from value: JSONValue) -> String {
        String(decoding: bytes(from: value), as: UTF8.self)
    }

    /// The JSON text of a value, as UTF-8 bytes.
    public func bytes(from value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(value, to: &out, level: 0)
        return out
    }

    /// Appends the JSON text of a value to `out`.
    public func write(_ value: JSONValue, to out: inout String, level: Int = 0) {
        var bytes: [UInt8] = []
        write(value, to: &bytes, level: level)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the JSON text of a value to `out`, as UTF-8 bytes.
    public func write(_ value: JSONValue, to out: inout [UInt8], level: Int = 0) {
        switch value {
        case .null: Self.appendRaw("null", to: &out)
        case .bool(let b): Self.appendRaw(b ? "true" : "false", to: &out)
        case .number(let n): Self.appendNumber(n, to: &out)
        case .string(let s): Self.appendString(s, to: &out)
        case .array(let elements):
            if elements.isEmpty { Self.appendRaw("[]", to: &out); return }
            out.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                newline(&out, level: level + 1)
                write(element, to: &out, level: level + 1)
            }
            newline(&out, level: level)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty { Self.appendRaw("{}", to: &out); return }
            out.append(UInt8(ascii: "{"))
            var first = true
            for member in members {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                newline(&out, level: level + 1)
                Self.appendString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                write(member.value, to: &out, level: level + 1)
            }
            newline(&out, level: level)
            out.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ out: inout [UInt8], level: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    /// Appends JSON text as it is (punctuation and member names that need no escaping), e.g.
    /// `JSONWriter.appendRaw(#"{"event":"#, to: &body)`.
    public static func appendRaw(_ text: StaticString, to out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// Appends a number in its shortest round-trip form.
    public static func appendNumber(_ n: Double, to out: inout String) {
        var bytes: [UInt8] = []
        appendNumber(n, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends a number in its shortest round-trip form, as UTF-8 bytes.
    public static func appendNumber(_ n: Double, to out: inout [UInt8]) {
        guard n.isFinite else { appendRaw("null", to: &out); return }
        if n == n.rounded(), abs(n) < 1e15 {
            appendInteger(Int64(n), to: &out)
        } else {
            out.append(contentsOf: n.description.utf8)
        }
    }

    private static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // At most 15 digits (|value| < 1e15), written backwards into a 16-byte buffer.
        var digits: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: buffer[index...])
        }
    }

    /// Appends a quoted, escaped string.
    public static func appendString(_ s: String, to out: inout String) {
        var bytes: [UInt8] = []
        appendString(s, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends a quoted, escaped string, as UTF-8 bytes.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22: out.append(UInt8(ascii: "\""))
                case 0x5C: out.append(UInt8(ascii: "\\"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                            hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
