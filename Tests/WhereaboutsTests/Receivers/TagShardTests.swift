import Testing
@testable import Whereabouts

/// Tags shared among processes by a hash of their names: the hash is FNV-1a (64 bits) of the
/// name's UTF-8, the same everywhere; each tag belongs to exactly one shard.
@Suite("Tag shards")
struct TagShardTests {
    /// FNV-1a of "a" is 0xAF63DC4C8601EC8C (the published test vector), of "anna" 0x96BCCA83B55AA4BB:
    /// their remainders pick the shards.
    @Test func theShardIsTheNamesHashModuloTheCount() throws {
        #expect(TagShard.index(ofTag: "a", count: 2) == Int(0xAF63_DC4C_8601_EC8C as UInt64 % 2) + 1)
        #expect(TagShard.index(ofTag: "a", count: 7) == 6)
        #expect(TagShard.index(ofTag: "anna", count: 2) == 2)
        #expect(TagShard.index(ofTag: "anna", count: 3) == 1)
        #expect(TagShard.index(ofTag: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0_Maj:7_Min:2", count: 7) == 6)
        let first = try TagShard(parsing: "1/2"), second = try TagShard(parsing: "2/2")
        for tag in ["anna", "a", "keys", "phone", ""] {
            #expect(first.owns(tag) != second.owns(tag), "\(tag) belongs to exactly one of two")
        }
        #expect(try TagShard(parsing: "1/1").owns("anything"))
        #expect(first.description == "1/2")
    }

    @Test(arguments: ["0/2", "3/2", "1/0", "1/1025", "1", "a/b", "1/2/3", "", "-1/2"])
    func badShardsAreRefused(_ text: String) {
        #expect(throws: TagShard.ParseError.self) { try TagShard(parsing: text) }
    }
}
