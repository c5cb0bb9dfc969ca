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

    /// What an operation that took longer than ``limit`` fails with (each operation below runs
    /// through `Abandonable.run(within:else:_:)`, which does not wait for it any more).
    private func timedOut(_ operation: String) -> @Sendable () -> any Error {
        let seconds = limit.inSeconds
        return { StoreError.timedOut(operation: operation, seconds: seconds) }
    }

    public func migrate() async throws {
        try await Abandonable.run(within: limit, else: timedOut("migrate")) { [base] in
            try await base.migrate()
        }
    }
    public func close() async throws { try await base.close() }
    public func addUser(_ user: User, streams: [EventStream]) async throws {
        try await Abandonable.run(within: limit, else: timedOut("addUser")) { [base] in
            try await base.addUser(user, streams: streams)
        }
    }
    public func user(named name: String) async throws -> User? {
        try await Abandonable.run(within: limit, else: timedOut("user")) { [base] in try await base.user(named: name) }
    }
    public func users() async throws -> [User] {
        try await Abandonable.run(within: limit, else: timedOut("users")) { [base] in
            try await base.users()
        }
    }
    public func addAccess(_ access: Access) async throws {
        try await Abandonable.run(within: limit, else: timedOut("addAccess")) { [base] in
            try await base.addAccess(access)
        }
    }
    public func access(tokenHash: String) async throws -> Access? {
        try await Abandonable.run(within: limit, else: timedOut("access")) { [base] in
            try await base.access(tokenHash: tokenHash)
        }
    }
    public func accesses(of userName: String) async throws -> [Access] {
        try await Abandonable.run(within: limit, else: timedOut("accesses")) { [base] in
            try await base.accesses(of: userName)
        }
    }
    public func removeAccess(tokenHash: String) async throws -> Bool {
        try await Abandonable.run(within: limit, else: timedOut("removeAccess")) { [base] in
            try await base.removeAccess(tokenHash: tokenHash)
        }
    }
    public func removeUser(named name: String) async throws -> UserRemoval? {
        try await Abandonable.run(within: limit, else: timedOut("removeUser")) { [base] in
            try await base.removeUser(named: name)
        }
    }
    public func retention(of userName: String) async throws -> Double? {
        try await Abandonable.run(within: limit, else: timedOut("retention")) { [base] in
            try await base.retention(of: userName)
        }
    }
    public func setRetention(_ seconds: Double?, for userName: String) async throws {
        try await Abandonable.run(within: limit, else: timedOut("setRetention")) { [base] in
            try await base.setRetention(seconds, for: userName)
        }
    }
    public func purgeEvents(of userName: String, endedBefore cutoff: Double, limit count: Int) async throws -> Int {
        try await Abandonable.run(within: limit, else: timedOut("purgeEvents")) { [base] in
            try await base.purgeEvents(of: userName, endedBefore: cutoff, limit: count)
        }
    }
    public func streamRetentions(of userName: String) async throws -> [String: Double] {
        try await Abandonable.run(within: limit, else: timedOut("streamRetentions")) { [base] in
            try await base.streamRetentions(of: userName)
        }
    }
    public func setRetention(_ seconds: Double?, for userName: String, stream streamId: String) async throws {
        try await Abandonable.run(within: limit, else: timedOut("setRetention")) { [base] in
            try await base.setRetention(seconds, for: userName, stream: streamId)
        }
    }
    public func purgeEvents(of userName: String, inStreams streamIds: [String], endedBefore cutoff: Double,
                            startingAt start: Double, limit count: Int) async throws -> PurgeBatch {
        try await Abandonable.run(within: limit, else: timedOut("purgeEvents")) { [base] in
            try await base.purgeEvents(of: userName, inStreams: streamIds, endedBefore: cutoff, startingAt: start, limit: count)
        }
    }
    public func removeAccesses(of userName: String, named name: String) async throws -> Int {
        try await Abandonable.run(within: limit, else: timedOut("removeAccesses")) { [base] in
            try await base.removeAccesses(of: userName, named: name)
        }
    }
    public func replaceAccess(_ access: Access) async throws {
        try await Abandonable.run(within: limit, else: timedOut("replaceAccess")) { [base] in
            try await base.replaceAccess(access)
        }
    }
    public func streams(of userName: String) async throws -> [EventStream] {
        try await Abandonable.run(within: limit, else: timedOut("streams")) { [base] in
            try await base.streams(of: userName)
        }
    }
    public func addStream(_ stream: EventStream, for userName: String) async throws {
        try await Abandonable.run(within: limit, else: timedOut("addStream")) { [base] in
            try await base.addStream(stream, for: userName)
        }
    }
    public func replaceStream(_ stream: EventStream, for userName: String) async throws {
        try await Abandonable.run(within: limit, else: timedOut("replaceStream")) { [base] in
            try await base.replaceStream(stream, for: userName)
        }
    }
    public func removeStreams(ids: [String], for userName: String) async throws -> Int {
        try await Abandonable.run(within: limit, else: timedOut("removeStreams")) { [base] in
            try await base.removeStreams(ids: ids, for: userName)
        }
    }
    public func addEvents(_ writes: [EventWrite], for userName: String) async throws -> [EventCreation] {
        try await Abandonable.run(within: limit, else: timedOut("addEvents")) { [base] in
            try await base.addEvents(writes, for: userName)
        }
    }
    public func event(id: String, for userName: String) async throws -> Event? {
        try await Abandonable.run(within: limit, else: timedOut("event")) { [base] in
            try await base.event(id: id, for: userName)
        }
    }
    public func replaceEvent(_ event: Event, for userName: String, ifModifiedAt modified: Double?) async throws {
        try await Abandonable.run(within: limit, else: timedOut("replaceEvent")) { [base] in
            try await base.replaceEvent(event, for: userName, ifModifiedAt: modified)
        }
    }
    public func removeEvent(id: String, for userName: String, ifModifiedAt modified: Double?) async throws -> Bool {
        try await Abandonable.run(within: limit, else: timedOut("removeEvent")) { [base] in
            try await base.removeEvent(id: id, for: userName, ifModifiedAt: modified)
        }
    }
    public func eventDeletions(of userName: String, since: Double, after: EventDeletion?, limit: Int) async throws -> [EventDeletion] {
        try await Abandonable.run(within: self.limit, else: timedOut("eventDeletions")) { [base] in
            try await base.eventDeletions(of: userName, since: since, after: after, limit: limit)
        }
    }
    public func removeEventDeletions(of userName: String, before time: Double) async throws -> Int {
        try await Abandonable.run(within: limit, else: timedOut("removeEventDeletions")) { [base] in
            try await base.removeEventDeletions(of: userName, before: time)
        }
    }
    public func eventPage(matching query: EventQuery, for userName: String) async throws -> EventPage {
        try await Abandonable.run(within: limit, else: timedOut("eventPage")) { [base] in
            try await base.eventPage(matching: query, for: userName)
        }
    }
    public func attachmentData(eventId: String, attachmentId: String, for userName: String) async throws -> [UInt8]? {
        try await Abandonable.run(within: limit, else: timedOut("attachmentData")) { [base] in
            try await base.attachmentData(eventId: eventId, attachmentId: attachmentId, for: userName)
        }
    }
    public var uploadSpoolDirectory: String { base.uploadSpoolDirectory }
}
