import Foundation
import Whereabouts

/// A store whose every operation answers within a time limit: one that takes longer fails with
/// ``StoreError/timedOut(operation:seconds:)`` (a 503 for its request), and is left to finish
/// or not on its own.
///
/// A database that restarts can leave a client library waiting for ever on a connection that
/// will not come (PostgresNIO's pool, seen when PostgreSQL went away and came back under load):
/// without a limit, the requests waiting on it never answer and the server can never stop. The
/// operation is abandoned rather than awaited because such a wait may not even end when it is
/// cancelled. The server puts the PostgreSQL store behind one (``ServerConfiguration/storeTimeout``).
///
/// ```swift
/// let store = TimeLimitedEventStore(try PostgresEventStore(url: url), limit: .seconds(40))
/// ```
public struct TimeLimitedEventStore: EventStore {
    /// The store that does the work.
    public let base: any EventStore
    /// The longest an operation may take.
    public let limit: Duration

    /// Puts `base` behind `limit`.
    public init(_ base: any EventStore, limit: Duration) {
        self.base = base
        self.limit = limit
    }

    /// Runs `body`, or fails after ``limit`` without waiting for it any more (see ``Abandonable``).
    func bounded<Result: Sendable>(
        _ operation: String, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let limit = limit
        return try await Abandonable.run(within: limit, else: {
            StoreError.timedOut(operation: operation, seconds: limit.inSeconds)
        }, body)
    }

    public func migrate() async throws { try await bounded("migrate") { [base] in try await base.migrate() } }
    public func close() async throws { try await base.close() }
    public func addUser(_ user: User, streams: [EventStream]) async throws {
        try await bounded("addUser") { [base] in try await base.addUser(user, streams: streams) }
    }
    public func user(named name: String) async throws -> User? {
        try await bounded("user") { [base] in try await base.user(named: name) }
    }
    public func users() async throws -> [User] { try await bounded("users") { [base] in try await base.users() } }
    public func addAccess(_ access: Access) async throws {
        try await bounded("addAccess") { [base] in try await base.addAccess(access) }
    }
    public func access(tokenHash: String) async throws -> Access? {
        try await bounded("access") { [base] in try await base.access(tokenHash: tokenHash) }
    }
    public func accesses(of userName: String) async throws -> [Access] {
        try await bounded("accesses") { [base] in try await base.accesses(of: userName) }
    }
    public func removeAccess(tokenHash: String) async throws -> Bool {
        try await bounded("removeAccess") { [base] in try await base.removeAccess(tokenHash: tokenHash) }
    }
    public func removeAccesses(of userName: String, named name: String) async throws -> Int {
        try await bounded("removeAccesses") { [base] in try await base.removeAccesses(of: userName, named: name) }
    }
    public func replaceAccess(_ access: Access) async throws {
        try await bounded("replaceAccess") { [base] in try await base.replaceAccess(access) }
    }
    public func streams(of userName: String) async throws -> [EventStream] {
        try await bounded("streams") { [base] in try await base.streams(of: userName) }
    }
    public func addStream(_ stream: EventStream, for userName: String) async throws {
        try await bounded("addStream") { [base] in try await base.addStream(stream, for: userName) }
    }
    public func replaceStream(_ stream: EventStream, for userName: String) async throws {
        try await bounded("replaceStream") { [base] in try await base.replaceStream(stream, for: userName) }
    }
    public func removeStreams(ids: [String], for userName: String) async throws -> Int {
        try await bounded("removeStreams") { [base] in try await base.removeStreams(ids: ids, for: userName) }
    }
    public func addEvents(_ writes: [EventWrite], for userName: String) async throws -> [EventCreation] {
        try await bounded("addEvents") { [base] in try await base.addEvents(writes, for: userName) }
    }
    public func event(id: String, for userName: String) async throws -> Event? {
        try await bounded("event") { [base] in try await base.event(id: id, for: userName) }
    }
    public func replaceEvent(_ event: Event, for userName: String, ifModifiedAt modified: Double?) async throws {
        try await bounded("replaceEvent") { [base] in try await base.replaceEvent(event, for: userName, ifModifiedAt: modified) }
    }
    public func removeEvent(id: String, for userName: String, ifModifiedAt modified: Double?) async throws -> Bool {
        try await bounded("removeEvent") { [base] in try await base.removeEvent(id: id, for: userName, ifModifiedAt: modified) }
    }
    public func eventDeletions(of userName: String, since: Double, after: EventDeletion?, limit: Int) async throws -> [EventDeletion] {
        try await bounded("eventDeletions") { [base] in
            try await base.eventDeletions(of: userName, since: since, after: after, limit: limit)
        }
    }
    public func removeEventDeletions(of userName: String, before time: Double) async throws -> Int {
        try await bounded("removeEventDeletions") { [base] in try await base.removeEventDeletions(of: userName, before: time) }
    }
    public func eventPage(matching query: EventQuery, for userName: String) async throws -> EventPage {
        try await bounded("eventPage") { [base] in try await base.eventPage(matching: query, for: userName) }
    }
    public func attachmentData(eventId: String, attachmentId: String, for userName: String) async throws -> [UInt8]? {
        try await bounded("attachmentData") { [base] in
            try await base.attachmentData(eventId: eventId, attachmentId: attachmentId, for: userName)
        }
    }
    public var uploadSpoolDirectory: String { base.uploadSpoolDirectory }
}
