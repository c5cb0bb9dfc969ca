/// What one transaction of a retention purge over some streams deleted
/// (``EventStore/purgeEvents(of:inStreams:endedBefore:startingAt:limit:)``).
public struct PurgeBatch: Hashable, Sendable {
    /// Events deleted.
    public var events: Int
    /// The start time of the latest event deleted, where the next batch begins; `nil` when none was.
    public var lastTime: Double?

    /// A batch that deleted `events`, the latest starting at `lastTime`.
    public init(events: Int, lastTime: Double?) {
        self.events = events
        self.lastTime = lastTime
    }
}
