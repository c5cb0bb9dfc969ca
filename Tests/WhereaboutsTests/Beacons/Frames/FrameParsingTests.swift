import Foundation
import Testing
@testable import Whereabouts

@Suite struct FrameParsingTests {
    @Test func iBeaconSpecExample() throws {
        let frame = try Advertisement.parse(FrameVectors.iBeacon)
        let expected = IBeaconFrame(identity: IBeaconIdentity(uuid: FrameVectors.uuid, major: 1, minor: 2), measuredPower: -59)
        #expect(frame == .iBeacon(expected))
        #expect(frame?.reference == .iBeacon(IBeaconIdentity(uuid: FrameVectors.uuid, major: 1, minor: 2)))
        #expect(frame?.measuredPower == -59)  // 0xC5 = 197 - 256
        #expect(frame?.kind == .iBeacon)
    }

    @Test func altBeaconSpecLayout() throws {
        guard case .altBeacon(let frame)? = try Advertisement.parse(FrameVectors.altBeacon) else {
            Issue.record("not an AltBeacon frame"); return
        }
        #expect(frame.manufacturerID == 0x0118)  // 18 01 little-endian
        #expect(frame.identity == IBeaconIdentity(uuid: UUID(uuidString: "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6")!, major: 1, minor: 2))
        #expect(frame.beaconID == Array(FrameVectors.altBeacon[9..<29]))
        #expect(frame.referenceRSSI == -59)
        #expect(frame.manufacturerReserved == 0)
        #expect(BeaconFrame.altBeacon(frame).measuredPower == -59)
        #expect(BeaconFrame.altBeacon(frame).reference == .iBeacon(frame.identity))
    }

    @Test func eddystoneUIDWithAndWithoutReservedBytes() throws {
        let identity = EddystoneIdentity(namespace: "8b0ca750095477cb3e77", instance: "000000000001")!
        let expected = BeaconFrame.eddystoneUID(EddystoneUIDFrame(identity: identity, txPower: -18))
        #expect(try Advertisement.parse(FrameVectors.eddystoneUID) == expected)
        #expect(try Advertisement.parse(FrameVectors.eddystoneUIDShort) == expected)
        #expect(expected.reference == .eddystone(identity))
        #expect(expected.measuredPower == -59)  // -18 dBm at 0 m - 41 dB
        guard case .eddystoneUID(let frame) = expected else { return }
        #expect(frame.namespaceBytes == hexBytes("8B 0C A7 50 09 54 77 CB 3E 77"))
        #expect(frame.instanceBytes == hexBytes("00 00 00 00 00 01"))
        #expect(frame.identity.description == "8b0ca750095477cb3e77/000000000001")
    }

    @Test func eddystoneURLSpecExample() throws {
        let frame = try Advertisement.parse(FrameVectors.eddystoneURL)
        #expect(frame == .eddystoneURL(EddystoneURLFrame(url: "https://goo.gl/Aq18zF", txPower: -18)))
        #expect(frame?.reference == nil)
        #expect(frame?.measuredPower == -59)
        #expect(frame?.reading(rssi: -70) == nil)
    }

    @Test func eddystoneURLExpansionCodes() throws {
        // Scheme 0x00 "http://www.", "example", 0x00 ".com/", "a", 0x0B ".info": service data of
        // 2 + 3 + 7 + 1 + 1 + 1 = 15 bytes, length byte 0x10.
        let bytes = hexBytes("10 16 AA FE 10 00 00  65 78 61 6D 70 6C 65 00 61 0B")
        #expect(try Advertisement.parse(bytes) == .eddystoneURL(EddystoneURLFrame(url: "http://www.example.com/a.info", txPower: 0)))
        #expect(try EddystoneURLFrame.decodeURL(hexBytes("02 61 07 2F 62 0D")) == "http://a.com/b.gov")
    }

