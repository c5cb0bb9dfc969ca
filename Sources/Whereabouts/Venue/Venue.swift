import Foundation

/// A building (or a zone of one): its floors, its beacons and its places, in a local frame
/// optionally anchored to WGS84 — the model of `venue.json` (FORMATS.md §1).
///
/// Read one with ``VenueFile/read(from:)``, write one with ``VenueFile/write(_:to:)``.
/// Beacons and places given as latitude/longitude are converted to the local frame when the
/// venue is read, so ``Beacon/x`` and ``Beacon/y`` are always local.
///
/// ```swift
/// let venue = try VenueFile.read(from: URL(fileURLWithPath: "venue.json"))
/// if let index = venue.beaconIndex(for: .id("23")) {
///     print(venue.beacons[index].position(defaults: venue.defaults) as Any)
/// }
/// ```
public struct Venue: Hashable, Sendable {
    /// A readable name.
    public var name: String?
    /// The unit of every coordinate, radius and error in the venue and its recordings.
    public var units: LengthUnit
    /// Where the local frame sits on Earth, when known.
    public var origin: Origin?
    /// The floors; may be empty for a single-floor venue (its floor is then level 0).
    public var floors: [Floor]
    /// Values used by beacons that leave them out.
    public var defaults: Defaults
    /// The beacons (or fixed receivers), each with a unique id.
    public var beacons: [Beacon]
    /// The places: geofences, polygons or labels.
    public var places: [Place]
    /// The receivers whose RSSI offset is known (``CalibrationResult/offsetsByDevice``, written by
    /// `whereabouts calibrate -o`): every solver and classifier subtracts a device's offset from
    /// its readings, and a device listed here is not one whose offset is learnt online.
    public var devices: [Device] = []
    /// The fixed receivers (gateways, ESPresense nodes) that hear moving tags: what
    /// ``ReceiverFusion`` turns into one scan per tag, located as a phone is from beacons
    /// (``receiversAsBeacons()``).
    public var receivers: [Receiver] = []
    /// Names for the tags the receivers hear, by their advertised identity; a tag not listed
    /// is named by its identity.
    public var tags: [Tag] = []

    /// Creates a venue, unchecked; ``VenueFile/read(from:)`` checks the venues it reads.
    public init(name: String? = nil, units: LengthUnit = .metre, origin: Origin? = nil, floors: [Floor] = [],
                defaults: Defaults = Defaults(), beacons: [Beacon] = [], places: [Place] = [], devices: [Device] = [],
                receivers: [Receiver] = [], tags: [Tag] = []) {
        self.devices = devices
        self.receivers = receivers
        self.tags = tags
        self.name = name
        self.units = units
        self.origin = origin
        self.floors = floors
        self.defaults = defaults
        self.beacons = beacons
        self.places = places
    }

    /// The frame that relates local coordinates to WGS84, when the venue has an origin.
    public var localFrame: LocalFrame? {
        guard let origin, let metres = units.metres else { return nil }
        return LocalFrame(origin: origin.coordinate, bearing: origin.bearing, metresPerUnit: metres)
    }

    /// The index in ``beacons`` of the beacon a reading names, or `nil` when the venue has none such.
    ///
    /// This scans the beacons; for many look-ups build a ``BeaconDirectory`` once.
    public func beaconIndex(for reference: BeaconReference) -> Int? {
        beacons.firstIndex { $0.matches(reference) }
    }
}

extension Venue {
    /// The unit of a venue's geometry.
    public enum LengthUnit: String, Hashable, Sendable, CaseIterable {
        /// Metres (the default).
        case metre = "m"
        /// International feet (0.3048 m).
        case foot = "ft"
        /// Grid cells of a dataset whose geometry is only a grid: no relation to metres.
        case cell = "cell"

        /// How many metres one unit measures, or `nil` for cells.
        public var metres: Double? {
            switch self {
            case .metre: 1
            case .foot: 0.3048
            case .cell: nil
            }
        }
    }

