import Foundation
@testable import Whereabouts
@testable import WhereaboutsBluetooth

/// Hand-made byte vectors, laid out as the Core Specification gives them.
enum Vectors {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let otherUUID = UUID(uuidString: "F7826DA6-4FA2-4E98-8024-BC5B71E0893E")!

    /// iBeacon advertising data (flags, then Apple's iBeacon): 30 bytes.
    static func iBeacon(uuid: UUID = uuid, major: UInt16, minor: UInt16, power: Int8 = -59) -> [UInt8] {
        IBeaconFrame(identity: IBeaconIdentity(uuid: uuid, major: major, minor: minor), measuredPower: power).encoded()
    }

    /// Eddystone-UID advertising data.
    static var eddystoneUID: [UInt8] {
        EddystoneUIDFrame(namespace: [0x8B, 0x0C, 0xA7, 0x50, 0x09, 0x54, 0x77, 0xCB, 0x3E, 0x77],
                          instance: [0, 0, 0, 0, 0, 1], txPower: -18)!.encoded()
    }

    /// An LE Advertising Report event with one report (the layout both conventions share).
    static func legacyEvent(eventType: UInt8 = 0x03, addressType: UInt8 = 0x01, address: [UInt8] = [0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0],
                            data: [UInt8], rssi: UInt8 = 0xC5) -> [UInt8] {
        let parameters: [UInt8] = [0x02, 0x01, eventType, addressType] + address + [UInt8(data.count)] + data + [rssi]
        return [0x3E, UInt8(parameters.count)] + parameters
    }

    /// An LE Extended Advertising Report event with one report.
    static func extendedEvent(eventType: UInt16 = 0x0010, address: [UInt8] = [0x02, 0x00, 0x00, 0xEE, 0xFF, 0xC0],
                              txPower: UInt8 = 0x7F, rssi: UInt8 = 0xBA, data: [UInt8]) -> [UInt8] {
        var report: [UInt8] = [UInt8(eventType & 0xFF), UInt8(eventType >> 8), 0x00] + address
        report += [0x01, 0x00, 0xFF, txPower, rssi, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, UInt8(data.count)] + data
        let parameters: [UInt8] = [0x0D, 0x01] + report
        return [0x3E, UInt8(parameters.count)] + parameters
    }
}
