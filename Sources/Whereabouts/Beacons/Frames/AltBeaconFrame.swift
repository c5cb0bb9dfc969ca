import Foundation

/// An AltBeacon advertisement (github.com/AltBeacon/spec): a 20-byte beacon id, the reference RSSI
/// and a manufacturer reserved byte, in the manufacturer specific data of any company.
///
/// The beacon id is commonly read as a UUID (16 bytes), then `id2` (major) and `id3` (minor),
/// each big-endian; ``identity`` is that view and ``beaconID`` the raw 20 bytes.
public struct AltBeaconFrame: Hashable, Sendable {
    /// The Bluetooth SIG company identifier of the beacon's manufacturer (sent little-endian).
    public var manufacturerID: UInt16
    /// The beacon id read as UUID (bytes 0–15), major (16–17) and minor (18–19).
    public var identity: IBeaconIdentity
    /// The average RSSI at 1 m from the beacon, in dBm.
    public var referenceRSSI: Int8
    /// The manufacturer reserved byte, whose meaning depends on ``manufacturerID``.
    public var manufacturerReserved: UInt8

    /// Radius Networks' company identifier, `0x0118`, the one AltBeacon's reference implementation uses.
    public static let radiusNetworks: UInt16 = 0x0118

    /// Creates a frame from the identity view of its beacon id.
    public init(manufacturerID: UInt16 = AltBeaconFrame.radiusNetworks, identity: IBeaconIdentity,
                referenceRSSI: Int8, manufacturerReserved: UInt8 = 0) {
        self.manufacturerID = manufacturerID
        self.identity = identity
        self.referenceRSSI = referenceRSSI
        self.manufacturerReserved = manufacturerReserved
    }

    /// Creates a frame from a raw 20-byte beacon id, or `nil` when `beaconID` is not 20 bytes long.
    public init?(manufacturerID: UInt16 = AltBeaconFrame.radiusNetworks, beaconID: some Collection<UInt8>,
                 referenceRSSI: Int8, manufacturerReserved: UInt8 = 0) {
        let id = Array(beaconID)
        guard id.count == 20 else { return nil }
        let uuid = id.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
        self.init(manufacturerID: manufacturerID,
                  identity: IBeaconIdentity(uuid: UUID(uuid: uuid),
                                            major: UInt16(id[16]) << 8 | UInt16(id[17]),
                                            minor: UInt16(id[18]) << 8 | UInt16(id[19])),
                  referenceRSSI: referenceRSSI, manufacturerReserved: manufacturerReserved)
    }

    /// The raw 20-byte beacon id, as sent (big-endian).
    public var beaconID: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(20)
        bytes.appendIdentity(identity)
        return bytes
    }

    /// Complete advertising data: the flags AD structure (`02 01 06`) and the AltBeacon structure, 31 bytes.
    public func encoded() -> [UInt8] {
        var bytes = Advertisement.flagsStructure
        bytes.reserveCapacity(31)
        bytes += [0x1B, 0xFF, UInt8(truncatingIfNeeded: manufacturerID), UInt8(truncatingIfNeeded: manufacturerID >> 8), 0xBE, 0xAC]
        bytes.appendIdentity(identity)
        bytes.append(UInt8(bitPattern: referenceRSSI))
        bytes.append(manufacturerReserved)
        return bytes
    }
}
