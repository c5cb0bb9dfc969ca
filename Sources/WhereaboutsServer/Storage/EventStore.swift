import Foundation
import Whereabouts

/// Where the server keeps users, accesses, streams, events and attachments.
///
/// Two backends implement it and pass the same test suite: ``SQLiteEventStore`` (one file, the
/// default) and ``PostgresEventStore`` (one database shared by several server processes).
/// Every method is scoped to one user; a store never returns another user's data.
///
/// A store's writes are durable when the method returns: an acknowledged event survives the
/// server being killed.
public protocol EventStore: Sendable {
    /// Creates the schema or brings it up to date. Safe to call on every start.
    func migrate() async throws

    /// Releases connections and files. The store must not be used afterwards.
    func close() async throws

    // MARK: Users and accesses

    /// Adds a user with their initial streams. Throws ``StoreError/alreadyExists(_:id:)`` when
    /// the name is taken.
    func addUser(_ user: User, streams: [EventStream]) async throws

    /// The user with this name, if any.
    func user(named name: String) async throws -> User?

    /// Every user, by name.
    func users() async throws -> [User]

    /// Erases a user and everything the store holds about them, in one transaction: their
    /// events (with their attachments), streams, accesses and the tombstones of their deleted
    /// events; `nil` when there is no such user. What it removed leaves no trace in the store's
    /// files a reader could find (SQLite overwrites the freed pages and truncates its log;
    /// PostgreSQL leaves dead rows to its vacuum, as for any delete).
    func removeUser(named name: String) async throws -> UserRemoval?

    /// How many seconds `userName`'s events are kept (`nil`: the server's default). Throws
    /// ``StoreError/notFound(_:id:)`` for an unknown user.
    func retention(of userName: String) async throws -> Double?

    /// Sets how many seconds `userName`'s events are kept (`nil`: the server's default). Throws
    /// ``StoreError/notFound(_:id:)`` for an unknown user.
    func setRetention(_ seconds: Double?, for userName: String) async throws

    /// Deletes at most `limit` of the user's events that ended before `cutoff` (a running event
    /// never ends), oldest first, with their attachments, leaving each a tombstone that
    /// incremental sync reads; returns how many went. One bounded transaction: call it again
    /// until it returns less than `limit`.
    func purgeEvents(of userName: String, endedBefore cutoff: Double, limit: Int) async throws -> Int

    /// The user's streams that have a retention of their own, by stream identifier: seconds
    /// their events are kept (`.infinity`: for ever, whatever the user's). A stream without one
    /// follows its parent's, else the user's. Throws ``StoreError/notFound(_:id:)`` for an
    /// unknown user.
    func streamRetentions(of userName: String) async throws -> [String: Double]

    /// Sets how many seconds the events of one of the user's streams are kept (`nil`: as its
    /// parent's, else the user's). Throws ``StoreError/notFound(_:id:)`` for an unknown user or
    /// stream.
    func setRetention(_ seconds: Double?, for userName: String, stream streamId: String) async throws

    /// Deletes at most `limit` of the user's events in any of `streamIds` that ended before
    /// `cutoff` and began at or after `start`, oldest first, as
    /// ``purgeEvents(of:endedBefore:limit:)`` does. One bounded transaction: call it again from
    /// the returned batch's ``PurgeBatch/lastTime`` until it deletes less than `limit` (the
    /// events of other streams it passed over are not read again).
    func purgeEvents(of userName: String, inStreams streamIds: [String], endedBefore cutoff: Double,
                     startingAt start: Double, limit: Int) async throws -> PurgeBatch

    /// Stores an access (its token only as a hash).
    func addAccess(_ access: Access) async throws

    /// The access whose token hashes to `tokenHash`, if any (expired ones too: the caller decides).
    func access(tokenHash: String) async throws -> Access?

    /// A user's accesses, in creation order.
    func accesses(of userName: String) async throws -> [Access]

    /// Removes the access whose token hashes to `tokenHash` (a revocation); returns whether there was one.
    func removeAccess(tokenHash: String) async throws -> Bool

    /// Removes a user's accesses labelled `name`; returns how many there were.
    func removeAccesses(of userName: String, named name: String) async throws -> Int

    /// Replaces the access with the same user and identifier: its name, permissions, expiry and
    /// last change (its token, type and creation stay). Throws ``StoreError/notFound(_:id:)``.
    func replaceAccess(_ access: Access) async throws

    // MARK: Streams

