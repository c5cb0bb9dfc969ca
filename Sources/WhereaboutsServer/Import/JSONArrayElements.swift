import Foundation

/// The elements of a large JSON document's top-level arrays, found without parsing the whole:
/// a Google location history is one JSON object of a gigabyte or more, and only each element of
/// its arrays needs to be a value in memory at a time.
///
/// For a top-level object, ``elements(of:in:)`` gives the elements of the arrays under `keys`
/// (each with its key); for a top-level array, its elements (with the key `""`). Strings are
/// skipped with their escapes; nesting is counted, not recursed into.
enum JSONArrayElements {
    /// An element: the array's key and the element's bytes.
    struct Element: Hashable {
        var key: String
        var range: Range<Int>
    }

    /// Why the document cannot be read.
    struct Malformed: Error, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "\(reason) at byte \(offset)" }
    }

    /// The elements of the top-level arrays named `keys` (or of the top-level array), in order;
    /// the other members are skipped.
    static func elements(of bytes: UnsafeRawBufferPointer, in keys: Set<String>) throws(Malformed) -> [Element] {
        var scanner = Scanner(bytes: bytes)
        var found: [Element] = []
        scanner.skipWhitespace()
        guard let first = scanner.peek() else { throw Malformed(offset: 0, reason: "an empty document") }
        if first == UInt8(ascii: "[") {
            try scanner.elements(key: "", into: &found)
            return found
        }
        guard first == UInt8(ascii: "{") else { throw Malformed(offset: scanner.index, reason: "neither an object nor an array") }
        scanner.index += 1
        scanner.skipWhitespace()
        if scanner.peek() == UInt8(ascii: "}") { return found }
        while true {
            scanner.skipWhitespace()
            let key = try scanner.string()
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: ":") else { throw Malformed(offset: scanner.index, reason: "expected ':'") }
            scanner.index += 1
            scanner.skipWhitespace()
            if keys.contains(key), scanner.peek() == UInt8(ascii: "[") {
                try scanner.elements(key: key, into: &found)
            } else {
                _ = try scanner.skipValue()
            }
            scanner.skipWhitespace()
            switch scanner.peek() {
            case UInt8(ascii: ","): scanner.index += 1
            case UInt8(ascii: "}"): return found
            default: throw Malformed(offset: scanner.index, reason: "expected ',' or '}'")
            }
        }
    }

    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

        mutating func skipWhitespace() {
            while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
        }

        /// A string's text (escapes kept as written: the keys looked for have none).
        mutating func string() throws(Malformed) -> String {
            let start = index
            try skipString()
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<(index - 1)]), as: UTF8.self)
        }

        mutating func skipString() throws(Malformed) {
            guard peek() == UInt8(ascii: "\"") else { throw Malformed(offset: index, reason: "expected a string") }
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""): index += 1; return
                default: index += 1
                }
            }
            throw Malformed(offset: index, reason: "a string does not end")
        }

        /// Skips one value; returns where it began.
        mutating func skipValue() throws(Malformed) -> Int {
            let start = index
            guard let first = peek() else { throw Malformed(offset: index, reason: "expected a value") }
            switch first {
            case UInt8(ascii: "\""):
                try skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""): try skipString(); continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 { index += 1; return start }
                    default: break
                    }
                    index += 1
                }
                throw Malformed(offset: start, reason: "an object or array does not end")
            default:
                while index < bytes.count, !Self.isWhitespace(bytes[index]), bytes[index] != UInt8(ascii: ","),
                      bytes[index] != UInt8(ascii: "}"), bytes[index] != UInt8(ascii: "]") { index += 1 }
                guard index > start else { throw Malformed(offset: index, reason: "expected a value") }
            }
            return start
        }

        /// The elements of the array here.
        mutating func elements(key: String, into found: inout [Element]) throws(Malformed) {
            index += 1  // [
            skipWhitespace()
            if peek() == UInt8(ascii: "]") { index += 1; return }
            while true {
                skipWhitespace()
                let start = try skipValue()
                found.append(Element(key: key, range: start..<index))
                skipWhitespace()
                switch peek() {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"): index += 1; return
                default: throw Malformed(offset: index, reason: "expected ',' or ']'")
                }
            }
        }
    }
}
