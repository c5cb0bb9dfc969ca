/// Where members named by key paths lie in a JSON text: what turns a ``FormatError``'s or an
/// ``UnknownKey``'s key path into a line and a column. Only looked up when something is to be
/// reported, so it parses the text again, once for all the paths asked, rather than keeping
/// offsets for every value.
struct JSONKeyLocation: Hashable, Sendable {
    /// The 1-based line.
    var line: Int
    /// The 1-based column, in bytes.
    var column: Int

    /// The member at `path` (`beacons[2].txPower`; an array element `waypoints[3]`) in `bytes`:
    /// the opening quote of its name, or with `value`, the start of its value. `nil` when the
    /// text does not parse or has no such member.
    static func find<Bytes: Collection<UInt8>>(_ path: String, in bytes: Bytes, value: Bool = false) -> JSONKeyLocation? {
        find([path], in: bytes, value: value)[path]
    }

    /// The members at `paths`, found in one pass over `bytes` (as ``find(_:in:value:)``); paths
    /// the text does not have are left out, and a text that stops parsing keeps what was found
    /// before.
    static func find<Bytes: Collection<UInt8>>(_ paths: some Sequence<String>, in bytes: Bytes,
                                               value: Bool = false) -> [String: JSONKeyLocation] {
        let targets = Set(paths.filter { !$0.isEmpty })
        guard !targets.isEmpty else { return [:] }
        let offsets = bytes.withContiguousStorageIfAvailable { offsetsOf(targets, value: value, in: $0) }
            ?? Array(bytes).withUnsafeBufferPointer { offsetsOf(targets, value: value, in: $0) }
        // Lines and columns in one pass, the offsets in order.
        var locations: [String: JSONKeyLocation] = [:]
        var line = 1, lineStart = 0, index = 0
        var iterator = bytes.makeIterator()
        for (path, offset) in offsets.sorted(by: { $0.value < $1.value }) {
            while index < offset, let byte = iterator.next() {
                index += 1
                if byte == 0x0A {
                    line += 1
                    lineStart = index
                }
            }
            locations[path] = JSONKeyLocation(line: line, column: offset - lineStart + 1)
        }
        return locations
    }

    /// The byte offset of each target found: its name's opening quote, or its value's start.
    private static func offsetsOf(_ targets: Set<String>, value wantsValue: Bool,
                                  in buffer: UnsafeBufferPointer<UInt8>) -> [String: Int] {
        // The containers a target lies in: only these are looked into, the rest passed over.
        var ancestors: Set<String> = []
        for target in targets {
            var path = target
            while !path.isEmpty {
                path = JSONDocument.parent(of: path)
                if !path.isEmpty { ancestors.insert(path) }
            }
        }
        var found: [String: Int] = [:]
        var cursor = JSONParser.Cursor(bytes: buffer)
        /// Notes the member at the cursor when it is a target, then looks into it or passes over it.
        func member(_ path: String, nameAt nameOffset: Int, depth: Int) throws(JSONSyntaxError) {
            if targets.contains(path) { found[path] = wantsValue ? cursor.position : nameOffset }
            if ancestors.contains(path) {
                try walk(path: path, depth: depth + 1)
            } else {
                _ = try cursor.parseValue(depth: depth + 1)
            }
        }
        /// Walks the container at the cursor, whose path is `path`.
        func walk(path: String, depth: Int) throws(JSONSyntaxError) {
            guard depth <= JSONParser.maximumDepth else { return }
            cursor.skipWhitespace()
            switch cursor.current {
            case UInt8(ascii: "{"):
                cursor.position += 1
                cursor.skipWhitespace()
                if cursor.current == UInt8(ascii: "}") {
                    cursor.position += 1
                    return
                }
                while true {
                    cursor.skipWhitespace()
                    let nameOffset = cursor.position
                    guard cursor.current == UInt8(ascii: "\"") else { return }
                    let key = try cursor.parseString()
                    cursor.skipWhitespace()
                    guard cursor.current == UInt8(ascii: ":") else { return }
                    cursor.position += 1
                    cursor.skipWhitespace()
                    try member(path.isEmpty ? key : path + "." + key, nameAt: nameOffset, depth: depth)
                    cursor.skipWhitespace()
                    guard cursor.current == UInt8(ascii: ",") else {
                        if cursor.current == UInt8(ascii: "}") { cursor.position += 1 }
                        return
                    }
                    cursor.position += 1
                }
            case UInt8(ascii: "["):
                cursor.position += 1
                cursor.skipWhitespace()
                if cursor.current == UInt8(ascii: "]") {
                    cursor.position += 1
                    return
                }
                var index = 0
                while true {
                    cursor.skipWhitespace()
                    try member("\(path)[\(index)]", nameAt: cursor.position, depth: depth)
                    cursor.skipWhitespace()
                    guard cursor.current == UInt8(ascii: ",") else {
                        if cursor.current == UInt8(ascii: "]") { cursor.position += 1 }
                        return
                    }
                    cursor.position += 1
                    index += 1
                }
            default:
                _ = try cursor.parseValue(depth: depth)
            }
        }
        try? walk(path: "", depth: 0)
        return found
    }
}