    /// All of a user's streams (trashed ones included), in creation order.
    func streams(of userName: String) async throws -> [EventStream]

    /// Adds a stream. Throws ``StoreError/alreadyExists(_:id:)`` when the user has one with
    /// this identifier.
    func addStream(_ stream: EventStream, for userName: String) async throws

    /// Replaces a stream with the same identifier. Throws ``StoreError/notFound(_:id:)``, and
    /// ``StoreError/cycle(streamId:parentId:)`` when the new parent is the stream itself or one of
    /// its descendants — checked in the same transaction as the write, so that two concurrent
    /// moves can never make the tree a cycle.
    func replaceStream(_ stream: EventStream, for userName: String) async throws

    /// Deletes these streams for good; returns how many existed. Their events are the caller's
    /// to move or delete first.
    func removeStreams(ids: [String], for userName: String) async throws -> Int

    // MARK: Events

    /// Adds events in one transaction, attachments first. An event whose identifier the user
    /// already has is not written again: its result is the stored event, marked `.existing`.
    func addEvents(_ writes: [EventWrite], for userName: String) async throws -> [EventCreation]

    /// The event with this identifier, trashed or not, if any.
    func event(id: String, for userName: String) async throws -> Event?

    /// Replaces an event with the same identifier (attachments are kept as the event lists
    /// them). Throws ``StoreError/notFound(_:id:)``; with `modified`, only when the stored event
    /// was last changed at exactly that time — checked in the write's transaction, so a change
    /// made since the caller read the event is never overwritten: it throws
    /// ``StoreError/changed(_:id:)`` instead.
    func replaceEvent(_ event: Event, for userName: String, ifModifiedAt modified: Double?) async throws

    /// Deletes an event and its attachments for good, leaving a tombstone (its identifier and
    /// the time of the deletion) in the same transaction; with `modified`, only when the stored
    /// event was last changed at exactly that time (``StoreError/changed(_:id:)`` otherwise).
    /// Returns whether it existed.
    func removeEvent(id: String, for userName: String, ifModifiedAt modified: Double?) async throws -> Bool

    /// The tombstones of the user's events deleted after `since` (seconds since 1970), in the
    /// order of their deletion (then identifier), after `after`, at most `limit` — but for
    /// identifiers that name an event again (created anew since their deletion).
    func eventDeletions(of userName: String, since: Double, after: EventDeletion?, limit: Int) async throws -> [EventDeletion]

    /// Forgets the user's tombstones of deletions before `time`; returns how many.
    func removeEventDeletions(of userName: String, before time: Double) async throws -> Int

    /// The events matching `query`, in its order, after its cursor and skip and within its
    /// limit, with the place the page ended. A store reads only what the page needs: a query's
    /// cost depends on its limit, not on how many events the user has.
    func eventPage(matching query: EventQuery, for userName: String) async throws -> EventPage

    /// The bytes of one attachment, if the event and attachment exist.
    func attachmentData(eventId: String, attachmentId: String, for userName: String) async throws -> [UInt8]?

    /// The folder where the server spools a request's uploaded files as they arrive, before
    /// they become ``AttachmentUpload/Content/spooledFile(path:)`` uploads: best on the file
    /// system where the store keeps its own files, so that keeping one is a rename. The system's
    /// temporary folder unless the store says otherwise.
    var uploadSpoolDirectory: String { get }
}

extension EventStore {
    /// Replaces an event with the same identifier, whatever its last change.
    public func replaceEvent(_ event: Event, for userName: String) async throws {
        try await replaceEvent(event, for: userName, ifModifiedAt: nil)
    }

    /// Deletes an event and its attachments for good, whatever its last change.
    public func removeEvent(id: String, for userName: String) async throws -> Bool {
        try await removeEvent(id: id, for: userName, ifModifiedAt: nil)
    }

    /// The events matching `query`, in its order, after its skip and within its limit: one
    /// page, held in memory — give `query` a limit (readers of whole histories page with
    /// ``EventQuery/after`` instead).
    public func events(matching query: EventQuery, for userName: String) async throws -> [Event] {
        try await eventPage(matching: query, for: userName).events
    }
}