    /// Where the local frame's (0, 0) lies on Earth and how it is turned.
    public struct Origin: Hashable, Sendable {
        /// Latitude of the local (0, 0), degrees.
        public var latitude: Double
        /// Longitude of the local (0, 0), degrees.
        public var longitude: Double
        /// Clockwise angle in degrees from true north to the local +y axis.
        public var bearing: Double

        /// Creates an origin.
        public init(latitude: Double, longitude: Double, bearing: Double = 0) {
            self.latitude = latitude
            self.longitude = longitude
            self.bearing = bearing
        }

        /// The origin as a coordinate.
        public var coordinate: GeoCoordinate { GeoCoordinate(latitude: latitude, longitude: longitude) }
    }

    /// A floor of the venue.
    public struct Floor: Hashable, Sendable {
        /// The level other records refer to (`floor` keys); 0 for the ground floor by convention.
        public var level: Int
        /// A readable name.
        public var name: String?
        /// Height of the floor above the venue's reference, in venue units.
        public var elevation: Double?

        /// Creates a floor.
        public init(level: Int, name: String? = nil, elevation: Double? = nil) {
            self.level = level
            self.name = name
            self.elevation = elevation
        }
    }

    /// Values for beacons that do not give their own.
    public struct Defaults: Hashable, Sendable {
        /// RSSI at 1 m, dBm (default −59, the common iBeacon calibration).
        public var txPower: Double
        /// Path-loss exponent n of rssi = txPower − 10·n·log10(d) (default 2, free space).
        public var pathLossExponent: Double
        /// Beacon height in venue units (default 0).
        public var z: Double

        /// Creates defaults.
        public init(txPower: Double = -59, pathLossExponent: Double = 2, z: Double = 0) {
            self.txPower = txPower
            self.pathLossExponent = pathLossExponent
            self.z = z
        }
    }

    /// A beacon (or fixed receiver) of the venue.
    public struct Beacon: Hashable, Sendable {
        /// Unique id in the venue; readings name the beacon by it.
        public var id: String
        /// iBeacon/AltBeacon identity, when known.
        public var iBeacon: IBeaconIdentity?
        /// Eddystone-UID identity, when known.
        public var eddystone: EddystoneIdentity?
        /// East coordinate in the local frame (converted from `latitude`/`longitude` when given so).
        public var x: Double?
        /// North coordinate in the local frame.
        public var y: Double?
        /// Height; ``Defaults/z`` when absent.
        public var z: Double?
        /// The coordinate the venue file gave instead of `x`/`y`, kept so that writing it back keeps its form.
        public var coordinate: GeoCoordinate?
        /// Floor level; 0 when absent.
        public var floor: Int?
        /// RSSI at 1 m in dBm; ``Defaults/txPower`` when absent.
        public var txPower: Double?
        /// Path-loss exponent; ``Defaults/pathLossExponent`` when absent.
        public var pathLossExponent: Double?

        /// Creates a beacon.
        public init(id: String, iBeacon: IBeaconIdentity? = nil, eddystone: EddystoneIdentity? = nil,
                    x: Double? = nil, y: Double? = nil, z: Double? = nil, coordinate: GeoCoordinate? = nil,
                    floor: Int? = nil, txPower: Double? = nil, pathLossExponent: Double? = nil) {
            self.id = id
            self.iBeacon = iBeacon
            self.eddystone = eddystone
            self.x = x
            self.y = y
            self.z = z
            self.coordinate = coordinate
            self.floor = floor
            self.txPower = txPower
            self.pathLossExponent = pathLossExponent
        }

        /// The beacon's position with the default height filled in, or `nil` when its place is unknown.
        public func position(defaults: Defaults) -> SpatialPoint? {
            guard let x, let y else { return nil }
            return SpatialPoint(x: x, y: y, z: z ?? defaults.z)
        }

        /// Whether a reading's reference names this beacon.
        public func matches(_ reference: BeaconReference) -> Bool {
            switch reference {
            case .id(let id): return id == self.id
            case .iBeacon(let identity): return identity == iBeacon
            case .eddystone(let identity): return identity == eddystone
            }
        }
    }

