/// One of several fusion processes that share the tags receivers hear: a tag belongs to exactly
/// one of them, the one whose ``index`` its name's hash gives (FNV-1a, 64 bits, of the name's
/// UTF-8, modulo ``count``) — the same on every machine and every run, so processes that read the
/// same reports (one broker's) each fuse their own tags, none twice and none missed.
///
/// ```swift
/// let shard = try TagShard(parsing: "1/2")
/// shard.owns("anna")   // true in exactly one of "1/2" and "2/2"
/// ```
public struct TagShard: Hashable, Sendable, CustomStringConvertible {
    /// This process's place, from 1 to ``count``.
    public let index: Int
    /// How many processes share the tags.
    public let count: Int
    /// The most processes that may share the tags.
    public static let maximumCount = 1_024

    /// Why text is not a shard.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        /// What is wrong.
        public var description: String
    }

    /// The shard `index` of `count` (1 ≤ index ≤ count ≤ ``maximumCount``), or `nil`.
    public init?(index: Int, count: Int) {
        guard (1...Self.maximumCount).contains(count), (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// A shard written `INDEX/COUNT`, such as `1/2`.
    public init(parsing text: String) throws(ParseError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
              let shard = TagShard(index: index, count: count) else {
            throw ParseError(description: "a shard is INDEX/COUNT with 1 ≤ INDEX ≤ COUNT ≤ \(Self.maximumCount), such as 1/2; found \"\(text.prefix(40))\"")
        }
        self = shard
    }

    /// `INDEX/COUNT`.
    public var description: String { "\(index)/\(count)" }

    /// Whether the tag named `tag` (as ``ReceiverFusion/tagName(for:)`` names it) is this
    /// process's.
    public func owns(_ tag: String) -> Bool { Self.index(ofTag: tag, count: count) == index }

    /// The shard, from 1 to `count`, that `tag` belongs to.
    public static func index(ofTag tag: String, count: Int) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in tag.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return Int(hash % UInt64(max(1, count))) + 1
    }
}
