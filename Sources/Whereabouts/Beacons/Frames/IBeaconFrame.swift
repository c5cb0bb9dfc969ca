import Foundation

/// An Apple iBeacon advertisement: a proximity UUID, a major, a minor and the measured power.
///
/// On the air it is a manufacturer specific AD structure (type `0xFF`) of Apple (company
/// `0x004C`, sent little-endian as `4C 00`), beacon type `0x02`, length `0x15`, then the UUID,
/// the major and minor (big-endian) and the measured power (signed, dBm at 1 m).
///
/// ```swift
/// let frame = IBeaconFrame(
///     identity: IBeaconIdentity(uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 1, minor: 2),
///     measuredPower: -59)
/// let bytes = frame.encoded()  // 02 01 06 1A FF 4C 00 02 15 E2 C5 … 00 01 00 02 C5
/// ```
public struct IBeaconFrame: Hashable, Sendable {
    /// The advertised proximity UUID, major and minor.
    public var identity: IBeaconIdentity
    /// The calibrated RSSI at 1 m from the beacon, in dBm.
    public var measuredPower: Int8

    /// Creates a frame.
    public init(identity: IBeaconIdentity, measuredPower: Int8) {
        self.identity = identity
        self.measuredPower = measuredPower
    }

    /// Complete advertising data: the flags AD structure (`02 01 06`) and the iBeacon structure, 30 bytes.
    public func encoded() -> [UInt8] {
        var bytes = Advertisement.flagsStructure
        bytes.reserveCapacity(30)
        bytes += [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]
        bytes.appendIdentity(identity)
        bytes.append(UInt8(bitPattern: measuredPower))
        return bytes
    }
}
