/// One beacon heard once (or averaged over a ranging second): who, how loud, and what it advertised.
public struct Reading: Hashable, Sendable {
    /// The beacon heard.
    public var beacon: BeaconReference
    /// Received signal strength in dBm (negative; may be fractional for averaged sources).
    public var rssi: Double
    /// The measured power the frame advertised (RSSI at 1 m, dBm), when it carried one.
    public var txPower: Double?
    /// The distance to the beacon the source estimated itself, metres, when it gives one
    /// (CoreLocation's `CLBeacon.accuracy`): positioning then takes it as the beacon's range,
    /// as IBeaconLocation did, instead of deriving one from the RSSI.
    public var distance: Double?

    /// Creates a reading.
    public init(beacon: BeaconReference, rssi: Double, txPower: Double? = nil, distance: Double? = nil) {
        self.beacon = beacon
        self.rssi = rssi
        self.txPower = txPower
        self.distance = distance
    }

    /// The source's own distance when it is usable: finite and positive.
    public var reportedDistance: Double? {
        guard let distance, distance > 0, distance.isFinite else { return nil }
        return distance
    }

    /// Whether the RSSI can be a real measurement: finite and below 0 dBm. Recordings skip (and
    /// count) readings for which this is false.
    public var isValid: Bool { rssi < 0 && rssi.isFinite }
}
