/// Where a member named by a key path lies in a JSON text: what turns a ``FormatError``'s or an
/// ``UnknownKey``'s key path into a line and a column. Only looked up when something is to be
/// reported, so it parses the text again rather than keeping offsets for every value.
struct JSONKeyLocation: Hashable, Sendable {
    /// The 1-based line.
    var line: Int
    /// The 1-based column, in bytes.
    var column: Int

    /// The member at `path` (`beacons[2].txPower`; an array element `waypoints[3]`) in `bytes`:
    /// the opening quote of its name, or with `value`, the start of its value. `nil` when the
    /// text does not parse or has no such member.
    static func find<Bytes: Collection<UInt8>>(_ path: String, in bytes: Bytes, value: Bool = false) -> JSONKeyLocation? {
        guard !path.isEmpty else { return nil }
        let offset = bytes.withContiguousStorageIfAvailable { offsetOf(path, value: value, in: $0) }
            ?? Array(bytes).withUnsafeBufferPointer { offsetOf(path, value: value, in: $0) }
        guard let offset else { return nil }
        var line = 1, lineStart = 0, index = 0
        for byte in bytes.prefix(offset) {
            index += 1
            if byte == 0x0A {
                line += 1
                lineStart = index
            }
        }
        return JSONKeyLocation(line: line, column: offset - lineStart + 1)
    }

    private static func offsetOf(_ target: String, value wantsValue: Bool, in buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        var cursor = JSONParser.Cursor(bytes: buffer)
        /// Walks the value at the cursor, whose path is `path`; returns the target's offset once found.
        func walk(path: String, depth: Int) throws(JSONSyntaxError) -> Int? {
            guard depth <= JSONParser.maximumDepth else { return nil }
            cursor.skipWhitespace()
            switch cursor.current {
            case UInt8(ascii: "{"):
                cursor.position += 1
                cursor.skipWhitespace()
                if cursor.current == UInt8(ascii: "}") { return nil }
                while true {
                    cursor.skipWhitespace()
                    let keyStart = cursor.position
                    guard cursor.current == UInt8(ascii: "\"") else { return nil }
                    let key = try cursor.parseString()
                    cursor.skipWhitespace()
                    guard cursor.current == UInt8(ascii: ":") else { return nil }
                    cursor.position += 1
                    cursor.skipWhitespace()
                    let childPath = path.isEmpty ? key : path + "." + key
                    if childPath == target { return wantsValue ? cursor.position : keyStart }
                    if let found = try descend(into: childPath, depth: depth) { return found }
                    cursor.skipWhitespace()
                    guard cursor.current == UInt8(ascii: ",") else { return nil }
                    cursor.position += 1
                }
            case UInt8(ascii: "["):
                cursor.position += 1
                cursor.skipWhitespace()
                if cursor.current == UInt8(ascii: "]") { return nil }
                var index = 0
                while true {
                    cursor.skipWhitespace()
                    let childPath = "\(path)[\(index)]"
                    if childPath == target { return cursor.position }
                    if let found = try descend(into: childPath, depth: depth) { return found }
                    cursor.skipWhitespace()
                    guard cursor.current == UInt8(ascii: ",") else { return nil }
                    cursor.position += 1
                    index += 1
                }
            default:
                return nil
            }
        }
        /// Looks into the value at the cursor when the target lies inside it, else passes over it.
        func descend(into childPath: String, depth: Int) throws(JSONSyntaxError) -> Int? {
            let inside = target.hasPrefix(childPath) && target.utf8.count > childPath.utf8.count
                && [UInt8(ascii: "."), UInt8(ascii: "[")].contains(Array(target.utf8)[childPath.utf8.count])
            if inside {
                // A path names one member: not inside this value, it is nowhere.
                guard let found = try walk(path: childPath, depth: depth + 1) else {
                    throw JSONSyntaxError(offset: cursor.position, message: "no such member")
                }
                return found
            }
            _ = try cursor.parseValue(depth: depth + 1)
            return nil
        }
        do { return try walk(path: "", depth: 0) } catch { return nil }
    }
}
