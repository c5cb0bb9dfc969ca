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

    /// How much one request may ask of the server (``ServerConfiguration/AnswerLimits``).
    public typealias Limits = ServerConfiguration.AnswerLimits

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
