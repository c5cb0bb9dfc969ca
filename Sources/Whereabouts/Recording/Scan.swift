/// One beacon heard once (or averaged over a ranging second): who, how loud, and what it advertised.
public struct Reading: Hashable, Sendable {
    /// The beacon heard.
    public var beacon: BeaconReference
    /// Received signal strength in dBm (negative; may be fractional for averaged sources).
    public var rssi: Double
    /// The measured power the frame advertised (RSSI at 1 m, dBm), when it carried one.
    public var txPower: Double?

    /// Creates a reading.
    public init(beacon: BeaconReference, rssi: Double, txPower: Double? = nil) {
        self.beacon = beacon
        self.rssi = rssi
        self.txPower = txPower
    }

    /// Whether the RSSI can be a real measurement: finite and below 0 dBm. Recordings skip (and
    /// count) readings for which this is false.
    public var isValid: Bool { rssi < 0 && rssi.isFinite }
}

/// Where a scan really was, for evaluation and training: a position and/or a place label.
public struct GroundTruth: Hashable, Sendable {
    /// East coordinate in venue units.
    public var x: Double?
    /// North coordinate in venue units.
    public var y: Double?
    /// Height in venue units.
    public var z: Double?
    /// Floor level (a `floors[].level` of the venue).
    public var floor: Int?
    /// A room, zone or grid-cell label (a `places[].id` of the venue).
    public var place: String?

    /// Creates a ground truth; every part is optional.
    public init(x: Double? = nil, y: Double? = nil, z: Double? = nil, floor: Int? = nil, place: String? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.floor = floor
        self.place = place
    }

    /// The position on the plan, when both `x` and `y` are known.
    public var planarPoint: PlanarPoint? {
        guard let x, let y else { return nil }
        return PlanarPoint(x: x, y: y)
    }
}

/// One scan: the readings a device took at one time (a single packet or a whole ranging second),
/// the line of a recording (FORMATS.md §2).
///
/// ```swift
/// let scan = Scan(time: 1539878121.25, device: "A5",
///                 readings: [Reading(beacon: .id("23"), rssi: -67)],
///                 truth: GroundTruth(x: 29.22, y: 12.91, floor: 0))
/// ```
public struct Scan: Hashable, Sendable {
    /// Seconds on a clock that never goes back for one device and track (since 1970 when known).
    public var time: Double
    /// The device being located, when a recording holds several.
    public var device: String?
    /// The continuous trajectory this scan belongs to, when a recording holds several.
    public var track: String?
    /// What was heard; empty when nothing was (such a scan still counts).
    public var readings: [Reading]
    /// Where the device really was, when known.
    public var truth: GroundTruth?

    /// Creates a scan.
    public init(time: Double, device: String? = nil, track: String? = nil, readings: [Reading], truth: GroundTruth? = nil) {
        self.time = time
        self.device = device
        self.track = track
        self.readings = readings
        self.truth = truth
    }
}
