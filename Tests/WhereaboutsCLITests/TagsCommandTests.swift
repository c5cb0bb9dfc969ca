import Foundation
import Testing

/// `whereabouts tags` and `--tags`: a phone named by its key, from `tags add` (by hand or from
/// BlueZ's record) to a capture's changing address recorded as the phone.
@Suite("whereabouts tags")
struct TagsCommandTests {
    /// The specification's sample key (Vol 3, Part H, Appendix D.7), most significant first; it
    /// made the address 70:81:94:0D:FB:AA.
    static let key = "ec0234a357c8ad05341010a60a397d9b"

    /// A btsnoop capture (H4) of five reports of the sample's address (random, no beacon frame:
    /// an Apple "nearby" advertisement, as an iPhone's) at −62 dBm, and one of a static random address.
    static func phoneCapture(at url: URL) throws {
        var bytes = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        func record(_ packet: [UInt8], time: Double) {
            let timestamp = UInt64(0x00DC_DDB3_0F2F_8000) + UInt64(time * 1_000_000)
            for value in [UInt32(packet.count), UInt32(packet.count), 0b11, 0, UInt32(timestamp >> 32), UInt32(timestamp & 0xFFFF_FFFF)] {
                bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            }
            bytes += packet
        }
        let data: [UInt8] = [0x02, 0x01, 0x1A, 0x07, 0xFF, 0x4C, 0x00, 0x10, 0x02, 0x0B, 0x00]
        let addresses: [[UInt8]] = [[0xAA, 0xFB, 0x0D, 0x94, 0x81, 0x70], [0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0]]
        for round in 0..<5 {
            for (index, address) in addresses.enumerated() {
                let parameters: [UInt8] = [0x02, 0x01, 0x00, 0x01] + address + [UInt8(data.count)] + data + [UInt8(bitPattern: -62)]
                record([0x04, 0x3E, UInt8(parameters.count)] + parameters, time: 1_700_000_000 + Double(round) + Double(index) * 0.01)
            }
        }
        try Data(bytes).write(to: url)
    }

