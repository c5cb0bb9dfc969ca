import Foundation
import Testing
@testable import Whereabouts

@Suite struct FrameEncodingTests {
    @Test func encodesSpecificationVectors() throws {
        let iBeacon = IBeaconFrame(identity: IBeaconIdentity(uuid: FrameVectors.uuid, major: 1, minor: 2), measuredPower: -59)
        #expect(iBeacon.encoded() == FrameVectors.iBeacon)

        let altBeacon = AltBeaconFrame(
            identity: IBeaconIdentity(uuid: UUID(uuidString: "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6")!, major: 1, minor: 2),
            referenceRSSI: -59)
        #expect(altBeacon.encoded() == FrameVectors.altBeacon)

        let uid = EddystoneUIDFrame(identity: EddystoneIdentity(namespace: "8B0CA750095477CB3E77", instance: "000000000001")!, txPower: -18)
        #expect(uid.encoded() == FrameVectors.eddystoneUID)

        #expect(try EddystoneURLFrame(url: "https://goo.gl/Aq18zF", txPower: -18).encoded() == FrameVectors.eddystoneURL)

        let tlm = EddystoneTLMFrame(batteryVoltage: 3000, rawTemperature: 0x1780, advertisementCount: 1000, uptimeTenths: 10000)
        #expect(tlm.encoded() == FrameVectors.eddystoneTLM)
        #expect(try BeaconFrame.eddystoneTLM(tlm).encoded() == FrameVectors.eddystoneTLM)
    }

    @Test func altBeaconRawID() throws {
        let id: [UInt8] = Array(0..<20)
        let frame = try #require(AltBeaconFrame(manufacturerID: 0x004C, beaconID: id, referenceRSSI: -60, manufacturerReserved: 0xAB))
        #expect(frame.beaconID == id)
        #expect(frame.identity.major == 0x1011)  // bytes 16, 17
        #expect(frame.identity.minor == 0x1213)  // bytes 18, 19
        #expect(frame.identity.uuid.uuidString == "00010203-0405-0607-0809-0A0B0C0D0E0F")
        // Apple's company id with the AltBeacon code is an AltBeacon, not an iBeacon.
        #expect(try Advertisement.parse(frame.encoded()) == .altBeacon(frame))
        #expect(AltBeaconFrame(beaconID: id.prefix(19), referenceRSSI: -60) == nil)
        #expect(EddystoneUIDFrame(namespace: id.prefix(10), instance: id.prefix(5), txPower: 0) == nil)
    }

    @Test func urlEncodingPicksTheShortestForm() throws {
        // "http://www." is one byte (0x00); ".com/" is one byte (0x00).
        #expect(try EddystoneURLFrame.encodeURL("http://www.example.com/") == [0x00] + Array("example".utf8) + [0x00])
        // "https://" (0x03), ".org" at the end (0x08).
        #expect(try EddystoneURLFrame.encodeURL("https://example.org") == [0x03] + Array("example".utf8) + [0x08])
        // ".info/" (0x04) beats ".info" (0x0B) followed by a literal "/": 1 byte instead of 2.
        #expect(try EddystoneURLFrame.encodeURL("https://a.info/b") == [0x03, 0x61, 0x04, 0x62])
        // Two expansions: ".com" then ".net/".
        #expect(try EddystoneURLFrame.encodeURL("http://a.com.net/") == [0x02, 0x61, 0x07, 0x03])
        // Scheme and "www." are matched regardless of case; the rest is kept as written.
        #expect(try EddystoneURLFrame.encodeURL("HTTPS://WWW.Example.COM") == [0x01] + Array("Example.COM".utf8))
        // Nothing after the scheme.
        #expect(try EddystoneURLFrame.encodeURL("http://") == [0x02])
    }

