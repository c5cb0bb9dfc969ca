import Foundation

/// Reads and writes `walk.json`, the description of a simulated person's walk (``Walk``).
///
/// ```json
/// {"device": "visitor", "track": "morning", "speed": 1.2, "start": 1700000000,
///  "waypoints": [{"x": 1, "y": 2, "floor": 0, "dwell": 10},
///                {"x": 20, "y": 2},
///                {"x": 21, "y": 3, "floor": 1, "dwell": 30}]}
/// ```
///
/// - `waypoints` (required, at least one): objects with `x` and `y` (required, venue units, the
///   venue's local frame), `floor` (optional integer level, default 0) and `dwell` (optional
///   seconds spent standing there, default 0, not negative). The walk goes through them in order
///   in straight lines. A floor change between two consecutive waypoints happens on arrival at
///   the second one: the segment between them is walked on the first one's floor.
/// - `speed` (optional): walking speed in venue units per second, positive; default 1.2.
/// - `start` (optional): the time of the first scan in seconds (since 1970 for wall-clock
///   recordings); default 0.
/// - `device`, `track` (optional strings): copied to every simulated scan.
///
/// Unknown keys are ignored. Every problem is a ``FormatError`` naming the file and the key:
/// `walk.json: waypoints[2].x: expected a number, found a string`.
public enum WalkFile {
    /// Reads and validates a walk file.
    public static func read(from url: URL) throws(FormatError) -> Walk {
        try decode(JSONDocument.contents(of: url), file: url.path)
    }

    /// Reads a walk file as ``read(from:)`` does, adding the keys its format does not know (which
    /// are ignored) to `unknownKeys`, each with its line and column and the known key it most
    /// likely meant: a misspelt optional key is otherwise dropped without a word.
    public static func read(from url: URL, unknownKeys: inout [UnknownKey]) throws(FormatError) -> Walk {
        try JSONDocument.decode(JSONDocument.contents(of: url), file: url.path, unknownKeys: &unknownKeys, with: decode(root:))
    }

    /// Parses and validates a walk from JSON bytes; `file` names the source in errors.
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes, file: String? = nil) throws(FormatError) -> Walk {
        try JSONDocument.decode(bytes, file: file, with: decode(root:))
    }

    /// Builds and validates a walk from a parsed JSON value.
    public static func decode(_ value: JSONValue) throws(FormatError) -> Walk {
        try decode(root: JSONReader(value))
    }

    static func decode(root: JSONReader) throws(FormatError) -> Walk {
        _ = try root.object()
        var walk = Walk(waypoints: [])
        walk.device = try root.optionalString("device")
        walk.track = try root.optionalString("track")
        if let speed = root.member("speed") {
            walk.speed = try speed.double()
            guard walk.speed > 0 else { throw speed.fail("speed must be positive, found \(walk.speed)") }
        }
        walk.start = try root.optionalDouble("start") ?? 0
        let waypoints = try root.required("waypoints")
        for item in try waypoints.elements() {
            let x = try item.required("x").double()
            let y = try item.required("y").double()
            let floor = try item.optionalInt("floor") ?? 0
            var dwell = 0.0
            if let reader = item.member("dwell") {
                dwell = try reader.double()
                guard dwell >= 0 else { throw reader.fail("dwell must not be negative, found \(dwell)") }
            }
            walk.waypoints.append(Walk.Waypoint(x: x, y: y, floor: floor, dwell: dwell))
        }
        guard !walk.waypoints.isEmpty else { throw waypoints.fail("a walk needs at least one waypoint") }
        return walk
    }

    /// The JSON value of a walk: `device`, `track`, `speed`, `start`, then `waypoints`, each
    /// waypoint leaving out a zero `floor` and a zero `dwell`.
    public static func encode(_ walk: Walk) -> JSONValue {
        var root: [(key: String, value: JSONValue)] = []
        if let device = walk.device { root.append(("device", .string(device))) }
        if let track = walk.track { root.append(("track", .string(track))) }
        root.append(("speed", .number(walk.speed)))
        root.append(("start", .number(walk.start)))
        root.append(("waypoints", .array(walk.waypoints.map { waypoint in
            var members: [(key: String, value: JSONValue)] = [("x", .number(waypoint.x)), ("y", .number(waypoint.y))]
            if waypoint.floor != 0 { members.append(("floor", .number(Double(waypoint.floor)))) }
            if waypoint.dwell != 0 { members.append(("dwell", .number(waypoint.dwell))) }
            return .object(members)
        })))
        return .object(root)
    }

    /// The text of a walk file: one waypoint a line, so that it stays short and easy to edit.
    public static func text(_ walk: Walk) -> String {
        let compact = JSONWriter()
        guard case .object(let members) = encode(walk) else { return "" }
        var lines: [String] = []
        for member in members {
            var line = "  "
            JSONWriter.appendString(member.key, to: &line)
            line += ": "
            if case .array(let waypoints) = member.value {
                line += "[\n" + waypoints.map { "    " + spaced($0) }.joined(separator: ",\n") + "\n  ]"
            } else {
                compact.write(member.value, to: &line)
            }
            lines.append(line)
        }
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }

    /// A waypoint object on one line with a space after each colon and comma: `{"x": 1, "y": 2}`.
    private static func spaced(_ waypoint: JSONValue) -> String {
        guard case .object(let members) = waypoint else { return JSONWriter().string(from: waypoint) }
        var out = "{"
        for (index, member) in members.enumerated() {
            if index > 0 { out += ", " }
            JSONWriter.appendString(member.key, to: &out)
            out += ": "
            JSONWriter().write(member.value, to: &out)
        }
        return out + "}"
    }

    /// Writes a walk file (see ``text(_:)``).
    public static func write(_ walk: Walk, to url: URL) throws {
        try Data(text(walk).utf8).write(to: url, options: .atomic)
    }
}