    @Test func aPhoneAddedByItsKeyIsRecordedByNameFromItsChangingAddress() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags.json").path
        let added = try await CommandRunner.run(["tags", "add", "anna-phone", "--irk", Self.key.uppercased(), "--file", tags])
        #expect(added.status == 0 && added.standardError.contains("Added anna-phone in \(tags) (1 tag)."), "\(added.standardError)")
        let permissions = try FileManager.default.attributesOfItem(atPath: tags)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let capture = directory.appendingPathComponent("phone.log")
        try Self.phoneCapture(at: capture)
        let out = directory.appendingPathComponent("phone.jsonl")
        let recorded = try await CommandRunner.run(["record", "--btsnoop", capture.path, "--tags", tags, "-o", out.path])
        #expect(recorded.status == 0, "\(recorded.standardError)")
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5)
        for line in lines {
            let scan = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let readings = try #require(scan["readings"] as? [[String: Any]])
            #expect(readings.count == 1 && readings[0]["beacon"] as? String == "anna-phone" && readings[0]["rssi"] as? Double == -62)
        }
        // Without the tags file, the phone is no one: nothing is recorded.
        let unnamed = try await CommandRunner.run(["record", "--btsnoop", capture.path, "-o", out.path])
        #expect(unnamed.status == 0)
        #expect(try String(contentsOf: out, encoding: .utf8).isEmpty)
    }

    @Test func addListAndRemoveKeepTheFileRight() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags.json").path
        // BlueZ keeps the key least significant byte first: read from its record, it is the sample's.
        let info = directory.appendingPathComponent("info")
        try Data("[General]\nName=iPhone\n\n[IdentityResolvingKey]\nKey=9B7D390AA610103405ADC857A33402EC\n\n[LocalSignatureKey]\nKey=00\n".utf8).write(to: info)
        #expect(try await CommandRunner.run(["tags", "add", "anna-phone", "--bluez-info", info.path, "--file", tags]).status == 0)
        #expect(try String(contentsOfFile: tags, encoding: .utf8).contains(Self.key))
        #expect(try await CommandRunner.run(["tags", "add", "keys", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "7",
                                       "--minor", "2", "--file", tags]).status == 0)
        // The iPhone keychain's form (and Home Assistant's base64): least significant first,
        // base64 or hex; Home Assistant's hexadecimal form, with its prefix, as --irk.
        let other = directory.appendingPathComponent("other.json").path
        for stored in ["m305CqYQEDQFrchXozQC7A==", "9b7d390aa610103405adc857a33402ec"] {
            try? FileManager.default.removeItem(atPath: other)
            #expect(try await CommandRunner.run(["tags", "add", "cleo-phone", "--stored-irk", stored, "--file", other]).status == 0)
            #expect(try String(contentsOfFile: other, encoding: .utf8).contains(Self.key))
        }
        try? FileManager.default.removeItem(atPath: other)
        #expect(try await CommandRunner.run(["tags", "add", "cleo-phone", "--irk", "irk:" + Self.key, "--file", other]).status == 0)
        #expect(try String(contentsOfFile: other, encoding: .utf8).contains(Self.key))
        #expect(try await CommandRunner.run(["tags", "add", "car-keys", "--by-id", "--file", tags]).status == 0)
        let listed = try await CommandRunner.run(["tags", "list", "--file", tags])
        #expect(listed.standardOutput == "anna-phone\tirk ec02…\nkeys\tiBeacon E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 7/2\ncar-keys\tby id\n")
        #expect(!listed.standardOutput.contains(Self.key))

        // Refused, the file unchanged: the same key under another name, a record without a key
        // (a bad key and no identity are refused before the file is read: `badIdentitiesAreRefused`).
        let before = try Data(contentsOf: URL(fileURLWithPath: tags))
        let duplicate = try await CommandRunner.run(["tags", "add", "ben-phone", "--irk", Self.key, "--file", tags])
        #expect(duplicate.status != 0 && duplicate.standardError.contains("the tag \"anna-phone\" already has this identity"))
        try Data("[General]\nName=Watch\n".utf8).write(to: info)
        let keyless = try await CommandRunner.run(["tags", "add", "watch", "--bluez-info", info.path, "--file", tags])
        #expect(keyless.status != 0 && keyless.standardError.contains("no [IdentityResolvingKey]"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: tags)) == before)

        // Adding a name again replaces its identity; remove takes it out.
        let replaced = try await CommandRunner.run(["tags", "add", "keys", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "7",
                                              "--minor", "3", "--file", tags])
        #expect(replaced.standardError.contains("Replaced keys"))
        #expect(try await CommandRunner.run(["tags", "remove", "anna-phone", "--file", tags]).status == 0)
        #expect(try await CommandRunner.run(["tags", "remove", "car-keys", "--file", tags]).status == 0)
        #expect(try await CommandRunner.run(["tags", "list", "--file", tags]).standardOutput == "keys\tiBeacon E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 7/3\n")
        let missing = try await CommandRunner.run(["tags", "remove", "anna-phone", "--file", tags])
        #expect(missing.status != 0 && missing.standardError.contains("names no tag \"anna-phone\""))

        // A venue with a key is refused with where the key belongs.
        let venue = directory.appendingPathComponent("venue.json")
        try Data(#"{"beacons": [], "receivers": [{"id": "n1", "x": 0, "y": 0}], "tags": [{"id": "a", "irk": "\#(Self.key)"}]}"#.utf8).write(to: venue)
        let fused = try await CommandRunner.run(["fuse", "--venue", venue.path, "--recording", "-"], input: Data())
        #expect(fused.status != 0 && fused.standardError.contains("belongs in a tags file (--tags)"), "\(fused.standardError)")
    }

    /// A key of the wrong length, or no identity at all, is refused with the command's usage.
    @Test func badIdentitiesAreRefused() {
        let short = InProcessCommand.parse(["tags", "add", "cleo-phone", "--stored-irk", "m305CqYQEDQF", "--file", "other.json"])
        #expect(short.status == 64 && short.standardError.contains("--stored-irk takes 16 bytes"))
        let bad = InProcessCommand.parse(["tags", "add", "ben-phone", "--irk", "ec02", "--file", "tags.json"])
        #expect(bad.status == 64 && bad.standardError.contains("--irk takes 32 hexadecimal digits"))
        #expect(bad.standardError.contains("Usage: whereabouts tags add"))
        let none = InProcessCommand.parse(["tags", "add", "ben-phone", "--file", "tags.json"])
        #expect(none.status == 64 && none.standardError.contains("Give one identity"))
    }
}
