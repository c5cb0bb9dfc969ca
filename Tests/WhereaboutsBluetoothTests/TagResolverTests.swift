import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsBluetooth

/// Phones that advertise from resolvable private addresses, named by the keys of a tags file
/// as a scanner decodes their reports.
@Suite("Tag resolver")
struct TagResolverTests {
    /// The specification's sample (Vol 3, Part H, Appendix D.7): this key made 70:81:94:0D:FB:AA.
    static let sampleKey: [UInt8] = [0xEC, 0x02, 0x34, 0xA3, 0x57, 0xC8, 0xAD, 0x05, 0x34, 0x10, 0x10, 0xA6, 0x0A, 0x39, 0x7D, 0x9B]
    static let sampleAddress = BluetoothAddress(rawValue: 0x7081_940D_FBAA)

    /// A report of `address` (random unless `addressType` says) with `data` and −62 dBm.
    static func report(_ address: BluetoothAddress, addressType: UInt8 = 1, data: [UInt8] = [0x02, 0x01, 0x1A, 0x05, 0xFF, 0x4C, 0x00, 0x10, 0x00]) -> AdvertisingReport {
        AdvertisingReport(eventType: 0, addressType: addressType, address: address, rssi: -62, data: data)
    }

    @Test func aPhonesAddressIsReadAsItsTag() throws {
        let resolver = TagResolver(tags: [Venue.Tag(id: "anna-phone", identityResolvingKey: Self.sampleKey),
                                          Venue.Tag(id: "keys", iBeacon: IBeaconIdentity(uuid: UUID(), major: 1, minor: 1))])
        #expect(!resolver.isEmpty)
        let decoder = SightingDecoder(tagResolver: resolver)
        let reading = try #require(decoder.reading(from: Self.report(Self.sampleAddress)))
        #expect(reading.beacon == .id("anna-phone") && reading.rssi == -62 && reading.txPower == nil)
        // The same bits from a public address, another random address, or no resolver: nothing.
        #expect(decoder.reading(from: Self.report(Self.sampleAddress, addressType: 0)) == nil)
        #expect(decoder.reading(from: Self.report(BluetoothAddress(rawValue: 0x7081_940D_FBAB))) == nil)
        #expect(SightingDecoder().reading(from: Self.report(Self.sampleAddress)) == nil)
        // Another address the same key made (prand chosen, hash computed): the same tag.
        let key = try IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")
        let prand: UInt32 = 0x5A_BC_DE
        let other = BluetoothAddress(rawValue: UInt64(prand) << 24 | UInt64(key.randomAddressHash(prand)))
        #expect(decoder.reading(from: Self.report(other))?.beacon == .id("anna-phone"))
        // Asked again: the answer remembered, the same.
        #expect(decoder.reading(from: Self.report(Self.sampleAddress))?.beacon == .id("anna-phone"))
        #expect(resolver.tag(forKey: Self.sampleKey) == "anna-phone")
        #expect(resolver.tag(forKey: Self.sampleKey.reversed()) == nil)
    }

    /// A beacon frame names its beacon first; a frame the UUID filter leaves out from a phone's
    /// address still names the phone; a scan holds both kinds.
    @Test func beaconFramesComeFirstAndTheUUIDFilterKeepsPhones() throws {
        let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        let uuidBytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        let iBeacon: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuidBytes + [0x00, 0x07, 0x00, 0x02, 0xC5]
        let resolver = TagResolver(tags: [Venue.Tag(id: "anna-phone", identityResolvingKey: Self.sampleKey)])
        let decoder = SightingDecoder(tagResolver: resolver)
        #expect(decoder.reading(from: Self.report(Self.sampleAddress, data: iBeacon))?.beacon
                == .iBeacon(IBeaconIdentity(uuid: uuid, major: 7, minor: 2)))
        let filtered = SightingDecoder(uuids: [UUID()], tagResolver: resolver)
        #expect(filtered.reading(from: Self.report(Self.sampleAddress, data: iBeacon))?.beacon == .id("anna-phone"))
        let scan = try #require(decoder.scan(from: [Self.report(Self.sampleAddress),
                                                    Self.report(BluetoothAddress(rawValue: 0xC0FF_EE00_0001), data: iBeacon)], at: 5))
        #expect(scan.readings.map(\.beacon) == [.id("anna-phone"), .iBeacon(IBeaconIdentity(uuid: uuid, major: 7, minor: 2))])
    }

    /// Tags without a key resolve nothing, at no cost.
    @Test func withoutKeysNothingResolves() {
        let resolver = TagResolver(tags: [Venue.Tag(id: "keys", iBeacon: IBeaconIdentity(uuid: UUID(), major: 1, minor: 1))])
        #expect(resolver.isEmpty && resolver.tag(for: Self.sampleAddress) == nil)
    }
}
