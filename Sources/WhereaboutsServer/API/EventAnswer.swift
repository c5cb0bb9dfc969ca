/// The answer to one `events.get`, read from the store a page at a time, and cut at a cap on
/// events per answer when there is one (an operator's opt-in; by default an answer holds every
/// matching event, as Pryv's does).
///
/// When the cap cuts an answer short and more events match, ``continuation()`` gives the
/// ``EventContinuation`` text the answer carries as `next`: the client repeats its request with
/// `cursor` set to it and receives the following events, as many as its `limit` still allows.
public struct EventAnswer: Sendable {
    /// The most events this answer holds, or `nil` for no cap.
    public let cap: Int?
    private var reader: EventReader
    private let requestedRemaining: Int?
    private let returnedBefore: Int

    /// The tombstones this answer lists after its events (`includeDeletions`): those of events
    /// deleted after this time, or `nil` when the client did not ask for them.
    public let deletionsSince: Double?
    private var deletionsRead: (after: EventDeletion?, finished: Bool) = (nil, false)

    /// Creates the answer to `query` (its limit, if any, being what the client still wants) for
    /// a client that already received `returnedBefore` events of it.
    init(store: any EventStore, userName: String, query: EventQuery, returnedBefore: Int, cap: Int?,
         deletionsSince: Double? = nil, pageSize: Int = 500) {
        self.deletionsSince = deletionsSince
        self.cap = cap.map { max($0, 1) }
        self.requestedRemaining = query.limit.map { max($0, 0) }
        self.returnedBefore = returnedBefore
        var capped = query
        switch (requestedRemaining, self.cap) {
        case (let requested?, let cap?): capped.limit = min(requested, cap)
        case (let requested, let cap): capped.limit = requested ?? cap
        }
        self.reader = EventReader(store: store, userName: userName, query: capped, pageSize: pageSize)
    }

    /// The next events of the answer, or `nil` when it is complete.
    public mutating func next() async throws -> [Event]? {
        try await reader.next()
    }

    /// The next page of tombstones (after every event was read), oldest deletion first; `nil`
    /// once they were all read, or when the answer lists none.
    public mutating func nextDeletions() async throws -> [EventDeletion]? {
        guard let since = deletionsSince, !deletionsRead.finished else { return nil }
        let page = try await reader.store.eventDeletions(of: reader.userName, since: since, after: deletionsRead.after,
                                                         limit: reader.pageSize)
        deletionsRead = (page.last ?? deletionsRead.after, page.count < reader.pageSize)
        return page.isEmpty ? nil : page
    }

    /// Every event of the answer (at most ``cap``), with its continuation: held in memory, so
    /// give the answer a cap or a limit.
    public mutating func collect() async throws -> (events: [Event], next: String?) {
        var events: [Event] = []
        while let page = try await next() { events += page }
        return (events, try await continuation())
    }

    /// Once the answer is read: the `next` text when the cap cut it short and more events match
    /// what the client asked for; `nil` when the client has everything.
    public func continuation() async throws -> String? {
        guard let cap, reader.count == cap, requestedRemaining.map({ $0 > cap }) ?? true, let end = reader.end,
              try await reader.hasMore()
        else { return nil }
        return EventContinuation(returned: returnedBefore + reader.count, after: end).text
    }
}

/// Where a cut `events.get` answer goes on: how many events the client has received, and the place
/// in the query's order after the last of them. Clients treat its text as opaque.
public struct EventContinuation: Hashable, Sendable {
    /// Events received so far, over every page of the answer.
    public var returned: Int
    /// The place after the last event received.
    public var after: EventCursor

    /// Creates a continuation.
    public init(returned: Int, after: EventCursor) {
        self.returned = returned
        self.after = after
    }

    /// The text form: `c1.` followed by the count, the sequence number and the time's bits in
    /// hexadecimal (exact, whatever the time).
    public var text: String {
        "c1.\(returned).\(after.sequence).\(String(after.time.bitPattern, radix: 16))"
    }

    /// The largest count a continuation may carry (far beyond any real answer; a bound so that
    /// a forged one cannot overflow the count kept across parts).
    static let maximumReturned = 1 << 40

    /// Reads the text form; `nil` when `text` is not one.
    public init?(text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 80, parts.count == 4, parts[0] == "c1",
              let returned = Int(parts[1]), (0...Self.maximumReturned).contains(returned),
              let sequence = Int64(parts[2]),
              let bits = UInt64(parts[3], radix: 16)
        else { return nil }
        let time = Double(bitPattern: bits)
        guard time.isFinite else { return nil }
        self.init(returned: returned, after: EventCursor(time: time, sequence: sequence))
    }
}