    @Test func eddystoneTLM() throws {
        guard case .eddystoneTLM(let frame)? = try Advertisement.parse(FrameVectors.eddystoneTLM) else {
            Issue.record("not a TLM frame"); return
        }
        #expect(frame.batteryVoltage == 3000)
        #expect(frame.rawTemperature == 0x1780)
        #expect(frame.temperature == 23.5)
        #expect(frame.advertisementCount == 1000)
        #expect(frame.uptimeTenths == 10000)
        #expect(frame.uptime == 1000)
        #expect(BeaconFrame.eddystoneTLM(frame).reference == nil)
        #expect(BeaconFrame.eddystoneTLM(frame).measuredPower == nil)
    }

    @Test func tlmTemperatureEncodings() throws {
        var bytes = FrameVectors.eddystoneTLM
        bytes[15] = 0x80; bytes[16] = 0x00  // 0x8000: not supported
        guard case .eddystoneTLM(let unsupported)? = try Advertisement.parse(bytes) else { Issue.record(); return }
        #expect(unsupported.temperature == nil)
        bytes[15] = 0xFF; bytes[16] = 0x80  // 0xFF80 = -128 as Int16, -128 / 256 = -0.5 °C
        guard case .eddystoneTLM(let negative)? = try Advertisement.parse(bytes) else { Issue.record(); return }
        #expect(negative.temperature == -0.5)

        var frame = EddystoneTLMFrame(batteryVoltage: 0, advertisementCount: 0, uptimeTenths: 0)
        #expect(frame.temperature == nil)
        frame.temperature = 21.3   // 21.3 × 256 = 5452.8 → 5453
        #expect(frame.rawTemperature == 5453)
        #expect(frame.temperature == 5453.0 / 256)
        frame.temperature = 500    // clamped to Int16.max = 32767
        #expect(frame.rawTemperature == 32767)
        frame.temperature = -500   // clamped to -32767, keeping 0x8000 for "not supported"
        #expect(frame.rawTemperature == -32767)
        frame.temperature = nil
        #expect(frame.rawTemperature == EddystoneTLMFrame.temperatureNotSupported)
    }

    @Test func readingCarriesMeasuredPower() throws {
        let frame = try #require(try Advertisement.parse(FrameVectors.iBeacon))
        let reading = frame.reading(rssi: -71)
        #expect(reading == Reading(beacon: .iBeacon(IBeaconIdentity(uuid: FrameVectors.uuid, major: 1, minor: 2)), rssi: -71, txPower: -59))
    }

    @Test func wellFormedDataWithoutBeaconFrames() throws {
        #expect(try Advertisement.parse([UInt8]()) == nil)
        #expect(try Advertisement.parse(hexBytes("02 01 06")) == nil)
        // Apple data that is not an iBeacon (type 0x10), too short to tell, other companies.
        #expect(try Advertisement.parse(hexBytes("02 01 06 07 FF 4C 00 10 02 0B 00")) == nil)
        #expect(try Advertisement.parse(hexBytes("03 FF 4C 00")) == nil)
        #expect(try Advertisement.parse(hexBytes("05 FF 59 00 01 02")) == nil)
        #expect(try Advertisement.parse(hexBytes("01 FF")) == nil)
        // Service data of another UUID; Eddystone EID (0x30); an encrypted TLM (version 0x01).
        #expect(try Advertisement.parse(hexBytes("05 16 0F 18 64 00")) == nil)
        #expect(try Advertisement.parse(hexBytes("0E 16 AA FE 30 EE 01 02 03 04 05 06 07 08 09")) == nil)
        #expect(try Advertisement.parse(hexBytes("07 16 AA FE 20 01 AB CD")) == nil)
        // A complete local name only.
        #expect(try Advertisement.parse(hexBytes("05 09 61 62 63 64")) == nil)
    }

