import Foundation

/// One iBeacon heard, as Bluenet Localization's `iBeaconPacket`: the identity, the RSSI and the
/// reference id of the tracked region it belongs to.
public struct BeaconPacket: Hashable, Sendable {
    /// The beacon's identity.
    public var identity: IBeaconIdentity
    /// The RSSI, dBm.
    public var rssi: Double
    /// The reference id of the tracked region.
    public var referenceId: String

    /// Creates a packet.
    public init(identity: IBeaconIdentity, rssi: Double, referenceId: String) {
        self.identity = identity
        self.rssi = rssi
        self.referenceId = referenceId
    }

    /// `uuid + "_Maj:" + major + "_Min:" + minor`, Bluenet's id string.
    public var idString: String { identity.description }

    /// `{"uuid", "major", "minor", "rssi", "referenceId", "idString"}`.
    public var json: JSONValue {
        .object([
            ("uuid", .string(identity.uuid.uuidString)),
            ("major", .number(Double(identity.major))),
            ("minor", .number(Double(identity.minor))),
            ("rssi", .number(rssi)),
            ("referenceId", .string(referenceId)),
            ("idString", .string(idString)),
        ])
    }
}
