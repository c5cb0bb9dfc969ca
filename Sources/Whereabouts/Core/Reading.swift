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
