import Crypto
import Whereabouts

/// OwnTracks' HTTP mode (`POST /pub`): a `_type: location` message becomes a `position/wgs84`
/// event in the user's `position` stream.
///
/// Mapping: `lat`/`lon` → latitude/longitude, `alt` → altitude (m), `acc` → horizontalAccuracy
/// (m), `vac` → verticalAccuracy (m), `vel` (km/h) → speed (m/s), `cog` → bearing (degrees),
/// `tst` → time. The device (`X-Limit-D` or `?d=`, else `tid`), `tid`, `batt` and `conn` are
/// kept in the event's `clientData.owntracks`. The event id is derived from the device, `tst`
/// and the fix itself, so a message the app sends again (it retries until it gets a 200) is
/// stored once, while two different fixes of one second are both stored.
public enum OwnTracksMessage {
    /// The event for a location message, or `nil` for other message types (transitions,
    /// waypoints, cards…), which are accepted and ignored.
    public static func event(from message: JSONValue, device: String?, now: Double, accessId: String) throws(APIError) -> JSONValue? {
        guard case .object = message else {
            throw APIError(.invalidRequestStructure, "An OwnTracks message must be a JSON object, found \(message.kindDescription).")
        }
        guard case .string(let type)? = message["_type"] else {
            throw APIError(.invalidParameters, "An OwnTracks message needs `_type` (e.g. \"location\").")
        }
        guard type == "location" else { return nil }
        func number(_ key: String) throws(APIError) -> Double? {
            switch message[key] {
            case nil, .null?: return nil
            case .number(let n)?: return n
            default: throw APIError(.invalidParameters, "OwnTracks field `\(key)` must be a number.")
            }
        }
        guard let lat = try number("lat"), let lon = try number("lon") else {
            throw APIError(.invalidParameters, "An OwnTracks location needs `lat` and `lon`.")
        }
        guard let tst = try number("tst") else {
            throw APIError(.invalidParameters, "An OwnTracks location needs `tst` (seconds since 1970).")
        }
        var content: [(key: String, value: JSONValue)] = [("latitude", .number(lat)), ("longitude", .number(lon))]
        if let alt = try number("alt") { content.append(("altitude", .number(alt))) }
        if let acc = try number("acc") { content.append(("horizontalAccuracy", .number(acc))) }
        if let vac = try number("vac") { content.append(("verticalAccuracy", .number(vac))) }
        if let vel = try number("vel"), vel >= 0 { content.append(("speed", .number(vel / 3.6))) }
        if let cog = try number("cog"), (0...360).contains(cog) { content.append(("bearing", .number(cog))) }
        var tid: String?
        if case .string(let value)? = message["tid"] { tid = value }
        let deviceName = device ?? tid ?? "phone"
        var owntracks: [(key: String, value: JSONValue)] = [("device", .string(deviceName))]
        if let tid { owntracks.append(("tid", .string(tid))) }
        if let batt = try number("batt") { owntracks.append(("batt", .number(batt))) }
        if case .string(let conn)? = message["conn"] { owntracks.append(("conn", .string(conn))) }
        return .object([
            ("id", .string(identifier(device: deviceName, timestamp: tst, fix: .object(content)))),
            ("streamIds", .array([.string("position")])),
            ("time", .number(tst)),
            ("type", .string("position/wgs84")),
            ("content", .object(content)),
            ("clientData", .object([("owntracks", .object(owntracks))])),
        ])
    }

    /// The event identifier for a device's message at `timestamp`: `ot-<device>-<tst>` with the
    /// device name reduced to identifier characters, and, given the `fix` (the event's content),
    /// `-` and 8 hexadecimal digits of its SHA-256: the same message gets the same identifier,
    /// two fixes of the same second different ones.
    public static func identifier(device: String, timestamp: Double, fix: JSONValue? = nil) -> String {
        let cleaned = String(device.unicodeScalars.map { scalar -> Character in
            let ok = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "-" || scalar == "_" || scalar == "."
            return ok ? Character(scalar) : "-"
        }.prefix(60))
        var stamp = ""
        JSONWriter.appendNumber(timestamp, to: &stamp)
        guard let fix else { return "ot-\(cleaned)-\(stamp)" }
        let digest = SHA256.hash(data: JSONWriter().bytes(from: fix))
        return "ot-\(cleaned)-\(stamp)-" + digest.prefix(4).map { String($0, radix: 16).leftPadded() }.joined()
    }
}

extension String {
    /// Two hexadecimal digits.
    fileprivate func leftPadded() -> String { count == 1 ? "0" + self : self }
}
