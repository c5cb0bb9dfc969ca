/// What erasing a user removed (``EventStore/removeUser(named:)``): counts for the log and the
/// command's report, and the hashes of the user's tokens, which a server's authenticator forgets
/// at once.
public struct UserRemoval: Hashable, Sendable {
    /// The user's events (trashed ones too).
    public var events: Int
    /// The user's streams.
    public var streams: Int
    /// The user's accesses (tokens).
    public var accesses: Int
    /// The tombstones of the user's deleted events.
    public var deletions: Int
    /// The SHA-256 hashes of the removed tokens.
    public var tokenHashes: [String]

    /// Describes a removal.
    public init(events: Int, streams: Int, accesses: Int, deletions: Int, tokenHashes: [String]) {
        self.events = events
        self.streams = streams
        self.accesses = accesses
        self.deletions = deletions
        self.tokenHashes = tokenHashes
    }
}
