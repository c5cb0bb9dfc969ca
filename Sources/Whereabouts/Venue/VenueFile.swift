import Foundation

/// Reads and writes `venue.json` (FORMATS.md §1), validating as it reads.
///
/// Every problem is a ``FormatError`` that names the file and the key:
/// `venue.json: beacons[2].id: duplicate beacon id "24" (also beacons[1])`.
///
/// ```swift
/// let venue = try VenueFile.read(from: URL(fileURLWithPath: "Examples/venue.json"))
/// try VenueFile.write(venue, to: URL(fileURLWithPath: "copy.json"))
/// ```
public enum VenueFile {
    /// Reads and validates a venue file.
    public static func read(from url: URL) throws(FormatError) -> Venue {
        try decode(JSONDocument.contents(of: url), file: url.path)
    }

    /// Reads a venue file as ``read(from:)`` does, adding the keys its format does not know (which
    /// are ignored) to `unknownKeys`, each with its line and column and the known key it most
    /// likely meant: a misspelt optional key is otherwise dropped without a word.
    public static func read(from url: URL, unknownKeys: inout [UnknownKey]) throws(FormatError) -> Venue {
        try JSONDocument.decode(JSONDocument.contents(of: url), file: url.path, unknownKeys: &unknownKeys, with: decode(root:))
    }

