/// A strict JSON parser (RFC 8259) over UTF-8 bytes. It never traps on bad input: every
/// malformation is a ``JSONSyntaxError`` with the byte offset where it was found, and nesting is
/// limited so that hostile input cannot exhaust the stack.
public struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    /// Parses one JSON text that fills `bytes` (whitespace around it allowed).
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(JSONSyntaxError) -> JSONValue {
        let result = bytes.withContiguousStorageIfAvailable { outcome(of: $0) }
            ?? Array(bytes).withUnsafeBufferPointer { outcome(of: $0) }
        return try result.get()
    }

    /// Parses one JSON text from a string.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    static func outcome(of buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONSyntaxError> {
        do { return .success(try parseBuffer(buffer)) } catch { return .failure(error.placed(in: buffer)) }
    }

    static func parseBuffer(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var cursor = Cursor(bytes: buffer)
        cursor.skipWhitespace()
        let value = try cursor.parseValue(depth: 0)
        cursor.skipWhitespace()
        guard cursor.position == buffer.count else {
            throw JSONSyntaxError(offset: cursor.position, message: "unexpected \(cursor.describeCurrent()) after the JSON value")
        }
        return value
    }

    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        @inline(__always) var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        func describeCurrent() -> String {
            guard let byte = current else { return "end of input" }
            if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
            return "byte 0x\(String(byte, radix: 16))"
        }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        func error(_ message: String) -> JSONSyntaxError { JSONSyntaxError(offset: position, message: message) }

        mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
            guard let byte = current else { throw error("expected a value, found end of input") }
            switch byte {
            case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): try expectLiteral("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
            default: throw error("expected a value, found \(describeCurrent())")
            }
        }

        mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
            let start = position
            let count = literal.utf8CodeUnitCount
            let pointer = literal.utf8Start
            guard bytes.count - position >= count, (0..<count).allSatisfy({ bytes[position + $0] == pointer[$0] }) else {
                throw JSONSyntaxError(offset: start, message: "expected a JSON value (an object, an array, a string, a number, "
                                        + "true, false or null), found \(snippet(at: start))")
            }
            position += count
        }

        /// Up to 16 characters of the text from `offset`, quoted, for an error.
        func snippet(at offset: Int) -> String {
            let end = min(bytes.count, offset + 16)
            let text = String(decoding: bytes[offset..<end], as: UTF8.self).prefix { $0 != "\n" && $0 != "\r" }
            return "\"\(text)\(end < bytes.count && text.utf8.count == end - offset ? "…" : "")\""
        }

        mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
            position += 1
            var members: [(key: String, value: JSONValue)] = []
            skipWhitespace()
            if current == UInt8(ascii: "}") { position += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw error("expected a member name in quotes, found \(describeCurrent())") }
                let key = try parseString()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':' after member name \"\(key)\", found \(describeCurrent())") }
                position += 1
                skipWhitespace()
                let value = try parseValue(depth: depth)
                members.append((key, value))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"): position += 1; return .object(members)
                default: throw error("expected ',' or '}' in object, found \(describeCurrent())")
                }
            }
        }

        mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
            position += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") { position += 1; return .array(elements) }
            while true {
                skipWhitespace()
                elements.append(try parseValue(depth: depth))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"): position += 1; return .array(elements)
                default: throw error("expected ',' or ']' in array, found \(describeCurrent())")
                }
            }
        }

        mutating func parseString() throws(JSONSyntaxError) -> String {
            let start = position
            position += 1
            let contentStart = position
            // Fast path: no escapes.
            var highBits: UInt8 = 0
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: bytes[contentStart..<position])
                    position += 1
                    // ASCII is valid UTF-8 as it is: `String(decoding:as:)` takes it without the
                    // generic validation of `String(validating:as:)`, whose type look-ups cost
                    // more than the copy in a batch of events.
                    if highBits < 0x80 { return String(decoding: slice, as: UTF8.self) }
                    guard let string = String(validating: slice, as: UTF8.self) else {
                        throw JSONSyntaxError(offset: start, message: "string is not valid UTF-8")
                    }
                    return string
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw error("control character in string") }
                highBits |= byte
                position += 1
            }
            guard position < bytes.count else { throw JSONSyntaxError(offset: start, message: "unterminated string") }
            var scalars = Array(UnsafeBufferPointer(rebasing: bytes[contentStart..<position]))
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    guard let string = String(validating: scalars, as: UTF8.self) else {
                        throw JSONSyntaxError(offset: start, message: "string is not valid UTF-8")
                    }
                    return string
                case UInt8(ascii: "\\"):
                    position += 1
                    guard let escape = current else { break }
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append(0x22)
                    case UInt8(ascii: "\\"): scalars.append(0x5C)
                    case UInt8(ascii: "/"): scalars.append(0x2F)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try parseHex4()
                        if (0xD800..<0xDC00).contains(code) {
                            guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                                throw error("unpaired surrogate in \\u escape")
                            }
                            position += 2
                            let low = try parseHex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00..<0xE000).contains(code) {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                        scalars.append(contentsOf: UTF8.encode(scalar)!)
                    default:
                        position -= 1
                        throw error("invalid escape \\\(describeCurrent())")
                    }
                default:
                    if byte < 0x20 { throw error("control character in string") }
                    scalars.append(byte)
                    position += 1
                }
            }
            throw JSONSyntaxError(offset: start, message: "unterminated string")
        }

        mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
            guard bytes.count - position >= 4 else { throw error("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                guard let digit = byte.hexDigitValue else { throw error("invalid \\u escape") }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }

        mutating func parseNumber() throws(JSONSyntaxError) -> Double {
            let start = position
            var negative = false
            if current == UInt8(ascii: "-") { negative = true; position += 1 }
            guard let first = current, (0x30...0x39).contains(first) else { throw error("expected a digit in number") }
            // Integer part (no leading zeros).
            var mantissa: UInt64 = 0
            var digits = 0
            var simple = true
            if first == 0x30 {
                position += 1
                if let next = current, (0x30...0x39).contains(next) {
                    throw JSONSyntaxError(offset: start, message: "number with a leading zero")
                }
            } else {
                while let byte = current, (0x30...0x39).contains(byte) {
                    if digits < 18 { mantissa = mantissa * 10 + UInt64(byte - 0x30) } else { simple = false }
                    digits += 1
                    position += 1
                }
            }
            var fractionDigits = 0
            if current == UInt8(ascii: ".") {
                position += 1
                guard let byte = current, (0x30...0x39).contains(byte) else { throw error("expected a digit after '.'") }
                while let byte = current, (0x30...0x39).contains(byte) {
                    if digits < 18 { mantissa = mantissa * 10 + UInt64(byte - 0x30); digits += 1; fractionDigits += 1 } else { simple = false }
                    position += 1
                }
            }
            if let byte = current, byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                simple = false
                position += 1
                if let sign = current, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
                guard let digit = current, (0x30...0x39).contains(digit) else { throw error("expected a digit in exponent") }
                while let byte = current, (0x30...0x39).contains(byte) { position += 1 }
            }
            if simple && fractionDigits <= 15 && mantissa < (1 << 53) {
                // Exact: both the mantissa and 10^k are exactly representable, so one division rounds correctly.
                var value = Double(mantissa)
                if fractionDigits > 0 { value /= powersOfTen[fractionDigits] }
                return negative ? -value : value
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                throw JSONSyntaxError(offset: start, message: "number \(text) is out of range")
            }
            return value
        }
    }
}

