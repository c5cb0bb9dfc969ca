import Whereabouts
@testable import WhereaboutsServer

/// A store that passes every call to a real one, except the operations told to fail, which
/// throw ``Fault`` as a store whose disk or database went away would.
final class FaultyStore: EventStore, @unchecked Sendable {
    /// The error the failing operations throw.
    struct Fault: Error, CustomStringConvertible {
        var description: String { "injected store failure" }
    }

    /// What can be made to fail.
    enum Operation: Hashable, Sendable {
        case addEvents, replaceEvent, eventPage
        /// Conditional replacements find the event changed, every time (as under heavy contention).
        case conditionalReplaceFindsAChange
    }

    let base: any EventStore
    private let failing = LockedValue<Set<Operation>>([])
    private let pagesBeforeFailing = LockedValue<Int?>(nil)
    private let usersGate = LockedValue<Gate?>(nil)

    init(_ base: any EventStore) {
        self.base = base
    }

    /// Makes `operations` fail (and every other one work) from now on.
    func fail(_ operations: Set<Operation>) {
        failing.value = operations
    }

    /// Lets `count` more pages of events be read, then fails every later one (a store that goes
    /// away in the middle of an answer).
    func failEventPages(after count: Int) {
        pagesBeforeFailing.value = count
    }

    /// Makes `users()` wait at `gate` (a database that stopped answering) from now on.
    func stallUsers(at gate: Gate) {
        usersGate.value = gate
    }

    private func check(_ operation: Operation) throws {
        if failing.value.contains(operation) { throw Fault() }
    }

    func migrate() async throws { try await base.migrate() }
    func close() async throws { try await base.close() }
    func addUser(_ user: User, streams: [EventStream]) async throws { try await base.addUser(user, streams: streams) }
    func user(named name: String) async throws -> User? { try await base.user(named: name) }
    func users() async throws -> [User] {
        if let gate = usersGate.value { await gate.wait() }
        return try await base.users()
    }
    func removeUser(named name: String) async throws -> UserRemoval? { try await base.removeUser(named: name) }
    func retention(of userName: String) async throws -> Double? { try await base.retention(of: userName) }
    func setRetention(_ seconds: Double?, for userName: String) async throws { try await base.setRetention(seconds, for: userName) }
    func purgeEvents(of userName: String, endedBefore cutoff: Double, limit: Int) async throws -> Int {
        try await base.purgeEvents(of: userName, endedBefore: cutoff, limit: limit)
    }
    func streamRetentions(of userName: String) async throws -> [String: Double] { try await base.streamRetentions(of: userName) }
    func setRetention(_ seconds: Double?, for userName: String, stream streamId: String) async throws {
        try await base.setRetention(seconds, for: userName, stream: streamId)
    }
    func purgeEvents(of userName: String, inStreams streamIds: [String], endedBefore cutoff: Double,
                     startingAt start: Double, limit: Int) async throws -> PurgeBatch {
        try await base.purgeEvents(of: userName, inStreams: streamIds, endedBefore: cutoff, startingAt: start, limit: limit)
    }
    func addAccess(_ access: Access) async throws { try await base.addAccess(access) }
    func access(tokenHash: String) async throws -> Access? { try await base.access(tokenHash: tokenHash) }
    func accesses(of userName: String) async throws -> [Access] { try await base.accesses(of: userName) }
    func removeAccess(tokenHash: String) async throws -> Bool { try await base.removeAccess(tokenHash: tokenHash) }
    func removeAccesses(of userName: String, named name: String) async throws -> Int {
        try await base.removeAccesses(of: userName, named: name)
    }
    func replaceAccess(_ access: Access) async throws { try await base.replaceAccess(access) }
    func streams(of userName: String) async throws -> [EventStream] { try await base.streams(of: userName) }
    func addStream(_ stream: EventStream, for userName: String) async throws { try await base.addStream(stream, for: userName) }
    func replaceStream(_ stream: EventStream, for userName: String) async throws {
        try await base.replaceStream(stream, for: userName)
    }
    func removeStreams(ids: [String], for userName: String) async throws -> Int {
        try await base.removeStreams(ids: ids, for: userName)
    }
    func addEvents(_ writes: [EventWrite], for userName: String) async throws -> [EventCreation] {
        try check(.addEvents)
        return try await base.addEvents(writes, for: userName)
    }
    func event(id: String, for userName: String) async throws -> Event? { try await base.event(id: id, for: userName) }
    func replaceEvent(_ event: Event, for userName: String, ifModifiedAt modified: Double?) async throws {
        try check(.replaceEvent)
        if modified != nil, failing.value.contains(.conditionalReplaceFindsAChange) {
            throw StoreError.changed("event", id: event.id)
        }
        try await base.replaceEvent(event, for: userName, ifModifiedAt: modified)
    }
    func removeEvent(id: String, for userName: String, ifModifiedAt modified: Double?) async throws -> Bool {
        try await base.removeEvent(id: id, for: userName, ifModifiedAt: modified)
    }
    func eventDeletions(of userName: String, since: Double, after: EventDeletion?, limit: Int) async throws -> [EventDeletion] {
        try await base.eventDeletions(of: userName, since: since, after: after, limit: limit)
    }
    func removeEventDeletions(of userName: String, before time: Double) async throws -> Int {
        try await base.removeEventDeletions(of: userName, before: time)
    }
    func eventPage(matching query: EventQuery, for userName: String) async throws -> EventPage {
        try check(.eventPage)
        let allowed = pagesBeforeFailing.withValue { budget -> Bool in
            guard let remaining = budget else { return true }
            budget = remaining - 1
            return remaining > 0
        }
        guard allowed else { throw Fault() }
        return try await base.eventPage(matching: query, for: userName)
    }
    func attachmentData(eventId: String, attachmentId: String, for userName: String) async throws -> [UInt8]? {
        try await base.attachmentData(eventId: eventId, attachmentId: attachmentId, for: userName)
    }
}
