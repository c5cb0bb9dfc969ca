import Foundation

/// Bluenet's training-data JSON (its `TrainingHelper.finishCollectingTrainingData()` result):
/// one entry per advertisement round, the RSSI of each beacon under its id string
/// `UUID_Maj:major_Min:minor` (upper-case UUID), and the time in seconds since 1970:
///
/// ```json
/// [{"devices": {"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0_Maj:1_Min:23": -67}, "timestamp": 1485350000.123}]
/// ```
///
/// The JSON carries no place: Bluenet apps store each string under its location id. A set of
/// several places is therefore an object from location id to such an array (FORMATS.md §7).
/// A beacon without an iBeacon identity is written under its venue id.
public enum BluenetTrainingData {
    /// The Bluenet id string of a reading's beacon: from its iBeacon identity (its own or the
    /// venue's), else its venue id or its own name.
    public static func idString(for reference: BeaconReference, venue: Venue?) -> String {
        if case .iBeacon(let identity) = reference { return identity.description }
        let (key, identity) = PlaceBeacons.key(for: reference, venue: venue)
        return identity?.description ?? key
    }

    /// The entries of some scans, as a JSON array (readings with RSSI 0 or above are dropped, as
    /// Bluenet did; a beacon heard twice in one scan is one key with the mean RSSI).
    public static func encode(_ scans: [Scan], venue: Venue? = nil) -> JSONValue {
        .array(scans.map { scan in
            // One key per beacon: a beacon heard more than once in the scan gives its mean RSSI.
            var order: [String] = [], sums: [String: (total: Double, count: Double)] = [:]
            for reading in scan.readings where reading.isValid {
                let id = idString(for: reading.beacon, venue: venue)
                if let sum = sums[id] {
                    sums[id] = (sum.total + reading.rssi, sum.count + 1)
                } else {
                    order.append(id)
                    sums[id] = (reading.rssi, 1)
                }
            }
            let devices = order.map { id in (key: id, value: JSONValue.number(sums[id].map { $0.total / $0.count } ?? 0)) }
            return .object([("devices", .object(devices)), ("timestamp", .number(scan.time))])
        })
    }

    /// The training data of several places: an object from place id to that place's entries,
    /// places in order of first appearance. Scans without `truth.place` are left out.
    public static func encodeByPlace(_ scans: [Scan], venue: Venue? = nil) -> JSONValue {
        var order: [String] = [], groups: [String: [Scan]] = [:]
        for scan in scans {
            guard let place = scan.truth?.place else { continue }
            if groups[place] == nil { order.append(place) }
            groups[place, default: []].append(scan)
        }
        return .object(order.map { ($0, encode(groups[$0] ?? [], venue: venue)) })
    }

    /// Scans from training data: an array (whose scans all get `place`, when given) or an
    /// object from place id to arrays. Beacons are named by the venue's id when the venue knows
    /// the id string's iBeacon identity, else by the iBeacon identity, else by the key as an id.
    /// The floor of a place the venue knows goes into `truth.floor`.
    public static func decode(_ value: JSONValue, place: String? = nil, venue: Venue? = nil) throws(FormatError) -> [Scan] {
        let root = JSONReader(value)
        switch value {
        case .array:
            return try entries(root, place: place, venue: venue)
        case .object(let members):
            var scans: [Scan] = []
            for (key, _) in members {
                guard let child = root.member(key) else { continue }
                scans += try entries(child, place: key, venue: venue)
            }
            return scans
        default:
            throw root.fail("expected an array of entries or an object from place id to arrays, found \(value.kindDescription)")
        }
    }

    /// Parses training data from JSON bytes; `file` names the source in errors.
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes, file: String? = nil, place: String? = nil,
                                                        venue: Venue? = nil) throws(FormatError) -> [Scan] {
        try JSONDocument.decode(bytes, file: file) { (root: JSONReader) throws(FormatError) -> [Scan] in
            try decode(root.value, place: place, venue: venue)
        }
    }

    private static func entries(_ reader: JSONReader, place: String?, venue: Venue?) throws(FormatError) -> [Scan] {
        let floor = place.flatMap { id in venue?.places.first { $0.id == id }?.floor }
        let truth = place.map { GroundTruth(floor: floor, place: $0) }
        var scans: [Scan] = []
        for entry in try reader.elements() {
            let time = try entry.required("timestamp").double()
            var readings: [Reading] = []
            let devices = try entry.required("devices")
            for (key, _) in try devices.members() {
                guard let item = devices.member(key) else { continue }
                let rssi = try item.double()
                var reference = BeaconReference.id(key)
                if let identity = IBeaconIdentity(bluenetIDString: key) {
                    reference = .iBeacon(identity)
                    if let venue, let index = venue.beaconIndex(for: reference) { reference = .id(venue.beacons[index].id) }
                }
                readings.append(Reading(beacon: reference, rssi: rssi))
            }
            scans.append(Scan(time: time, readings: readings, truth: truth))
        }
        return scans
    }
}
