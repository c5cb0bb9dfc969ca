/// A place in a query's order, just after one event: where the next page of the answer starts.
///
/// Events are ordered by `time`, then by the order the store received them (`sequence`), so a
/// cursor names one place exactly even when many events share a time. Reading on from a cursor
/// costs the same on the millionth event as on the first: the store seeks its time index there,
/// where `skip` would read and drop everything before.
///
/// ```swift
/// var query = EventQuery(fromTime: 0, sortAscending: true, limit: 500)
/// var page = try await store.eventPage(matching: query, for: "alice")
/// while let end = page.end, page.events.count == 500 {
///     query.after = end
///     page = try await store.eventPage(matching: query, for: "alice")
/// }
/// ```
public struct EventCursor: Hashable, Sendable {
    /// The time of the last event read.
    public var time: Double
    /// The store's sequence number of the last event read (its order of arrival).
    public var sequence: Int64

    /// Creates a cursor just after the event at `time` with this sequence number.
    public init(time: Double, sequence: Int64) {
        self.time = time
        self.sequence = sequence
    }
}

/// One page of a query's answer: its events, and where it ended.
public struct EventPage: Sendable {
    /// The events, in the query's order.
    public var events: [Event]
    /// Just after the last event of the page: the next query's ``EventQuery/after`` to read on.
    /// `nil` when the page is empty.
    public var end: EventCursor?

    /// Creates a page.
    public init(events: [Event], end: EventCursor?) {
        self.events = events
        self.end = end
    }
}
