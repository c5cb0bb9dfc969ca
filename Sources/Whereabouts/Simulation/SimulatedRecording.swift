/// Writes simulated scans as recording lines (FORMATS.md §2), for the bundled example recording.
///
/// A stopgap until the package's recording writer lands: it writes the keys in the order
/// FORMATS.md shows them (`t`, `device`, `track`, `readings`, `truth`) and leaves out what a scan
/// does not have.
enum SimulatedRecording {
    /// The JSON value of one scan.
    static func encode(_ scan: Scan) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("t", .number(scan.time))]
        if let device = scan.device { members.append(("device", .string(device))) }
        if let track = scan.track { members.append(("track", .string(track))) }
        members.append(("readings", .array(scan.readings.map { reading in
            var fields: [(key: String, value: JSONValue)]
            switch reading.beacon {
            case .id(let id):
                fields = [("beacon", .string(id))]
            case .iBeacon(let identity):
                fields = [("uuid", .string(identity.uuid.uuidString)), ("major", .number(Double(identity.major))),
                          ("minor", .number(Double(identity.minor)))]
            case .eddystone(let identity):
                fields = [("namespace", .string(identity.namespace)), ("instance", .string(identity.instance))]
            }
            fields.append(("rssi", .number(reading.rssi)))
            if let txPower = reading.txPower { fields.append(("txPower", .number(txPower))) }
            return .object(fields)
        })))
        if let truth = scan.truth {
            var fields: [(key: String, value: JSONValue)] = []
            if let x = truth.x { fields.append(("x", .number(x))) }
            if let y = truth.y { fields.append(("y", .number(y))) }
            if let z = truth.z { fields.append(("z", .number(z))) }
            if let floor = truth.floor { fields.append(("floor", .number(Double(floor)))) }
            if let place = truth.place { fields.append(("place", .string(place))) }
            members.append(("truth", .object(fields)))
        }
        return .object(members)
    }

    /// One line of JSON Lines for a scan, without the newline.
    static func line(_ scan: Scan) -> String {
        JSONWriter().string(from: encode(scan))
    }

    /// The whole recording text of a sequence of scans, one line each, each ending in a newline.
    static func text<Scans: Sequence<Scan>>(_ scans: Scans) -> String {
        var out = ""
        for scan in scans {
            out += line(scan)
            out += "\n"
        }
        return out
    }
}
