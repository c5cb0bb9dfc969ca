import Foundation

/// Converts between ``Scan`` and its JSON Lines form (FORMATS.md §2).
///
/// ```swift
/// let line = ScanCoding.line(for: scan)   // {"t":12.5,"device":"A5","readings":[{"beacon":"23","rssi":-67}]}
/// let decoded = try ScanCoding.decode(JSONParser.parse(line))
/// ```
public enum ScanCoding {
    /// A scan decoded from JSON, with the readings it had to skip.
    public struct Decoded: Sendable {
        /// The scan, without the skipped readings.
        public var scan: Scan
        /// How many readings had an RSSI of 0 dBm or more (invalid by FORMATS.md) and were left out.
        public var skippedReadings: Int
        /// The key paths of the members the format does not know (ignored), such as `src` or
        /// `readings[2].txpower`.
        public var unknownKeys: [String] = []
    }

    /// The keys the format knows at a key pattern (`""` for the scan, `truth`, `readings[]`):
    /// what an unknown key is compared with for "did you mean".
    public static func knownKeys(at pattern: String) -> [String] {
        switch pattern {
        case "": ["t", "device", "track", "readings", "truth", "arrival"]
        case "truth": ["x", "y", "z", "floor", "place"]
        case "readings[]": ["beacon", "rssi", "txPower", "distance", "uuid", "major", "minor", "namespace", "instance"]
        default: []
        }
    }

    /// Decodes one scan. Unknown keys are ignored (and listed in ``Decoded/unknownKeys``); a
    /// missing required key or a wrong type is a ``FormatError`` naming the key (the caller adds
    /// the file and line).
    public static func decode(_ value: JSONValue) throws(FormatError) -> Decoded {
        if let decoded = quickDecode(value) { return decoded }
        return try checkedDecode(value)
    }

    /// Decodes the common well-formed case without building key paths; `nil` sends the value to
    /// ``checkedDecode(_:)``, which finds and names the problem (or decodes the rarer forms).
    static func quickDecode(_ value: JSONValue) -> Decoded? {
        guard case .object(let members) = value else { return nil }
        var time: Double?, device: String?, track: String?, truth: GroundTruth?, arrival: Double?
        var readingValues: [JSONValue]?
        var unknownKeys: [String] = []
        for member in members {
            switch member.key {
            case "t":
                guard case .number(let t) = member.value else { return nil }
                time = t
            case "device":
                guard case .string(let d) = member.value else { return nil }
                device = d
            case "track":
                guard case .string(let t) = member.value else { return nil }
                track = t
            case "readings":
                guard case .array(let items) = member.value else { return nil }
                readingValues = items
            case "truth":
                guard let t = quickTruth(member.value, unknownKeys: &unknownKeys) else { return nil }
                truth = t
            case "arrival":
                guard case .number(let a) = member.value else { return nil }
                arrival = a
            default:
                unknownKeys.append(member.key)
            }
        }
        guard let time, let readingValues else { return nil }
        var scan = Scan(time: time, device: device, track: track, readings: [], truth: truth)
        scan.arrival = arrival
        scan.readings.reserveCapacity(readingValues.count)
        var skipped = 0
        for item in readingValues {
            guard case .object(let fields) = item else { return nil }
            var id: String?, rssi: Double?
            for field in fields {
                switch field.key {
                case "beacon":
                    guard case .string(let b) = field.value else { return nil }
                    id = b
                case "rssi":
                    guard case .number(let r) = field.value else { return nil }
                    rssi = r
                default:
                    return nil   // txPower, uuid, … take the checked path
                }
            }
            guard let id, let rssi else { return nil }
            let reading = Reading(beacon: .id(id), rssi: rssi)
            if reading.isValid { scan.readings.append(reading) } else { skipped += 1 }
        }
        return Decoded(scan: scan, skippedReadings: skipped, unknownKeys: unknownKeys)
    }

    private static func quickTruth(_ value: JSONValue, unknownKeys: inout [String]) -> GroundTruth? {
        guard case .object(let fields) = value else { return nil }
        var truth = GroundTruth()
        for field in fields {
            switch (field.key, field.value) {
            case ("x", .number(let n)): truth.x = n
            case ("y", .number(let n)): truth.y = n
            case ("z", .number(let n)): truth.z = n
            case ("floor", .number(let n)):
                guard n == n.rounded(), abs(n) < 1e15 else { return nil }
                truth.floor = Int(n)
            case ("place", .string(let p)): truth.place = p
            case ("x", _), ("y", _), ("z", _), ("floor", _), ("place", _): return nil
            default: unknownKeys.append("truth." + field.key)
            }
        }
        guard (truth.x == nil) == (truth.y == nil) else { return nil }
        return truth
    }