    @Test func zeroLengthEndsTheSignificantPart() throws {
        // Legacy reports are often padded with zeros to 31 bytes.
        let padded = FrameVectors.iBeacon + [0x00]
        #expect(padded.count == 31)
        #expect(try Advertisement.parse(padded, kind: .legacy)?.kind == .iBeacon)
        // Whatever follows a zero length byte is not read, even if it would be malformed.
        #expect(try Advertisement.parse(hexBytes("02 01 06 00 FF FF 4C")) == nil)
        #expect(try Advertisement.parse(hexBytes("00") + FrameVectors.iBeacon) == nil)
        #expect(try Advertisement.structures(hexBytes("02 01 06 00 05 09")).count == 1)
    }

    @Test func firstFrameWinsAndLaterStructuresAreChecked() throws {
        let both = Array(FrameVectors.iBeacon.dropFirst(3)) + Array(FrameVectors.eddystoneUID.dropFirst(3))
        #expect(try Advertisement.parse(both)?.kind == .iBeacon)
        // A structure after the frame that runs past the end still makes the data malformed:
        // iBeacon structure is 27 bytes (0…26), the next length byte at 27 declares 5, 1 follows.
        let broken = Array(FrameVectors.iBeacon.dropFirst(3)) + [0x05, 0x09]
        #expect(throws: AdvertisementError.structureOverrun(offset: 27, length: 5, available: 1)) {
            try Advertisement.parse(broken)
        }
    }

    @Test func lengthLimitDependsOnAdvertisingKind() throws {
        // 32 bytes: the iBeacon vector plus a structure of only a type byte (01 0A: Tx power level, no data).
        let data = FrameVectors.iBeacon + [0x01, 0x0A]
        #expect(data.count == 32)
        #expect(throws: AdvertisementError.dataTooLong(length: 32, maximum: 31)) { try Advertisement.parse(data, kind: .legacy) }
        #expect(try Advertisement.parse(data, kind: .extended)?.kind == .iBeacon)
        // An extended advertisement of 295 bytes: 11 name structures (length 0x19, 26 bytes each,
        // 286 bytes), then a 9-byte Eddystone URL structure carrying "http://a.com" (02 61 07).
        var long = [UInt8]()
        for _ in 0..<11 { long += [0x19, 0x09] + [UInt8](repeating: 0x41, count: 24) }
        long += hexBytes("08 16 AA FE 10 F0 02 61 07")
        #expect(long.count == 295)
        #expect(try Advertisement.parse(long) == .eddystoneURL(EddystoneURLFrame(url: "http://a.com", txPower: -16)))
        let tooLong = [UInt8](repeating: 0, count: 1651)
        #expect(throws: AdvertisementError.dataTooLong(length: 1651, maximum: 1650)) { try Advertisement.parse(tooLong) }
    }

    @Test func structuresListing() throws {
        let structures = try Advertisement.structures(FrameVectors.eddystoneURL)
        #expect(structures.map(\.offset) == [0, 3, 7])
        #expect(structures.map(\.type) == [0x01, 0x03, 0x16])
        #expect(structures[0].data == [0x06])
        #expect(structures[1].data == [0xAA, 0xFE])
        #expect(structures[2].data.count == 0x13 - 1)
        #expect(throws: AdvertisementError.structureOverrun(offset: 3, length: 3, available: 2)) {
            try Advertisement.structures(hexBytes("02 01 06 03 03 AA"))
        }
    }

    @Test func slicesAndNonContiguousCollections() throws {
        let padded = [0xEE, 0xEE] + FrameVectors.iBeacon
        #expect(try Advertisement.parse(padded[2...])?.kind == .iBeacon)
        #expect(try Advertisement.parse(FrameVectors.iBeacon.lazy.map { $0 })?.kind == .iBeacon)
        // Offsets count from the start of the slice, not of its base array.
        let truncated = padded[2..<20]
        #expect(throws: AdvertisementError.structureOverrun(offset: 3, length: 26, available: 14)) {
            try Advertisement.parse(truncated)
        }
        let fromBuffer = FrameVectors.iBeacon.withUnsafeBytes { buffer in
            Result { () throws(AdvertisementError) in try Advertisement.parse(buffer) }
        }
        #expect(try fromBuffer.get()?.kind == .iBeacon)
    }
}
