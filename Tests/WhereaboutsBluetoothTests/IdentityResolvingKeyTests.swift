import Testing
@testable import WhereaboutsBluetooth

struct IdentityResolvingKeyTests {
    /// Bluetooth Core Specification, Vol 3, Part H, Appendix D.7: IRK ec0234a3 57c8ad05 341010a6
    /// 0a397d9b, prand 708194 → AES-128 159d5fb7 2ebe2311 a48c1bdc c40dfbaa → ah 0dfbaa.
    @Test func theSpecificationsSampleResolves() throws {
        let key = try IdentityResolvingKey(hex: "ec0234a3 57c8ad05 341010a6 0a397d9b")
        #expect(key.randomAddressHash(0x70_8194) == 0x0D_FBAA)
        #expect(key.resolves(try #require(BluetoothAddress("70:81:94:0D:FB:AA"))))
        #expect(!key.resolves(try #require(BluetoothAddress("70:81:94:0D:FB:AB"))))
        // The same bits, but a static random address (11): not resolvable, not tried.
        #expect(!key.resolves(try #require(BluetoothAddress("F0:81:94:0D:FB:AA"))))
        #expect(key.description == "ec0234a357c8ad05341010a60a397d9b")
    }

    @Test func keysThatAreNotSixteenBytesAreRefusedWithWhy() {
        #expect(throws: IdentityResolvingKey.ParseError.self) { try IdentityResolvingKey(hex: "ec0234") }
        #expect(throws: IdentityResolvingKey.ParseError.self) { try IdentityResolvingKey(hex: "zz0234a357c8ad05341010a60a397d9b") }
        #expect((try? IdentityResolvingKey(hex: "EC:02:34:A3:57:C8:AD:05:34:10:10:A6:0A:39:7D:9B"))?.bytes.first == 0xEC)
    }

    @Test func theResolverFindsTheDeviceAndRemembersTheAnswer() throws {
        let sample = try IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")
        let other = try IdentityResolvingKey(hex: "00112233445566778899aabbccddeeff")
        var resolver = AddressResolver(keys: ["anna-phone": sample, "ben-phone": other])
        let address = try #require(BluetoothAddress("70:81:94:0D:FB:AA"))
        #expect(resolver.device(for: address) == "anna-phone")
        #expect(resolver.device(for: address) == "anna-phone")
        #expect(resolver.device(for: try #require(BluetoothAddress("70:81:94:0D:FB:AB"))) == nil)
        #expect(resolver.device(for: try #require(BluetoothAddress("00:81:94:0D:FB:AA"))) == nil)   // public
    }
}