    @Test func urlEncodingFailures() {
        #expect(throws: FrameEncodingError.unsupportedURLScheme("ftp://example.com")) {
            try EddystoneURLFrame.encodeURL("ftp://example.com")
        }
        #expect(throws: FrameEncodingError.unsupportedURLScheme("http:/x")) { try EddystoneURLFrame.encodeURL("http:/x") }
        // "https://" is 8 bytes; "a" at 8, the space at 9.
        #expect(throws: FrameEncodingError.unencodableURLCharacter("https://a b.com", offset: 9)) {
            try EddystoneURLFrame.encodeURL("https://a b.com")
        }
        #expect(throws: FrameEncodingError.unencodableURLCharacter("https://é.com", offset: 8)) {
            try EddystoneURLFrame.encodeURL("https://é.com")
        }
        // 16 letters + ".com" (1 byte) = 17 bytes: fits. 17 letters + ".com" = 18: does not.
        #expect(throws: Never.self) { try EddystoneURLFrame.encodeURL("https://abcdefghijklmnop.com") }
        #expect(throws: FrameEncodingError.urlTooLong("https://abcdefghijklmnopq.com", encodedLength: 18, maximum: 17)) {
            try EddystoneURLFrame.encodeURL("https://abcdefghijklmnopq.com")
        }
        // "averyveryverylongdomainname" is 27 bytes, "/" after ".com" makes ".com/" one byte: 28.
        #expect(throws: FrameEncodingError.urlTooLong("https://www.averyveryverylongdomainname.com/", encodedLength: 28, maximum: 17)) {
            try EddystoneURLFrame(url: "https://www.averyveryverylongdomainname.com/", txPower: 0).encoded()
        }
        #expect(FrameEncodingError.urlTooLong("https://x", encodedLength: 18, maximum: 17).description
            == "URL \"https://x\" needs 18 bytes after the scheme; Eddystone-URL carries at most 17")
    }

    @Test func longestURLFitsALegacyAdvertisement() throws {
        let bytes = try EddystoneURLFrame(url: "https://abcdefghijklmnop.com", txPower: 0).encoded()
        #expect(bytes.count == 31)  // 3 flags + 4 UUID list + 4 header + 3 + 17
        #expect(try Advertisement.parse(bytes, kind: .legacy) == .eddystoneURL(EddystoneURLFrame(url: "https://abcdefghijklmnop.com", txPower: 0)))
    }

    @Test func roundTripsEveryFrameType() throws {
        var random = SeededRandom(seed: 0x5EED)
        for _ in 0..<500 {
            let frames = randomFrames(&random)
            for frame in frames {
                let bytes = try frame.encoded()
                #expect(bytes.count <= 31)
                #expect(try Advertisement.parse(bytes, kind: .legacy) == frame)
            }
        }
    }

    @Test func urlRoundTripKeepsTheDecodedForm() throws {
        // The scheme is written back in lower case; everything else is kept.
        let frame = EddystoneURLFrame(url: "HTTP://www.Example.gov/x", txPower: 4)
        #expect(try Advertisement.parse(frame.encoded()) == .eddystoneURL(EddystoneURLFrame(url: "http://www.Example.gov/x", txPower: 4)))
    }
}

/// One random frame of each type.
func randomFrames(_ random: inout SeededRandom) -> [BeaconFrame] {
    func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in random.nextByte() } }
    let identity = IBeaconIdentity(uuid: UUID(uuid: bytes(16).withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }),
                                   major: UInt16(truncatingIfNeeded: random.next()),
                                   minor: UInt16(truncatingIfNeeded: random.next()))
    let power = Int8(bitPattern: random.nextByte())
    // URLs drawn from letters, digits and the expansions, up to 17 encoded bytes.
    let pieces = ["a", "b", "z", "0", "9", "-", "/", "?", "=", ".", ".com/", ".org", ".info/", ".gov", ".biz", "%", "~"]
    var url = ["http://www.", "https://www.", "http://", "https://"][Int(random.next() % 4)]
    for _ in 0..<Int(random.next() % 18) { url += pieces[Int(random.next() % UInt64(pieces.count))] }
    let tlm = EddystoneTLMFrame(batteryVoltage: UInt16(truncatingIfNeeded: random.next()),
                                rawTemperature: Int16(truncatingIfNeeded: random.next()),
                                advertisementCount: UInt32(truncatingIfNeeded: random.next()),
                                uptimeTenths: UInt32(truncatingIfNeeded: random.next()))
    var frames: [BeaconFrame] = [
        .iBeacon(IBeaconFrame(identity: identity, measuredPower: power)),
        .altBeacon(AltBeaconFrame(manufacturerID: UInt16(truncatingIfNeeded: random.next()), identity: identity,
                                  referenceRSSI: power, manufacturerReserved: random.nextByte())),
        .eddystoneTLM(tlm),
    ]
    if let uid = EddystoneUIDFrame(namespace: bytes(10), instance: bytes(6), txPower: power) { frames.append(.eddystoneUID(uid)) }
    // Keep only URLs that fit; the decoded form of a URL is the URL itself here (lower-case scheme).
    if (try? EddystoneURLFrame.encodeURL(url)) != nil { frames.append(.eddystoneURL(EddystoneURLFrame(url: url, txPower: power))) }
    return frames
}