    /// A receiver and its RSSI offset: how many dB it reads above the venue's calibration.
    public struct Device: Hashable, Sendable {
        /// The name scans give it (``Scan/device``).
        public var id: String
        /// dB subtracted from its readings.
        public var rssiOffset: Double

        /// Creates a device.
        public init(id: String, rssiOffset: Double) {
            self.id = id
            self.rssiOffset = rssiOffset
        }
    }

    /// A fixed receiver: a gateway or node at a known spot that reports the tags it hears.
    ///
    /// To a tag it is what a beacon is to a phone, so the engine locates tags from receivers with
    /// the same solvers (``Venue/receiversAsBeacons()``).
    public struct Receiver: Hashable, Sendable {
        /// Unique among the venue's receivers and beacons; a receiver's scans give it as their
        /// ``Scan/device``.
        public var id: String
        /// East coordinate in the local frame (converted from `latitude`/`longitude` when given so).
        public var x: Double?
        /// North coordinate in the local frame.
        public var y: Double?
        /// Height; ``Defaults/z`` when absent.
        public var z: Double?
        /// The coordinate the venue file gave instead of `x`/`y`.
        public var coordinate: GeoCoordinate?
        /// Floor level; 0 when absent.
        public var floor: Int?
        /// dB the receiver reads above the venue's calibration (``Defaults/txPower`` at 1 m).
        public var rssiOffset: Double
        /// The path-loss exponent around this receiver; ``Defaults/pathLossExponent`` when absent.
        public var pathLossExponent: Double?

        /// Creates a receiver.
        public init(id: String, x: Double? = nil, y: Double? = nil, z: Double? = nil, coordinate: GeoCoordinate? = nil,
                    floor: Int? = nil, rssiOffset: Double = 0, pathLossExponent: Double? = nil) {
            self.id = id
            self.x = x
            self.y = y
            self.z = z
            self.coordinate = coordinate
            self.floor = floor
            self.rssiOffset = rssiOffset
            self.pathLossExponent = pathLossExponent
        }
    }

    /// A tag's name and the identity it advertises.
    public struct Tag: Hashable, Sendable {
        /// The name its fixes and events carry (``Scan/device``).
        public var id: String
        /// iBeacon/AltBeacon identity, when it advertises one.
        public var iBeacon: IBeaconIdentity?
        /// Eddystone-UID identity, when it advertises one.
        public var eddystone: EddystoneIdentity?
        /// The identity resolving key (IRK) of a phone that advertises from resolvable private
        /// addresses: 16 bytes, most significant first, as the Bluetooth specification writes it.
        /// A secret (whoever holds it can follow the phone), so it is kept in a tags file
        /// (``TagsFile``), never in the venue, which the server shows every map page.
        public var identityResolvingKey: [UInt8]?

        /// Creates a tag.
        public init(id: String, iBeacon: IBeaconIdentity? = nil, eddystone: EddystoneIdentity? = nil,
                    identityResolvingKey: [UInt8]? = nil) {
            self.id = id
            self.iBeacon = iBeacon
            self.eddystone = eddystone
            self.identityResolvingKey = identityResolvingKey
        }
    }

    /// The venue with `more` tags (a tags file's) after its own.
    ///
    /// - Throws: ``FormatError`` naming `file` when a tag's id or identity is already the
    ///   venue's, or when there would be more than 100,000 tags.
    public func addingTags(_ more: [Tag], from file: String? = nil) throws(FormatError) -> Venue {
        var venue = self
        var ids = Set(tags.map(\.id))
        var iBeacons = Set(tags.compactMap(\.iBeacon))
        var eddystones = Set(tags.compactMap(\.eddystone))
        guard tags.count + more.count <= VenueFile.maximumTags else {
            throw FormatError(file: file, key: "tags", message: "at most \(VenueFile.maximumTags) tags with the venue's, found \(tags.count + more.count)")
        }
        for (index, tag) in more.enumerated() {
            let key = "tags[\(index)]"
            guard ids.insert(tag.id).inserted else {
                throw FormatError(file: file, key: key + ".id", message: "the venue already names a tag \"\(tag.id)\"")
            }
            if let iBeacon = tag.iBeacon, !iBeacons.insert(iBeacon).inserted {
                throw FormatError(file: file, key: key + ".uuid", message: "the venue already names a tag uuid/major/minor \(iBeacon)")
            }
            if let eddystone = tag.eddystone, !eddystones.insert(eddystone).inserted {
                throw FormatError(file: file, key: key + ".namespace", message: "the venue already names a tag namespace/instance \(eddystone)")
            }
            venue.tags.append(tag)
        }
        return venue
    }

