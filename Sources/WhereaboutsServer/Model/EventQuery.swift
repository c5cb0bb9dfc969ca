/// Which of a user's events to read, after the API's defaults have been applied.
public struct EventQuery: Hashable, Sendable {
    /// Which events, by their trash state.
    public enum State: String, Sendable, CaseIterable {
        /// Events not in the trash (the default).
        case `default`
        /// Only trashed events.
        case trashed
        /// Both.
        case all
    }

    /// Events that end at or after this time (seconds since 1970); `nil` for no lower bound.
    public var fromTime: Double?
    /// Events that start at or before this time; `nil` for no upper bound.
    public var toTime: Double?
    /// Events in at least one of these streams; `nil` for any stream.
    public var streamIds: Set<String>?
    /// Events of these exact types.
    public var types: Set<String>?
    /// Events whose type is in one of these classes (from `class/*` filters).
    public var typeClasses: Set<String>?
    /// Only running (`true`) or only finished (`false`) events; `nil` for both.
    public var running: Bool?
    /// Oldest first when `true`, newest first otherwise.
    public var sortAscending: Bool
    /// How many matching events to pass over before the first one returned.
    public var skip: Int
    /// The most events to return; `nil` for all.
    public var limit: Int?
    /// Events by trash state.
    public var state: State
    /// Only events changed after this time.
    public var modifiedSince: Double?
    /// Only events after this place in the query's order (the end of a previous page); `skip`
    /// still applies after it.
    public var after: EventCursor?

    /// Creates a query; with no arguments it reads every event not in the trash, newest first.
    public init(
        fromTime: Double? = nil, toTime: Double? = nil, streamIds: Set<String>? = nil,
        types: Set<String>? = nil, typeClasses: Set<String>? = nil, running: Bool? = nil,
        sortAscending: Bool = false, skip: Int = 0, limit: Int? = nil, state: State = .default,
        modifiedSince: Double? = nil, after: EventCursor? = nil
    ) {
        self.fromTime = fromTime
        self.toTime = toTime
        self.streamIds = streamIds
        self.types = types
        self.typeClasses = typeClasses
        self.running = running
        self.sortAscending = sortAscending
        self.skip = skip
        self.limit = limit
        self.state = state
        self.modifiedSince = modifiedSince
        self.after = after
    }

    /// Whether `event` matches every filter (the order, skip and limit aside). Stores use it
    /// to check what their SQL returned in tests, and the live feed uses it for subscriptions.
    public func matches(_ event: Event) -> Bool {
        switch state {
        case .default: if event.trashed { return false }
        case .trashed: if !event.trashed { return false }
        case .all: break
        }
        if let fromTime, event.endTime < fromTime { return false }
        if let toTime, event.time > toTime { return false }
        if let streamIds, !event.streamIds.contains(where: streamIds.contains) { return false }
        if types != nil || typeClasses != nil {
            let exact = types?.contains(event.type) ?? false
            let inClass = typeClasses.map { classes in
                classes.contains(String(event.type.prefix { $0 != "/" }))
            } ?? false
            if !exact && !inClass { return false }
        }
        if let running, event.isRunning != running { return false }
        if let modifiedSince, event.modified <= modifiedSince { return false }
        return true
    }
}