private let powersOfTen: [Double] = (0...15).map { exponent in
    var value = 1.0
    for _ in 0..<exponent { value *= 10 }
    return value
}

/// A JSON text that is not well formed, with where the problem was found.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Offset from the start of the text, in bytes.
    public var offset: Int
    /// What is wrong.
    public var message: String
    /// The line of the problem (1 for the first), or `nil` when the text is one line (a line of a
    /// recording, whose reader names the file's line itself).
    public var line: Int?
    /// The column of the problem on its line, in bytes (1 for the first).
    public var column: Int

    /// Creates an error at a byte offset of a one-line text.
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
        line = nil
        column = offset + 1
    }

    /// `message (line L, column C)`, or `message (column C)` in a one-line text.
    public var description: String {
        "\(message) (" + (line.map { "line \($0), " } ?? "") + "column \(column))"
    }

    /// The error with its line and column in `text`.
    func placed(in text: UnsafeBufferPointer<UInt8>) -> JSONSyntaxError {
        var placed = self
        let end = min(offset, text.count)
        var line = 1, lineStart = 0
        for index in 0..<end where text[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        placed.column = end - lineStart + 1
        // A text that has a line break in it (not only a final one) is named by line.
        let checked = text.last == 0x0A ? text.count - 1 : text.count
        let multiline = text[0..<checked].contains(0x0A)
        placed.line = multiline ? line : nil
        // In a one-line text, the end of the input after its final line break is the end of the line.
        if !multiline && line > 1 { placed.column = checked + 1 }
        return placed
    }
}
