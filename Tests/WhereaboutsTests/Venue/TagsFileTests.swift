import Foundation
import Testing
@testable import Whereabouts

/// The tags file (FORMATS.md §9): tags by identity and phones by their keys, kept apart from the
/// venue, which refuses keys.
@Suite("Tags file")
struct TagsFileTests {
    static let sampleKey: [UInt8] = [0xEC, 0x02, 0x34, 0xA3, 0x57, 0xC8, 0xAD, 0x05, 0x34, 0x10, 0x10, 0xA6, 0x0A, 0x39, 0x7D, 0x9B]

    @Test func readsKeysAndIdentitiesAndWritesThemBack() throws {
        let tags = try TagsFile.decode(Array("""
        {"tags": [{"id": "anna-phone", "irk": "EC02 34A3 57C8 AD05 3410 10A6 0A39 7D9B"},
                  {"id": "keys", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 2},
                  {"id": "band", "namespace": "EDD1EBEAC04E5DEFA017", "instance": "0BDB87539B67"}]}
        """.utf8), file: "tags.json")
        #expect(tags.map(\.id) == ["anna-phone", "keys", "band"])
        #expect(tags[0].identityResolvingKey == Self.sampleKey && tags[0].iBeacon == nil)
        #expect(tags[1].iBeacon?.major == 7 && tags[1].identityResolvingKey == nil)
        #expect(tags[2].eddystone != nil)
        // Written back: the key in lower-case digits, most significant first; read again, equal.
        let text = JSONWriter().string(from: TagsFile.encode(tags))
        #expect(text.contains(#""irk":"ec0234a357c8ad05341010a60a397d9b""#))
        #expect(try TagsFile.decode(Array(text.utf8)) == tags)
        #expect(try TagsFile.decode(Array("{}".utf8)).isEmpty)
        // A tag the reports name by its id (an ESPresense alias) needs no identity here; the venue
        // names identities only.
        #expect(try TagsFile.decode(Array(#"{"tags": [{"id": "keys"}]}"#.utf8)) == [Venue.Tag(id: "keys")])
        #expect(throws: FormatError.self) { try VenueFile.decode(Array(#"{"beacons": [], "tags": [{"id": "keys"}]}"#.utf8)) }
    }

    @Test func refusesBadKeysAndDuplicates() {
        let cases: [(String, String)] = [
            (#"{"tags": [{"id": "a", "irk": "ec0234a357c8ad05341010a60a397d9"}]}"#, "tags[0].irk: an identity resolving key is 32 hexadecimal digits"),
            (#"{"tags": [{"id": "a", "irk": "zc0234a357c8ad05341010a60a397d9b"}]}"#, "tags[0].irk: an identity resolving key is 32 hexadecimal digits"),
            (#"{"tags": [{"id": "a", "irk": "ec0234a357c8ad05341010a60a397d9b"}, {"id": "b", "irk": "EC0234A357C8AD05341010A60A397D9B"}]}"#,
             "tags[1].irk: duplicate identity resolving key (also tags[0])"),
            (#"{"tags": [{"id": "a", "irk": "ec0234a357c8ad05341010a60a397d9b"}, {"id": "a", "irk": "00000000000000000000000000000001"}]}"#,
             "tags[1].id: duplicate tag id \"a\""),
            (#"{"tags": [{"id": "", "irk": "ec0234a357c8ad05341010a60a397d9b"}]}"#, "tags[0].id: a tag id is 1 to 256 bytes"),
        ]
        for (json, message) in cases {
            #expect(throws: FormatError.self) { try TagsFile.decode(Array(json.utf8), file: "tags.json") }
            do {
                _ = try TagsFile.decode(Array(json.utf8), file: "tags.json")
            } catch {
                #expect(error.description.contains(message), "\(error.description)")
            }
        }
    }

    /// The venue is shown to every map page: a key there is refused, with where it belongs, and a
    /// venue written out leaves out the keys it was given from a tags file.
    @Test func theVenueHoldsNoKey() throws {
        let venueJSON = """
        {"beacons": [], "tags": [{"id": "anna", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 1,
                                 "irk": "ec0234a357c8ad05341010a60a397d9b"}]}
        """
        do {
            _ = try VenueFile.decode(Array(venueJSON.utf8), file: "venue.json")
            Issue.record("a key was read from the venue")
        } catch {
            #expect(error.description.contains("tags[0].irk: an identity resolving key belongs in a tags file (--tags)"))
        }
        var venue = try VenueFile.decode(Array(#"{"beacons": [], "tags": [{"id": "keys", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 1}]}"#.utf8))
        venue = try venue.addingTags([Venue.Tag(id: "anna", identityResolvingKey: Self.sampleKey)], from: "tags.json")
        #expect(venue.tags.map(\.id) == ["keys", "anna"])
        let written = JSONWriter().string(from: VenueFile.encode(venue))
        #expect(!written.contains("anna") && !written.contains("irk") && written.contains("keys"))
    }

    @Test func aTagsFileAddsNoTagTheVenueAlreadyNames() throws {
        let venue = try VenueFile.decode(Array(#"{"beacons": [], "tags": [{"id": "keys", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 1}]}"#.utf8))
        let sameName = Venue.Tag(id: "keys", identityResolvingKey: Self.sampleKey)
        let sameIdentity = Venue.Tag(id: "other", iBeacon: venue.tags[0].iBeacon)
        for (tag, message) in [(sameName, "tags[0].id: the venue already names a tag \"keys\""),
                               (sameIdentity, "tags[0].uuid: the venue already names a tag uuid/major/minor")] {
            do {
                _ = try venue.addingTags([tag], from: "tags.json")
                Issue.record("\(tag.id) was added")
            } catch {
                #expect(error.description.hasPrefix("tags.json") && error.description.contains(message), "\(error.description)")
            }
        }
    }

    /// Written readable by its owner only, replacing the file whole.
    @Test func theFileIsTheOwnersOnly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("whereabouts-tags-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("tags.json")
        try Data("old".utf8).write(to: url)
        try TagsFile.write([Venue.Tag(id: "anna", identityResolvingKey: Self.sampleKey)], to: url)
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(try TagsFile.read(from: url).first?.identityResolvingKey == Self.sampleKey)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["tags.json"])
    }
}
