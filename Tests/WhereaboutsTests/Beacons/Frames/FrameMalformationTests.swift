import Testing
@testable import Whereabouts

/// Every malformation gives its typed error, with the offset of the byte it is about.
@Suite struct FrameMalformationTests {
    private func expectError(_ expected: AdvertisementError, _ bytes: [UInt8],
                             kind: Advertisement.Kind = .extended, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: expected, sourceLocation: sourceLocation) { try Advertisement.parse(bytes, kind: kind) }
    }

    @Test func truncatedAdvertisements() throws {
        // The iBeacon structure's length byte at 3 declares 26 bytes; cut at 20 bytes, 16 follow it.
        expectError(.structureOverrun(offset: 3, length: 26, available: 16), Array(FrameVectors.iBeacon.prefix(20)))
        // Cut right after the length byte: nothing follows it.
        expectError(.structureOverrun(offset: 3, length: 26, available: 0), Array(FrameVectors.iBeacon.prefix(4)))
        // Cut inside the flags structure.
        expectError(.structureOverrun(offset: 0, length: 2, available: 1), [0x02, 0x01])
        // Every proper prefix of every vector that ends inside a structure is an overrun.
        // (Prefixes ending between structures, after 3 or 7 bytes, are well formed without a frame.)
        for vector in FrameVectors.all {
            for end in 1..<vector.count {
                let prefix = Array(vector.prefix(end))
                if end == 3 || (end == 7 && vector[3] == 0x03) {
                    #expect(try Advertisement.parse(prefix) == nil)
                } else {
                    #expect(throws: AdvertisementError.self) { try Advertisement.parse(prefix) }
                }
            }
        }
    }

    @Test func lengthByteCorruption() {
        var bytes = FrameVectors.iBeacon
        bytes[3] = 0x1B  // one more than the 26 bytes that follow
        expectError(.structureOverrun(offset: 3, length: 27, available: 26), bytes)
        bytes[3] = 0xFF
        expectError(.structureOverrun(offset: 3, length: 255, available: 26), bytes)
        // Length 0x19 makes the iBeacon structure 24 data bytes and leaves C5 as a length byte at 29.
        bytes[3] = 0x19
        expectError(.invalidFrameLength(.iBeacon, offset: 3, length: 24), bytes)
        // The flags length grown to 3 swallows the iBeacon length byte; 1A... is then read as
        // length 0xFF (the AD type byte) at offset 4.
        bytes = FrameVectors.iBeacon
        bytes[0] = 0x03
        expectError(.structureOverrun(offset: 4, length: 0xFF, available: 25), bytes)
    }

    @Test func wrongLengthsInsideFrames() {
        // iBeacon: AD length 0x1A but the iBeacon length byte (offset 8) says 0x14.
        var iBeacon = FrameVectors.iBeacon
        iBeacon[8] = 0x14
        expectError(.invalidIBeaconLength(offset: 8, value: 0x14), iBeacon)
        // iBeacon with one byte too many: AD length 0x1B, 26 data bytes.
        expectError(.invalidFrameLength(.iBeacon, offset: 0, length: 26), hexBytes("1B") + Array(FrameVectors.iBeacon[4...]) + [0x00])
        // iBeacon type with nothing after it: 4C 00 02, 3 data bytes.
        expectError(.invalidFrameLength(.iBeacon, offset: 0, length: 3), hexBytes("04 FF 4C 00 02"))
        // AltBeacon one byte short (no reserved byte): AD length 0x1A, 25 data bytes.
        expectError(.invalidFrameLength(.altBeacon, offset: 0, length: 25), hexBytes("1A") + Array(FrameVectors.altBeacon[4..<30]))
        // Eddystone-UID of 19 frame bytes (one RFU byte): 21 data bytes.
        expectError(.invalidFrameLength(.eddystoneUID, offset: 7, length: 21),
                    Array(FrameVectors.eddystoneUID[0..<7]) + [0x16] + Array(FrameVectors.eddystoneUID[8..<30]))
        // Eddystone-UID cut to 2 bytes of namespace: 0x07 → 6 data bytes.
        expectError(.invalidFrameLength(.eddystoneUID, offset: 0, length: 6), hexBytes("07 16 AA FE 00 EE 8B 0C"))
        // Eddystone-URL with 18 URL bytes: 2 + 3 + 18 = 23 data bytes.
        expectError(.invalidFrameLength(.eddystoneURL, offset: 0, length: 23),
                    hexBytes("18 16 AA FE 10 EE 03") + [UInt8](repeating: 0x61, count: 18))
        // Eddystone-URL without its scheme byte: 4 data bytes.
        expectError(.invalidFrameLength(.eddystoneURL, offset: 0, length: 4), hexBytes("05 16 AA FE 10 EE"))
        // Eddystone-TLM one byte short: 15 data bytes.
        expectError(.invalidFrameLength(.eddystoneTLM, offset: 7, length: 15), Array(FrameVectors.eddystoneTLM[0..<7]) + [0x10] + Array(FrameVectors.eddystoneTLM[8..<24]))
        // Eddystone-TLM without a version byte.
        expectError(.invalidFrameLength(.eddystoneTLM, offset: 0, length: 3), hexBytes("04 16 AA FE 20"))
        // Eddystone service data with no frame type.
        expectError(.missingEddystoneFrameType(offset: 3), hexBytes("02 01 06 03 16 AA FE"))
    }

    @Test func badURLCodes() {
        // Scheme byte 0x04 at offset 13 (flags 3, UUID list 4, service data header 4, type, power).
        var bytes = FrameVectors.eddystoneURL
        bytes[13] = 0x04
        expectError(.invalidURLScheme(offset: 13, value: 0x04), bytes)
        // Reserved codes inside the URL, at offset 16 (the second "o" of goo.gl).
        for reserved: UInt8 in [0x0E, 0x1F, 0x20, 0x7F, 0x80, 0xFF] {
            bytes = FrameVectors.eddystoneURL
            bytes[16] = reserved
            expectError(.invalidURLByte(offset: 16, value: reserved), bytes)
        }
        // The public decoder counts offsets from its first byte.
        #expect(throws: AdvertisementError.invalidURLByte(offset: 2, value: 0x20)) { try EddystoneURLFrame.decodeURL([0x03, 0x61, 0x20]) }
        #expect(throws: AdvertisementError.invalidURLScheme(offset: 0, value: 0x09)) { try EddystoneURLFrame.decodeURL([0x09]) }
        #expect(throws: AdvertisementError.invalidFrameLength(.eddystoneURL, offset: 0, length: 0)) { try EddystoneURLFrame.decodeURL([]) }
    }

    @Test func oversizedLegacyData() {
        let data = FrameVectors.eddystoneUID + [0x00]  // 32 bytes, even though the extra byte is padding
        expectError(.dataTooLong(length: 32, maximum: 31), data, kind: .legacy)
        #expect(throws: Never.self) { try Advertisement.parse(data, kind: .extended) }
        #expect(throws: AdvertisementError.dataTooLong(length: 32, maximum: 31)) {
            try Advertisement.structures(data, kind: .legacy)
        }
    }

    @Test func messagesNameWhatAndWhere() {
        #expect(AdvertisementError.structureOverrun(offset: 3, length: 26, available: 16).description
            == "AD structure at byte 3 declares 26 bytes but only 16 follow")
        #expect(AdvertisementError.invalidFrameLength(.eddystoneUID, offset: 7, length: 21).description
            == "Eddystone-UID structure at byte 7 carries 21 data bytes; expected 20 or 22")
        #expect(AdvertisementError.invalidIBeaconLength(offset: 8, value: 0x14).description
            == "iBeacon length byte at byte 8 is 0x14; expected 0x15")
        #expect(AdvertisementError.invalidURLByte(offset: 16, value: 0xFF).description
            == "Eddystone-URL byte at byte 16 is 0xFF, a reserved code")
        #expect(AdvertisementError.dataTooLong(length: 32, maximum: 31).description
            == "advertising data is 32 bytes long; at most 31 fit in the advertising PDU")
        #expect(AdvertisementError.invalidURLScheme(offset: 13, value: 0x04).offset == 13)
        #expect(AdvertisementError.dataTooLong(length: 32, maximum: 31).offset == 31)
    }
}