    /// Parses and validates a venue from JSON bytes; `file` names the source in errors.
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes, file: String? = nil) throws(FormatError) -> Venue {
        try JSONDocument.decode(bytes, file: file, with: decode(root:))
    }

    /// Builds and validates a venue from a parsed JSON value.
    public static func decode(_ value: JSONValue) throws(FormatError) -> Venue {
        try decode(root: JSONReader(value))
    }

    static func decode(root: JSONReader) throws(FormatError) -> Venue {
        _ = try root.object()
        var venue = Venue()
        venue.name = try root.optionalString("name")
        if let units = root.member("units") {
            let text = try units.string()
            guard let unit = Venue.LengthUnit(rawValue: text) else {
                throw units.fail("unknown unit \"\(text)\" (expected \"m\", \"ft\" or \"cell\")")
            }
            venue.units = unit
        }
        if let origin = root.member("origin") {
            let latitude = try origin.required("latitude").double()
            let longitude = try origin.required("longitude").double()
            guard GeoCoordinate(latitude: latitude, longitude: longitude).isValid else {
                throw origin.fail("latitude must lie in -90...90 and longitude in -180...180")
            }
            guard venue.units != .cell else {
                throw origin.fail("a venue measured in grid cells cannot be anchored to latitude/longitude")
            }
            venue.origin = Venue.Origin(latitude: latitude, longitude: longitude, bearing: try origin.optionalDouble("bearing") ?? 0)
        }
        if let floors = root.member("floors") {
            var seen: [Int: String] = [:]
            for floor in try floors.elements() {
                let level = try floor.required("level").int()
                if let previous = seen[level] {
                    throw floor.fail("duplicate floor level \(level) (also \(previous))")
                }
                seen[level] = floor.path
                venue.floors.append(Venue.Floor(level: level, name: try floor.optionalString("name"),
                                                elevation: try floor.optionalDouble("elevation")))
            }
        }
        if let defaults = root.member("defaults") {
            _ = try defaults.object()
            venue.defaults.txPower = try defaults.optionalDouble("txPower") ?? venue.defaults.txPower
            venue.defaults.pathLossExponent = try defaults.optionalDouble("pathLossExponent") ?? venue.defaults.pathLossExponent
            venue.defaults.z = try defaults.optionalDouble("z") ?? venue.defaults.z
        }
        let frame = venue.localFrame
        let levels = Set(venue.floors.map(\.level))
        func checkFloor(_ reader: JSONReader) throws(FormatError) -> Int? {
            guard let floor = reader.member("floor") else { return nil }
            let level = try floor.int()
            if venue.floors.isEmpty ? level != 0 : !levels.contains(level) {
                throw floor.fail(venue.floors.isEmpty
                    ? "floor \(level) is not defined: the venue has no \"floors\", so only level 0 exists"
                    : "floor \(level) is not defined in \"floors\" (levels: \(levels.sorted().map(String.init).joined(separator: ", ")))")
            }
            return level
        }
        func location(_ reader: JSONReader) throws(FormatError) -> (PlanarPoint?, GeoCoordinate?) {
            let latitude = try reader.optionalDouble("latitude"), longitude = try reader.optionalDouble("longitude")
            let x = try reader.optionalDouble("x"), y = try reader.optionalDouble("y")
            if latitude != nil || longitude != nil {
                guard let latitude, let longitude else {
                    throw reader.fail("\"latitude\" and \"longitude\" must be given together")
                }
                guard x == nil, y == nil else { throw reader.fail("give either x/y or latitude/longitude, not both") }
                guard let frame else {
                    throw FormatError(key: reader.childPath("latitude"),
                                      message: "latitude/longitude need the venue's \"origin\" (or give x/y instead)")
                }
                let coordinate = GeoCoordinate(latitude: latitude, longitude: longitude)
                guard coordinate.isValid else { throw reader.fail("latitude must lie in -90...90 and longitude in -180...180") }
                return (frame.planarPoint(for: coordinate), coordinate)
            }
            if x != nil || y != nil {
                guard let x, let y else { throw reader.fail("\"x\" and \"y\" must be given together") }
                return (PlanarPoint(x: x, y: y), nil)
            }
            return (nil, nil)
        }

        var beaconIDs: [String: String] = [:]
        var beaconIdentities = UniqueIdentities()
        for item in try root.required("beacons").elements() {
            let idReader = try item.required("id")
            let id = try idReader.string()
            if let previous = beaconIDs[id] { throw idReader.fail("duplicate beacon id \"\(id)\" (also \(previous))") }
            beaconIDs[id] = item.path
            var beacon = Venue.Beacon(id: id)
            (beacon.iBeacon, beacon.eddystone) = try beaconIdentities.decode(item)
            let (point, coordinate) = try location(item)
            beacon.x = point?.x
            beacon.y = point?.y
            beacon.coordinate = coordinate
            beacon.z = try item.optionalDouble("z")
            beacon.floor = try checkFloor(item)
            beacon.txPower = try item.optionalDouble("txPower")
            beacon.pathLossExponent = try item.optionalDouble("pathLossExponent")
            if let n = beacon.pathLossExponent, !(n > 0) {
                throw FormatError(key: item.childPath("pathLossExponent"), message: "must be positive")
            }
            venue.beacons.append(beacon)
        }

        if let places = root.member("places") {
            for item in try places.elements() {
                let id = try item.required("id").string()
                let floor = try checkFloor(item) ?? 0
                var shape = Venue.Place.Shape.label
                if let polygon = item.member("polygon") {
                    var vertices: [PlanarPoint] = []
                    for vertex in try polygon.elements() {
                        let pair = try vertex.elements()
                        guard pair.count == 2 else { throw vertex.fail("a vertex is [x, y], found \(pair.count) numbers") }
                        vertices.append(PlanarPoint(x: try pair[0].double(), y: try pair[1].double()))
                    }
                    guard vertices.count >= 3 else {
                        throw polygon.fail("a polygon needs at least 3 vertices, found \(vertices.count)")
                    }
                    guard item.member("radius") == nil else { throw item.fail("give either a polygon or a radius, not both") }
                    shape = .polygon(vertices)
                } else if let radiusReader = item.member("radius") {
                    let radius = try radiusReader.double()
                    guard radius > 0 else { throw radiusReader.fail("radius must be positive, found \(radius)") }
                    let (point, coordinate) = try location(item)
                    guard let point else { throw radiusReader.fail("a radius needs a centre: x/y or latitude/longitude") }
                    shape = .circle(center: point, radius: radius, coordinate: coordinate)
                } else {
                    let (point, _) = try location(item)
                    guard point == nil else { throw item.fail("a place with a centre needs a \"radius\"") }
                }
                venue.places.append(Venue.Place(id: id, floor: floor, shape: shape))
            }
        }
        if let devices = root.member("devices") {
            var seen: [String: String] = [:]
            let items = try devices.elements()
            guard items.count <= maximumDevices else {
                throw devices.fail("at most \(maximumDevices) devices, found \(items.count)")
            }
            for item in items {
                let idReader = try item.required("id")
                let id = try idReader.string()
                if let previous = seen[id] { throw idReader.fail("duplicate device id \"\(id)\" (also \(previous))") }
                seen[id] = item.path
                let offsetReader = try item.required("rssiOffset")
                let offset = try offsetReader.double()
                guard abs(offset) <= maximumDeviceOffset else {
                    throw offsetReader.fail("an RSSI offset lies within ±\(Int(maximumDeviceOffset)) dB, found \(offset)")
                }
                venue.devices.append(Venue.Device(id: id, rssiOffset: offset))
            }
        }
        if let receivers = root.member("receivers") {
            let items = try receivers.elements()
            guard items.count <= maximumReceivers else {
                throw receivers.fail("at most \(maximumReceivers) receivers, found \(items.count)")
            }
            var seen: [String: String] = [:]
            for item in items {
                let idReader = try item.required("id")
                let id = try idReader.string()
                if let previous = seen[id] { throw idReader.fail("duplicate receiver id \"\(id)\" (also \(previous))") }
                if let beacon = beaconIDs[id] {
                    throw idReader.fail("receiver id \"\(id)\" is also a beacon's (\(beacon)): a receiver's scans name it, so it must be unique")
                }
                seen[id] = item.path
                let (point, coordinate) = try location(item)
                var receiver = Venue.Receiver(id: id, x: point?.x, y: point?.y, z: try item.optionalDouble("z"),
                                              coordinate: coordinate, floor: try checkFloor(item))
                if let offsetReader = item.member("rssiOffset") {
                    let offset = try offsetReader.double()
                    guard abs(offset) <= maximumDeviceOffset else {
                        throw offsetReader.fail("an RSSI offset lies within ±\(Int(maximumDeviceOffset)) dB, found \(offset)")
                    }
                    receiver.rssiOffset = offset
                }
                receiver.pathLossExponent = try item.optionalDouble("pathLossExponent")
                if let n = receiver.pathLossExponent, !(n > 0) {
                    throw FormatError(key: item.childPath("pathLossExponent"), message: "must be positive")
                }
                venue.receivers.append(receiver)
            }
        }
        if let tags = root.member("tags") {
            venue.tags = try decodeTags(tags, keysAllowed: false)
        }
        return venue
    }

    /// The tags of a `tags` array: the venue's (`keysAllowed` false: an identity resolving key
    /// there is refused, since the venue is served to every map page) or a tags file's.
    static func decodeTags(_ tags: JSONReader, keysAllowed: Bool) throws(FormatError) -> [Venue.Tag] {
        let items = try tags.elements()
        guard items.count <= maximumTags else {
            throw tags.fail("at most \(maximumTags) tags, found \(items.count)")
        }
        var seen: [String: String] = [:]
        var keys: [[UInt8]: String] = [:]
        var tagIdentities = UniqueIdentities()
        var decoded: [Venue.Tag] = []
        for item in items {
            let idReader = try item.required("id")
            let id = try idReader.string()
            guard !id.isEmpty, id.utf8.count <= 256 else { throw idReader.fail("a tag id is 1 to 256 bytes") }
            if let previous = seen[id] { throw idReader.fail("duplicate tag id \"\(id)\" (also \(previous))") }
            seen[id] = item.path
            var tag = Venue.Tag(id: id)
            (tag.iBeacon, tag.eddystone) = try tagIdentities.decode(item)
            if let keyReader = item.member("irk") {
                guard keysAllowed else {
                    throw keyReader.fail("an identity resolving key belongs in a tags file (--tags), not in the venue, "
                                         + "which the server shows every map page")
                }
                let text = try keyReader.string()
                guard let key = TagsFile.identityResolvingKey(hex: text) else {
                    throw keyReader.fail("an identity resolving key is 32 hexadecimal digits (16 bytes, most significant first)")
                }
                if let previous = keys[key] { throw keyReader.fail("duplicate identity resolving key (also \(previous))") }
                keys[key] = item.path
                tag.identityResolvingKey = key
            }
            // A tags file may name a tag by the id the reports already give it (an ESPresense
            // alias): it is then published by name; the venue's tags name identities.
            guard keysAllowed || tag.iBeacon != nil || tag.eddystone != nil else {
                throw item.fail("a tag needs the identity it advertises: uuid/major/minor or namespace/instance "
                                + "(a tag the reports name by its id goes in a tags file, --tags)")
            }
            decoded.append(tag)
        }
        return decoded
    }

    /// The advertised identities of one list (the beacons, the tags), each allowed once.
    private struct UniqueIdentities {
        private var iBeacons: [IBeaconIdentity: String] = [:]
        private var eddystones: [EddystoneIdentity: String] = [:]

        /// The identities `item` gives, or an error naming the item that gave one of them first.
        mutating func decode(_ item: JSONReader) throws(FormatError) -> (IBeaconIdentity?, EddystoneIdentity?) {
            let iBeacon = try IBeaconIdentity.decode(item)
            if let iBeacon {
                if let previous = iBeacons[iBeacon] {
                    throw FormatError(key: item.childPath("uuid"), message: "duplicate uuid/major/minor \(iBeacon) (also \(previous))")
                }
                iBeacons[iBeacon] = item.path
            }
            let eddystone = try EddystoneIdentity.decode(item)
            if let eddystone {
                if let previous = eddystones[eddystone] {
                    throw FormatError(key: item.childPath("namespace"), message: "duplicate namespace/instance \(eddystone) (also \(previous))")
                }
                eddystones[eddystone] = item.path
            }
            return (iBeacon, eddystone)
        }
    }

    /// The most receivers a venue lists.
    static let maximumReceivers = 10_000
    /// The most tags a venue names.
    static let maximumTags = 100_000
    /// The most devices a venue lists.
    static let maximumDevices = 10_000
    /// The largest RSSI offset a device may have, either way, dB.
    static let maximumDeviceOffset = 40.0

    // MARK: Writing

    /// The JSON value of a venue, keys in the order FORMATS.md shows them.
    public static func encode(_ venue: Venue) -> JSONValue {
        var root: [(key: String, value: JSONValue)] = []
        if let name = venue.name { root.append(("name", .string(name))) }
        if venue.units != .metre { root.append(("units", .string(venue.units.rawValue))) }
        if let origin = venue.origin {
            root.append(("origin", .object([("latitude", .number(origin.latitude)), ("longitude", .number(origin.longitude)),
                                             ("bearing", .number(origin.bearing))])))
        }
        if !venue.floors.isEmpty {
            root.append(("floors", .array(venue.floors.map { floor in
                var members: [(key: String, value: JSONValue)] = [("level", .number(Double(floor.level)))]
                if let name = floor.name { members.append(("name", .string(name))) }
                if let elevation = floor.elevation { members.append(("elevation", .number(elevation))) }
                return .object(members)
            })))
        }
        if venue.defaults != Venue.Defaults() {
            root.append(("defaults", .object([("txPower", .number(venue.defaults.txPower)),
                                               ("pathLossExponent", .number(venue.defaults.pathLossExponent)),
                                               ("z", .number(venue.defaults.z))])))
        }
        root.append(("beacons", .array(venue.beacons.map { beacon in
            var members: [(key: String, value: JSONValue)] = [("id", .string(beacon.id))]
            members += identityMembers(iBeacon: beacon.iBeacon, eddystone: beacon.eddystone)
            members += placementMembers(coordinate: beacon.coordinate, x: beacon.x, y: beacon.y, z: beacon.z, floor: beacon.floor)
            if let txPower = beacon.txPower { members.append(("txPower", .number(txPower))) }
            if let n = beacon.pathLossExponent { members.append(("pathLossExponent", .number(n))) }
            return .object(members)
        })))
        if !venue.places.isEmpty {
            root.append(("places", .array(venue.places.map { place in
                var members: [(key: String, value: JSONValue)] = [("id", .string(place.id))]
                switch place.shape {
                case .label: break
                case .circle(let center, let radius, let coordinate):
                    if let coordinate {
                        members += [("latitude", .number(coordinate.latitude)), ("longitude", .number(coordinate.longitude))]
                    } else {
                        members += [("x", .number(center.x)), ("y", .number(center.y))]
                    }
                    members.append(("radius", .number(radius)))
                case .polygon(let vertices):
                    members.append(("polygon", .array(vertices.map { .array([.number($0.x), .number($0.y)]) })))
                }
                members.append(("floor", .number(Double(place.floor))))
                return .object(members)
            })))
        }
        if !venue.devices.isEmpty {
            root.append(("devices", .array(venue.devices.map { device in
                .object([("id", .string(device.id)), ("rssiOffset", .number(device.rssiOffset))])
            })))
        }
        if !venue.receivers.isEmpty {
            root.append(("receivers", .array(venue.receivers.map { receiver in
                var members: [(key: String, value: JSONValue)] = [("id", .string(receiver.id))]
                members += placementMembers(coordinate: receiver.coordinate, x: receiver.x, y: receiver.y, z: receiver.z,
                                            floor: receiver.floor)
                if receiver.rssiOffset != 0 { members.append(("rssiOffset", .number(receiver.rssiOffset))) }
                if let n = receiver.pathLossExponent { members.append(("pathLossExponent", .number(n))) }
                return .object(members)
            })))
        }
        // Keys are a tags file's (and a tag known by its key alone with them): the venue leaves them out.
        let advertised = venue.tags.filter { $0.iBeacon != nil || $0.eddystone != nil }
        if !advertised.isEmpty {
            root.append(("tags", .array(advertised.map { tag in
                .object([("id", .string(tag.id))] + identityMembers(iBeacon: tag.iBeacon, eddystone: tag.eddystone))
            })))
        }
        return .object(root)
    }

    /// The keys of an advertised identity, as a beacon or a tag gives it.
    static func identityMembers(iBeacon: IBeaconIdentity?, eddystone: EddystoneIdentity?) -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        if let iBeacon {
            members += [("uuid", .string(iBeacon.uuid.uuidString)), ("major", .number(Double(iBeacon.major))),
                        ("minor", .number(Double(iBeacon.minor)))]
        }
        if let eddystone {
            members += [("namespace", .string(eddystone.namespace)), ("instance", .string(eddystone.instance))]
        }
        return members
    }

    /// The keys of where a beacon or a receiver is: the latitude/longitude the file gave, or x/y;
    /// then z and floor.
    private static func placementMembers(coordinate: GeoCoordinate?, x: Double?, y: Double?, z: Double?,
                                         floor: Int?) -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        if let coordinate {
            members += [("latitude", .number(coordinate.latitude)), ("longitude", .number(coordinate.longitude))]
        } else if let x, let y {
            members += [("x", .number(x)), ("y", .number(y))]
        }
        if let z { members.append(("z", .number(z))) }
        if let floor { members.append(("floor", .number(Double(floor)))) }
        return members
    }

    /// Writes a venue as indented JSON.
    public static func write(_ venue: Venue, to url: URL) throws {
        let text = JSONWriter(indent: 2).string(from: encode(venue)) + "\n"
        try Data(text.utf8).write(to: url, options: .atomic)
    }
}
