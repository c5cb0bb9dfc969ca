import Crypto
import Whereabouts

/// A position read from another tool's history, before it becomes a `position/wgs84` event:
/// its fix, its time and what the tool said about it (``clientData``).
///
/// Its event is built directly, its numbers checked against the ranges the API checks
/// (``EventValidation``), without the JSON round trip of a request: imports take millions.
struct ImportedPosition {
    var latitude: Double
    var longitude: Double
    var altitude: Double?
    /// Metres.
    var horizontalAccuracy: Double?
    /// Metres.
    var verticalAccuracy: Double?
    /// Metres per second.
    var speed: Double?
    /// Degrees clockwise from north.
    var bearing: Double?
    /// Seconds since 1970.
    var time: Double
    /// Seconds at this place (a visit), 0 for a fix.
    var duration: Double = 0
    /// What the source said besides the fix, kept in the event's `clientData`.
    var clientData: JSONValue?

    /// The event's content, members in the API's order.
    var content: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("latitude", .number(latitude)), ("longitude", .number(longitude))]
        members.reserveCapacity(7)
        if let altitude { members.append(("altitude", .number(altitude))) }
        if let horizontalAccuracy { members.append(("horizontalAccuracy", .number(horizontalAccuracy))) }
        if let verticalAccuracy { members.append(("verticalAccuracy", .number(verticalAccuracy))) }
        if let speed { members.append(("speed", .number(speed))) }
        if let bearing { members.append(("bearing", .number(bearing))) }
        return .object(members)
    }

    /// The `position/wgs84` event in `stream`, identified by `id(content)`, or why it cannot be one.
    func event(stream: String, now: Double, accessId: String, id: (JSONValue) -> String) throws(EventValidationError) -> Event {
        let fields: [String: Double?] = ["latitude": latitude, "longitude": longitude, "altitude": altitude,
                                         "horizontalAccuracy": horizontalAccuracy, "verticalAccuracy": verticalAccuracy,
                                         "speed": speed, "bearing": bearing]
        // Each field against the API's range for it, by name.
        for (field, range, _) in EventValidation.positionRanges {
            guard let value = fields[field] ?? nil else { continue }
            guard value.isFinite, range.contains(value) else {
                throw .invalidField("content." + field, "`\(field)` must be a number from \(range.lowerBound) to \(range.upperBound), found \(value).")
            }
        }
        guard time.isFinite, (0...1e11).contains(time) else {
            throw .invalidField("time", "The time must be seconds since 1970 (0 to 1e11), found \(time).")
        }
        guard duration.isFinite, (0...1e11).contains(duration) else {
            throw .invalidField("duration", "The duration must be 0 to 1e11 seconds, found \(duration).")
        }
        let content = self.content
        let identifier = id(content)
        guard EventValidation.isValidIdentifier(identifier) else {
            throw .invalidField("id", "`id` must be 1 to 100 letters, digits, `-`, `_` or `.`, found \(identifier).")
        }
        return Event(id: identifier, streamIds: [stream], time: time, duration: duration, type: "position/wgs84",
                     content: content, clientData: clientData, created: now, createdBy: accessId, modified: now, modifiedBy: accessId)
    }

    /// `<prefix>-<name>-<time>-<8 hexadecimal digits of the content's SHA-256>` (without the
    /// name when `nil`, without the digits when `content` is): the same fix at the same time gets
    /// the same identifier, however often it is imported; two fixes of one second different
    /// ones. `name` is reduced to identifier characters and 60 of them.
    static func identifier(prefix: String, name: String?, time: Double, content: JSONValue?) -> String {
        var text = prefix + "-"
        if let name {
            text += String(name.unicodeScalars.map { scalar -> Character in
                let ok = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "-" || scalar == "_" || scalar == "."
                return ok ? Character(scalar) : "-"
            }.prefix(60))
            text += "-"
        }
        JSONWriter.appendNumber(time, to: &text)
        guard let content else { return text }
        let digest = SHA256.hash(data: JSONWriter().bytes(from: content))
        text += "-"
        for byte in digest.prefix(4) {
            let hex = String(byte, radix: 16)
            if hex.count == 1 { text += "0" }
            text += hex
        }
        return text
    }
}
