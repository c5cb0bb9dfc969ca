/// Reads the events matching a query a page at a time, so that a reader of a whole history holds
/// one page in memory, never the history.
///
/// Each page is one short read of the store, which resumes where the last page ended (an
/// ``EventCursor``): nothing stays open between pages, and a page deep in a history costs what
/// the first one does. The query's `skip` applies once, before the first page; its `limit`, if
/// any, bounds the events read in all.
///
/// ```swift
/// var reader = EventReader(store: store, userName: "alice",
///                          query: EventQuery(fromTime: 0, toTime: 2e9, sortAscending: true))
/// while let events = try await reader.next() {
///     for event in events { print(event.id) }
/// }
/// ```
public struct EventReader: Sendable {
    /// The store read from.
    public let store: any EventStore
    /// Whose events.
    public let userName: String
    /// The events per page, 1 to 10,000 (default 500).
    public let pageSize: Int
    /// Just after the last event read: a later query's ``EventQuery/after`` to read on from there.
    public private(set) var end: EventCursor?
    /// How many events the pages so far held.
    public private(set) var count = 0

    private var query: EventQuery
    private let limit: Int?
    private var finished = false

    /// Creates a reader of `query`'s events (its `after`, `skip` and `limit` included).
    public init(store: any EventStore, userName: String, query: EventQuery, pageSize: Int = 500) {
        self.store = store
        self.userName = userName
        self.query = query
        self.limit = query.limit.map { max($0, 0) }
        self.pageSize = min(max(pageSize, 1), 10_000)
        self.end = query.after
    }

    /// The next page, in the query's order; `nil` once every matching event was read.
    public mutating func next() async throws -> [Event]? {
        guard !finished else { return nil }
        let wanted = limit.map { min($0 - count, pageSize) } ?? pageSize
        guard wanted > 0 else {
            finished = true
            return nil
        }
        query.limit = wanted
        query.after = end
        let page = try await store.eventPage(matching: query, for: userName)
        if let previous = end, let pageEnd = page.end, !Self.isPast(pageEnd, previous, ascending: query.sortAscending) {
            // A store that answered a page which does not move on would make this loop forever.
            throw StoreError.corrupt("a page of events ended at \(pageEnd), not past its cursor \(previous)")
        }
        query.skip = 0
        count += page.events.count
        if let pageEnd = page.end { end = pageEnd }
        if page.events.count < wanted { finished = true }
        guard !page.events.isEmpty else {
            finished = true
            return nil
        }
        return page.events
    }

    /// Whether `place` comes after `cursor` in the order of a query.
    private static func isPast(_ place: EventCursor, _ cursor: EventCursor, ascending: Bool) -> Bool {
        ascending ? (place.time, place.sequence) > (cursor.time, cursor.sequence)
            : (place.time, place.sequence) < (cursor.time, cursor.sequence)
    }

    /// Whether at least one more event matches after those read (one row read from the store).
    /// It ignores the query's limit: it tells whether the history goes on, not whether this
    /// reader would read more.
    public func hasMore() async throws -> Bool {
        var probe = query
        probe.after = end
        probe.limit = 1
        return try await !store.eventPage(matching: probe, for: userName).events.isEmpty
    }
}
