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
        guard let (position, deviceName) = try position(from: message, device: device) else { return nil }
        let content = position.content
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(identifier(device: deviceName, timestamp: position.time, fix: content))),
            ("streamIds", .array([.string("position")])),
            ("time", .number(position.time)),
            ("type", .string("position/wgs84")),
            ("content", content),
        ]
        if let clientData = position.clientData { members.append(("clientData", clientData)) }
        return .object(members)
    }

    /// The position of a location message and the device it is of (`device`, else its `tid`,
    /// else `phone`), or `nil` for other message types.
    static func position(from message: JSONValue, device: String?) throws(APIError) -> (ImportedPosition, device: String)? {
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
        var position = ImportedPosition(latitude: lat, longitude: lon, time: tst)
        position.altitude = try number("alt")
        position.horizontalAccuracy = try number("acc")
        position.verticalAccuracy = try number("vac")
        if let vel = try number("vel"), vel >= 0 { position.speed = vel / 3.6 }
        if let cog = try number("cog"), (0...360).contains(cog) { position.bearing = cog }
        var tid: String?
        if case .string(let value)? = message["tid"] { tid = value }
        let deviceName = device ?? tid ?? "phone"
        var owntracks: [(key: String, value: JSONValue)] = [("device", .string(deviceName))]
        if let tid { owntracks.append(("tid", .string(tid))) }
        if let batt = try number("batt") { owntracks.append(("batt", .number(batt))) }
        if case .string(let conn)? = message["conn"] { owntracks.append(("conn", .string(conn))) }
        position.clientData = .object([("owntracks", .object(owntracks))])
        return (position, deviceName)
    }

    /// The event identifier for a device's message at `timestamp`: `ot-<device>-<tst>` with the
    /// device name reduced to identifier characters, and, given the `fix` (the event's content),
    /// `-` and 8 hexadecimal digits of its SHA-256: the same message gets the same identifier,
    /// two fixes of the same second different ones.
    public static func identifier(device: String, timestamp: Double, fix: JSONValue? = nil) -> String {
        ImportedPosition.identifier(prefix: "ot", name: device, time: timestamp, content: fix)
    }
}

