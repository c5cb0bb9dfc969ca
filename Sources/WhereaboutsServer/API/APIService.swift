import Foundation
import Hummingbird
import Whereabouts

/// The API's methods (Pryv's `events.create`, `streams.get`, …), independent of HTTP: routes and
/// batch calls both go through them, so a method behaves the same however it is called.
public struct APIService: Sendable {
    /// Where events and streams live.
    public let store: any EventStore
    /// The cached stream trees used for permission checks.
    public let streams: StreamDirectory
    /// Counts events stored.
    public let metrics: ServerMetrics
    /// Called with events after they were created or changed (for the live feed).
    public let eventsDidChange: @Sendable ([Event], String) async -> Void
    /// Called with the token hashes of accesses deleted through the API, so that the server's
    /// token cache forgets them at once.
    public let accessesDidEnd: @Sendable (_ tokenHashes: [String]) async -> Void
    /// How much one answer or one batch may hold.
    public let limits: Limits

    /// How much one request may ask of the server: whatever a client sends, an answer's size in
    /// memory stays under a bound these set.
    public struct Limits: Sendable {
        /// The most events one `GET /events` answer holds, or `nil` (the default) for no cap:
        /// an answer is written as it is read, so any number costs a page of memory. With a cap
        /// (an operator's opt-in), a longer answer ends with `next`, which the client follows.
        public var eventsPerAnswer: Int?
        /// The most events an answer that must be held whole may hold (default 10,000): a
        /// batch's `events.get` calls together, and a newest-first export cut by `limit` or
        /// `skip`. Asking for more fails with 413, never with a silently shorter answer.
        public var eventsHeldWhole: Int
        /// The most calls one batch may hold (default 5,000, the tracking client's largest batch).
        public var batchCalls: Int
        /// How long the tombstone of a deleted event is kept for clients that sync with
        /// `includeDeletions` (seconds; default a year): a client whose last sync is older must
        /// read everything again.
        public var deletionsKeptFor: Double

        /// Creates limits (each at least 1).
        public init(eventsPerAnswer: Int? = nil, eventsHeldWhole: Int = 10_000, batchCalls: Int = 5_000,
                    deletionsKeptFor: Double = 365 * 86_400) {
            self.eventsPerAnswer = eventsPerAnswer.map { max(1, $0) }
            self.eventsHeldWhole = max(1, eventsHeldWhole)
            self.batchCalls = max(1, batchCalls)
            self.deletionsKeptFor = max(0, deletionsKeptFor)
        }
    }

    /// Creates the service.
    public init(
        store: any EventStore, streams: StreamDirectory, metrics: ServerMetrics, limits: Limits = Limits(),
        eventsDidChange: @escaping @Sendable ([Event], String) async -> Void = { _, _ in },
        accessesDidEnd: @escaping @Sendable (_ tokenHashes: [String]) async -> Void = { _ in }
    ) {
        self.store = store
        self.streams = streams
        self.metrics = metrics
        self.limits = limits
        self.eventsDidChange = eventsDidChange
        self.accessesDidEnd = accessesDidEnd
    }

    /// The current time in seconds since 1970.
    public static func now() -> Double { Date().timeIntervalSince1970 }
}

/// A method's successful answer: the members of the response object (before `meta`) and the
/// HTTP status.
public struct APIResult: Sendable {
    /// The response members, e.g. `[("event", …)]`.
    public var members: [(key: String, value: JSONValue)]
    /// The HTTP status when called as a route.
    public var status: HTTPResponse.Status

    /// Creates a result.
    public init(_ members: [(key: String, value: JSONValue)], status: HTTPResponse.Status = .ok) {
        self.members = members
        self.status = status
    }
}