/// A store whose database several server processes write to, and which can tell each of them
/// what the others wrote: every process's `/live` then shows every process's events.
///
/// ``PostgresEventStore`` is one (PostgreSQL's `LISTEN`/`NOTIFY`); a SQLite store belongs to one
/// process and needs no such thing.
///
/// ```swift
/// try await store.watchChangesFromOtherProcesses(ofUsersWhere: { await liveFeed.subscriberCount(for: $0) > 0 }) {
///     userName, events in
///     await liveFeed.publish(events, for: userName)
/// }
/// ```
public protocol SharedEventStore: EventStore {
    /// Calls `body` with the events that *other* processes (other store instances) create or
    /// change, in commit order, as they commit; never with this instance's own writes. Runs
    /// until the task is cancelled, listening again when the database connection drops (events
    /// committed while it was down are not replayed).
    ///
    /// Only the changes of users for whom `isWatched` answers true are read back from the
    /// database: a process whose live clients watch nobody reads nothing back, however busy the
    /// others are.
    func watchChangesFromOtherProcesses(
        ofUsersWhere isWatched: @escaping @Sendable (_ userName: String) async -> Bool,
        _ body: @escaping @Sendable (_ userName: String, _ events: [Event]) async -> Void
    ) async throws
}

extension SharedEventStore {
    /// Calls `body` with the events that other processes create or change, for every user (see
    /// ``watchChangesFromOtherProcesses(ofUsersWhere:_:)``).
    public func watchChangesFromOtherProcesses(
        _ body: @escaping @Sendable (_ userName: String, _ events: [Event]) async -> Void
    ) async throws {
        try await watchChangesFromOtherProcesses(ofUsersWhere: { _ in true }, body)
    }
}

extension EventStore {
    /// The system's temporary folder.
    public var uploadSpoolDirectory: String {
        FileManager.default.temporaryDirectory.path
    }
}

/// An event to add, with the files attached to it.
public struct EventWrite: Sendable {
    /// The event (its `attachments` describe `uploads`).
    public var event: Event
    /// The files to store with it.
    public var uploads: [AttachmentUpload]

    /// Creates a write.
    public init(event: Event, uploads: [AttachmentUpload] = []) {
        self.event = event
        self.uploads = uploads
    }
}

/// What is left of a deleted event: its identifier and when it was deleted (seconds since
/// 1970), as Pryv's `eventDeletions` list it for clients that sync with `modifiedSince`.
public struct EventDeletion: Hashable, Sendable {
    /// The deleted event's identifier.
    public var id: String
    /// When it was deleted.
    public var deleted: Double

    /// Creates a tombstone.
    public init(id: String, deleted: Double) {
        self.id = id
        self.deleted = deleted
    }

    /// `{"id", "deleted"}`, as Pryv's `eventDeletions` list it.
    public var jsonValue: JSONValue {
        .object([("id", .string(id)), ("deleted", .number(deleted))])
    }
}

/// The outcome of adding one event.
public enum EventCreation: Hashable, Sendable {
    /// The event was new and is now stored.
    case created(Event)
    /// An event with this identifier was already stored; this is the stored one.
    case existing(Event)

    /// The stored event.
    public var event: Event {
        switch self {
        case .created(let event), .existing(let event): event
        }
    }
}

/// The cycle check both stores run inside the transaction of a stream's move: whether the
/// stream is among the ancestors of its new parent (the parent itself included), found by
/// following `parent_id` upward.
enum StreamAncestry {
    /// The deepest that walk goes (a bound on a store that holds a cycle already).
    static let maximumStreamDepth = 10_000
}

/// Why a store refused an operation.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Something with this identifier already exists (`kind` is "user", "stream", …).
    case alreadyExists(_ kind: String, id: String)
    /// Nothing with this identifier exists.
    case notFound(_ kind: String, id: String)
    /// The stored data cannot be read (a corrupt row or an unknown schema version).
    case corrupt(String)
    /// Moving a stream under `parentId` would put it inside itself.
    case cycle(streamId: String, parentId: String)
    /// The item changed since the caller read it (a conditional write did not happen).
    case changed(_ kind: String, id: String)
    /// The store did not answer within `seconds` (a database that went away, or is still
    /// coming back); the operation may or may not have taken effect.
    case timedOut(operation: String, seconds: Double)

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .alreadyExists(let kind, let id): "a \(kind) with id \"\(id)\" already exists"
        case .notFound(let kind, let id): "no \(kind) with id \"\(id)\""
        case .corrupt(let message): "stored data cannot be read: \(message)"
        case .cycle(let streamId, let parentId): "stream \"\(streamId)\" cannot move under \"\(parentId)\", which lies inside it"
        case .changed(let kind, let id): "the \(kind) with id \"\(id)\" changed since it was read"
        case .timedOut(let operation, let seconds): "the store did not answer \(operation) within \(seconds) s"
        }
    }
}