    /// The venue as a tag's locator sees it: the receivers are its beacons, each with the
    /// venue's calibration shifted by its RSSI offset (`txPower` + `rssiOffset`) and its own
    /// path-loss exponent; floors, places, defaults and devices are kept.
    ///
    /// ```swift
    /// let setup = PositioningAlgorithm.default.setup(venue: venue.receiversAsBeacons())
    /// var fixes = FusedPipeline(fusion: ReceiverFusion(venue: venue), then: FixPipeline(setup: setup))
    /// ```
    public func receiversAsBeacons() -> Venue {
        var venue = self
        venue.beacons = receivers.map { receiver in
            Beacon(id: receiver.id, x: receiver.x, y: receiver.y, z: receiver.z, coordinate: receiver.coordinate,
                   floor: receiver.floor,
                   txPower: receiver.rssiOffset == 0 ? nil : defaults.txPower + receiver.rssiOffset,
                   pathLossExponent: receiver.pathLossExponent)
        }
        return venue
    }

    /// Each listed device's offset by its id.
    public var deviceOffsets: [String: Double] {
        var offsets: [String: Double] = [:]
        for device in devices where device.rssiOffset.isFinite { offsets[device.id] = device.rssiOffset }
        return offsets
    }

    /// A place: a geofence (centre and radius), a polygon, or a label with no geometry.
    public struct Place: Hashable, Sendable {
        /// The label that classification, ranking and events use.
        public var id: String
        /// Floor level.
        public var floor: Int
        /// Where the place is, if known.
        public var shape: Shape

        /// Creates a place.
        public init(id: String, floor: Int = 0, shape: Shape = .label) {
            self.id = id
            self.floor = floor
            self.shape = shape
        }

        /// The geometry of a place.
        public enum Shape: Hashable, Sendable {
            /// No geometry: a label that classification can still predict.
            case label
            /// A circle around `center` (local frame) of `radius` venue units; `coordinate` keeps
            /// the latitude/longitude the file gave, if it gave them.
            case circle(center: PlanarPoint, radius: Double, coordinate: GeoCoordinate?)
            /// A polygon of at least three vertices in the local frame.
            case polygon([PlanarPoint])
        }
    }
}

/// A fast look-up from the way readings name beacons to the venue's beacon indices.
///
/// ```swift
/// let directory = BeaconDirectory(venue)
/// let index = directory.index(for: reading.beacon)   // Int?
/// ```
public struct BeaconDirectory: Sendable {
    private var byID: [String: Int] = [:]
    private var byIBeacon: [IBeaconIdentity: Int] = [:]
    private var byEddystone: [EddystoneIdentity: Int] = [:]

    /// Indexes the beacons of a venue.
    public init(_ venue: Venue) {
        for (index, beacon) in venue.beacons.enumerated() {
            byID[beacon.id] = byID[beacon.id] ?? index
            if let identity = beacon.iBeacon { byIBeacon[identity] = byIBeacon[identity] ?? index }
            if let identity = beacon.eddystone { byEddystone[identity] = byEddystone[identity] ?? index }
        }
    }

    /// The index of the beacon a reading names, or `nil` when the venue has none such.
    public func index(for reference: BeaconReference) -> Int? {
        switch reference {
        case .id(let id): byID[id]
        case .iBeacon(let identity): byIBeacon[identity]
        case .eddystone(let identity): byEddystone[identity]
        }
    }
}