    /// Decodes any scan the format allows, naming the key of the first problem.
    static func checkedDecode(_ value: JSONValue) throws(FormatError) -> Decoded {
        let ledger = KeyLedger()
        let root = JSONReader(value, ledger: ledger)
        _ = try root.object()
        let time = try root.required("t").double()
        var scan = Scan(time: time, readings: [])
        scan.device = try root.optionalString("device")
        scan.track = try root.optionalString("track")
        scan.arrival = try root.optionalDouble("arrival")
        var skipped = 0
        let readings = try root.required("readings").elements()
        scan.readings.reserveCapacity(readings.count)
        for item in readings {
            let reference = try beaconReference(item)
            let rssi = try item.required("rssi").double()
            let txPower = try item.optionalDouble("txPower")
            let distance = try item.optionalDouble("distance")
            let reading = Reading(beacon: reference, rssi: rssi, txPower: txPower, distance: distance)
            if reading.isValid { scan.readings.append(reading) } else { skipped += 1 }
        }
        if let truth = root.member("truth") {
            _ = try truth.object()
            scan.truth = GroundTruth(x: try truth.optionalDouble("x"), y: try truth.optionalDouble("y"),
                                     z: try truth.optionalDouble("z"), floor: try truth.optionalInt("floor"),
                                     place: try truth.optionalString("place"))
            if (scan.truth?.x == nil) != (scan.truth?.y == nil) {
                throw truth.fail("\"x\" and \"y\" must be given together")
            }
        }
        return Decoded(scan: scan, skippedReadings: skipped, unknownKeys: ledger.unknownKeys(in: value).map(\.key))
    }

    static func beaconReference(_ item: JSONReader) throws(FormatError) -> BeaconReference {
        _ = try item.object()
        if let id = item.member("beacon") { return .id(try id.string()) }
        if let identity = try IBeaconIdentity.decode(item) { return .iBeacon(identity) }
        if let identity = try EddystoneIdentity.decode(item) { return .eddystone(identity) }
        throw item.fail("a reading names its beacon by \"beacon\", by \"uuid\"+\"major\"+\"minor\" or by \"namespace\"+\"instance\"")
    }

    /// The JSON value of a scan, keys in the order FORMATS.md shows them.
    public static func encode(_ scan: Scan) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("t", .number(scan.time))]
        if let device = scan.device { members.append(("device", .string(device))) }
        if let track = scan.track { members.append(("track", .string(track))) }
        members.append(("readings", .array(scan.readings.map(encode))))
        if let truth = scan.truth {
            var t: [(key: String, value: JSONValue)] = []
            if let x = truth.x { t.append(("x", .number(x))) }
            if let y = truth.y { t.append(("y", .number(y))) }
            if let z = truth.z { t.append(("z", .number(z))) }
            if let floor = truth.floor { t.append(("floor", .number(Double(floor)))) }
            if let place = truth.place { t.append(("place", .string(place))) }
            members.append(("truth", .object(t)))
        }
        if let arrival = scan.arrival { members.append(("arrival", .number(arrival))) }
        return .object(members)
    }

    /// The JSON value of a reading.
    public static func encode(_ reading: Reading) -> JSONValue {
        var members: [(key: String, value: JSONValue)]
        switch reading.beacon {
        case .id(let id):
            members = [("beacon", .string(id))]
        case .iBeacon(let identity):
            members = [("uuid", .string(identity.uuid.uuidString)), ("major", .number(Double(identity.major))),
                       ("minor", .number(Double(identity.minor)))]
        case .eddystone(let identity):
            members = [("namespace", .string(identity.namespace)), ("instance", .string(identity.instance))]
        }
        members.append(("rssi", .number(reading.rssi)))
        if let txPower = reading.txPower { members.append(("txPower", .number(txPower))) }
        if let distance = reading.distance { members.append(("distance", .number(distance))) }
        return .object(members)
    }

    /// One line of JSON (no newline) for a scan.
    public static func line(for scan: Scan) -> String {
        JSONWriter().string(from: encode(scan))
    }
}
