import Foundation
import Logging
import PostgresNIO
import Whereabouts

/// A store in a PostgreSQL database (through PostgresNIO), for deployments where several
/// server processes share one database.
///
/// Creates are idempotent across processes (`INSERT … ON CONFLICT DO NOTHING`), attachments
/// are `bytea` rows written in the same transaction as their event, and migrations run under an
/// advisory lock. Every transaction that creates or changes events also sends a notification
/// (`NOTIFY whereabouts_events`) so that the other processes' live feeds show them
/// (``watchChangesFromOtherProcesses(ofUsersWhere:_:)``).
///
/// ```swift
/// let store = try PostgresEventStore(url: "postgres://whereabouts:secret@db.local:5432/whereabouts")
/// try await store.migrate()
/// ```
public final class PostgresEventStore: SharedEventStore {
    let client: PostgresClient
    private let runTask: Task<Void, Never>
    let logger: Logger
    /// Marks this instance's notifications, so that it does not relay its own writes.
    let origin = AccessToken.generate()

    /// The channel on which stores announce the events they created or changed.
    public static let notificationChannel = "whereabouts_events"

    /// Connects to the database at `url`: `postgres://user:password@host:port/database`
    /// (`postgresql://` too; the port defaults to 5432), with an optional
    /// `?sslmode=disable|prefer|require|verify-full` (default `prefer`, as libpq does).
    ///
    /// The connection pool starts at once; connections open when first needed, so a server
    /// that is down shows up in ``migrate()``. Call ``close()`` when done.
    ///
    /// - Throws: ``PostgresURLError`` naming what is wrong in `url`.
    public init(url: String, logger: Logger = Logger(label: "whereabouts.postgres")) throws {
        let parsed = try PostgresURL(url)
        self.logger = logger
        let client = PostgresClient(configuration: parsed.clientConfiguration, backgroundLogger: logger)
        self.client = client
        self.runTask = Task { await client.run() }
    }

    /// Applies the migrations the database lacks.
    public func migrate() async throws {
        try await PostgresSchema.migrate(client, logger: logger)
    }

    /// Applies the migrations the database lacks up to `version` only (an older server's
    /// schema, for tests of the migrations after it).
    func migrate(upTo version: Int) async throws {
        try await PostgresSchema.migrate(client, logger: logger, upTo: version)
    }

    /// Runs one statement as it is (tests that write an older schema's rows).
    func execute(unsafeSQL sql: String) async throws {
        try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }

    /// Runs `body` in a transaction; the closure's own error is thrown as it is (not wrapped in
    /// PostgresNIO's transaction error) so that callers see ``StoreError``s.
    private func transaction<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger, body)
        } catch let error as PostgresTransactionError {
            if let closureError = error.closureError { throw closureError }
            throw error
        }
    }

    /// The value of a server setting as the store's connections see it (`SHOW name`): the
    /// statement timeout, for one, read back.
    func setting(_ name: String) async throws -> String? {
        for try await value in try await client.query(PostgresQuery(unsafeSQL: "SHOW \(name)"), logger: logger).decode(String.self) {
            return value
        }
        return nil
    }

    /// Closes every connection.
    public func close() async throws {
        runTask.cancel()
        await runTask.value
    }

    // MARK: Users and accesses

    /// Adds a user and their initial streams in one transaction.
    public func addUser(_ user: User, streams: [EventStream]) async throws {
        try await transaction { connection in
            let inserted = try await connection.query("""
                INSERT INTO users (name, created) VALUES (\(user.name), \(user.created))
                ON CONFLICT DO NOTHING RETURNING name
                """, logger: logger).collect()
            if inserted.isEmpty { throw StoreError.alreadyExists("user", id: user.name) }
            for stream in streams { try await insert(stream, for: user.name, connection) }
        }
    }

    /// The user with this name, if any.
    public func user(named name: String) async throws -> User? {
        for try await (name, created) in try await client.query(
            "SELECT name, created FROM users WHERE name = \(name)", logger: logger
        ).decode((String, Double).self) {
            return User(name: name, created: created)
        }
        return nil
    }

    /// Every user, by name.
    public func users() async throws -> [User] {
        var users: [User] = []
        for try await (name, created) in try await client.query(
            "SELECT name, created FROM users ORDER BY name COLLATE \"C\"", logger: logger
        ).decode((String, Double).self) {
            users.append(User(name: name, created: created))
        }
        return users
    }

    /// Erases a user in one transaction: the user's row locked first (so no write of theirs lands
    /// meanwhile), then their events (their attachments' rows follow by the foreign key), the
    /// tombstones, accesses, streams and the user.
    public func removeUser(named name: String) async throws -> UserRemoval? {
        try await transaction { connection in
            let found = try await connection.query("SELECT name FROM users WHERE name = \(name) FOR UPDATE", logger: logger).collect()
            guard !found.isEmpty else { return nil }
            var hashes: [String] = []
            for try await hash in try await connection.query(
                "DELETE FROM accesses WHERE user_name = \(name) RETURNING token_hash", logger: logger
            ).decode(String.self) {
                hashes.append(hash)
            }
            let events = try await connection.query("DELETE FROM events WHERE user_name = \(name) RETURNING seq", logger: logger)
                .collect().count
            let deletions = try await connection.query("DELETE FROM event_deletions WHERE user_name = \(name) RETURNING id", logger: logger)
                .collect().count
            let streams = try await connection.query("DELETE FROM streams WHERE user_name = \(name) RETURNING id", logger: logger)
                .collect().count
            try await connection.query("DELETE FROM attachments WHERE user_name = \(name)", logger: logger)
            try await connection.query("DELETE FROM users WHERE name = \(name)", logger: logger)
            return UserRemoval(events: events, streams: streams, accesses: hashes.count, deletions: deletions, tokenHashes: hashes)
        }
    }

    /// How many seconds the user's events are kept (`nil`: the server's default).
    public func retention(of userName: String) async throws -> Double? {
        for try await (retention,) in try await client.query(
            "SELECT retention FROM users WHERE name = \(userName)", logger: logger
        ).decode((Double?,).self) {
            return retention
        }
        throw StoreError.notFound("user", id: userName)
    }

    /// Sets how many seconds the user's events are kept.
    public func setRetention(_ seconds: Double?, for userName: String) async throws {
        let updated = try await client.query(
            "UPDATE users SET retention = \(seconds) WHERE name = \(userName) RETURNING name", logger: logger
        ).collect()
        if updated.isEmpty { throw StoreError.notFound("user", id: userName) }
    }

    /// Deletes at most `limit` of the user's events that ended before `cutoff`, oldest first, and
    /// leaves their tombstones, in one statement (their attachments' rows follow by the foreign key).
    public func purgeEvents(of userName: String, endedBefore cutoff: Double, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        let now = Date().timeIntervalSince1970
        return try await client.query("""
            WITH gone AS (
                DELETE FROM events WHERE seq IN (
                    SELECT seq FROM events WHERE user_name = \(userName) AND time < \(cutoff) AND end_time < \(cutoff)
                    ORDER BY time LIMIT \(limit)
                ) RETURNING id
            )
            INSERT INTO event_deletions (user_name, id, deleted) SELECT \(userName), id, \(now) FROM gone
            ON CONFLICT (user_name, id) DO UPDATE SET deleted = EXCLUDED.deleted
            RETURNING id
            """, logger: logger).collect().count
    }

    /// The user's streams with a retention of their own.
    public func streamRetentions(of userName: String) async throws -> [String: Double] {
        try await transaction { connection in
            try await requireUser(userName, connection)
            var found: [String: Double] = [:]
            for try await (id, seconds) in try await connection.query(
                "SELECT id, retention FROM streams WHERE user_name = \(userName) AND retention IS NOT NULL", logger: logger
            ).decode((String, Double).self) {
                found[id] = seconds
            }
            return found
        }
    }

    /// Sets how many seconds a stream's events are kept.
    public func setRetention(_ seconds: Double?, for userName: String, stream streamId: String) async throws {
        try await transaction { connection in
            try await requireUser(userName, connection)
            let updated = try await connection.query(
                "UPDATE streams SET retention = \(seconds) WHERE user_name = \(userName) AND id = \(streamId) RETURNING id",
                logger: logger
            ).collect()
            if updated.isEmpty { throw StoreError.notFound("stream", id: streamId) }
        }
    }

    /// Deletes at most `limit` of the user's events in `streamIds` that ended before `cutoff`
    /// and began at or after `start`, oldest first, and leaves their tombstones, in one statement.
    public func purgeEvents(of userName: String, inStreams streamIds: [String], endedBefore cutoff: Double,
                            startingAt start: Double, limit: Int) async throws -> PurgeBatch {
        guard limit > 0, !streamIds.isEmpty else { return PurgeBatch(events: 0, lastTime: nil) }
        let now = Date().timeIntervalSince1970
        var count = 0
        var lastTime: Double?
        for try await (time,) in try await client.query("""
            WITH gone AS (
                DELETE FROM events WHERE seq IN (
                    SELECT seq FROM events WHERE user_name = \(userName) AND time >= \(start) AND time < \(cutoff)
                        AND end_time < \(cutoff) AND stream_ids && \(streamIds)
                    ORDER BY time LIMIT \(limit)
                ) RETURNING id, time
            ), tombstones AS (
                INSERT INTO event_deletions (user_name, id, deleted) SELECT \(userName), id, \(now) FROM gone
                ON CONFLICT (user_name, id) DO UPDATE SET deleted = EXCLUDED.deleted
            )
            SELECT time FROM gone
            """, logger: logger).decode((Double,).self) {
            count += 1
            lastTime = max(lastTime ?? time, time)
        }
        return PurgeBatch(events: count, lastTime: lastTime)
    }

    /// Stores an access. Throws ``StoreError/notFound(_:id:)`` for an unknown user and
    /// ``StoreError/alreadyExists(_:id:)`` when the identifier or the token hash is taken.
    public func addAccess(_ access: Access) async throws {
        try await transaction { connection in
            try await requireUser(access.userName, connection)
            let inserted = try await connection.query("""
                INSERT INTO accesses (user_name, id, name, token_hash, permissions, created, expires,
                                      type, created_by, modified, modified_by, token)
                VALUES (\(access.userName), \(access.id), \(access.name), \(access.tokenHash),
                        \(StoreEncoding.permissionsText(access.permissions)), \(access.created), \(access.expires),
                        \(access.type.rawValue), \(access.createdBy), \(access.modified), \(access.modifiedBy), \(access.token))
                ON CONFLICT DO NOTHING RETURNING id
                """, logger: logger).collect()
            if inserted.isEmpty { throw StoreError.alreadyExists("access", id: access.id) }
        }
    }

    /// Replaces the access with the same user and identifier (its name, permissions, expiry and
    /// last change; its token stays). Throws ``StoreError/notFound(_:id:)``.
    public func replaceAccess(_ access: Access) async throws {
        let updated = try await client.query("""
            UPDATE accesses SET name = \(access.name), permissions = \(StoreEncoding.permissionsText(access.permissions)),
                expires = \(access.expires), modified = \(access.modified), modified_by = \(access.modifiedBy)
            WHERE user_name = \(access.userName) AND id = \(access.id) RETURNING id
            """, logger: logger).collect()
        if updated.isEmpty { throw StoreError.notFound("access", id: access.id) }
    }

    private typealias AccessRow = (String, String, String, String, String, Double, Double?, String, String, Double, String, String?)

    /// The access whose token hashes to `tokenHash`, if any.
    public func access(tokenHash: String) async throws -> Access? {
        for try await row in try await client.query("""
            SELECT id, user_name, name, token_hash, permissions, created, expires, type, created_by, modified, modified_by, token
            FROM accesses WHERE token_hash = \(tokenHash)
            """, logger: logger).decode(AccessRow.self) {
            return try Self.access(row)
        }
        return nil
    }

    private static func access(_ row: AccessRow) throws -> Access {
        guard let type = AccessType(rawValue: row.7) else { throw StoreError.corrupt("unknown access type \"\(row.7)\"") }
        return Access(id: row.0, userName: row.1, name: row.2, tokenHash: row.3, permissions: try StoreEncoding.permissions(row.4),
                      created: row.5, expires: row.6, type: type, createdBy: row.8, modified: row.9, modifiedBy: row.10,
                      token: row.11)
    }

    /// A user's accesses, in creation order.
    public func accesses(of userName: String) async throws -> [Access] {
        var accesses: [Access] = []
        for try await row in try await client.query("""
            SELECT id, user_name, name, token_hash, permissions, created, expires, type, created_by, modified, modified_by, token
            FROM accesses WHERE user_name = \(userName) ORDER BY created, id
            """, logger: logger).decode(AccessRow.self) {
            accesses.append(try Self.access(row))
        }
        return accesses
    }

    /// Removes the access whose token hashes to `tokenHash`; returns whether there was one.
    public func removeAccess(tokenHash: String) async throws -> Bool {
        let removed = try await client.query("DELETE FROM accesses WHERE token_hash = \(tokenHash) RETURNING id",
                                             logger: logger).collect()
        return !removed.isEmpty
    }

    /// Removes a user's accesses labelled `name`; returns how many there were.
    public func removeAccesses(of userName: String, named name: String) async throws -> Int {
        try await client.query("DELETE FROM accesses WHERE user_name = \(userName) AND name = \(name) RETURNING id",
                               logger: logger).collect().count
    }

    // MARK: Streams

    /// All of a user's streams, in creation order.
    public func streams(of userName: String) async throws -> [EventStream] {
        var streams: [EventStream] = []
        let rows = try await client.query("""
            SELECT id, name, parent_id, client_data, trashed, created, created_by, modified, modified_by
            FROM streams WHERE user_name = \(userName) ORDER BY seq
            """, logger: logger)
        for try await (id, name, parentId, clientData, trashed, created, createdBy, modified, modifiedBy) in rows.decode(
            (String, String, String?, String?, Bool, Double, String, Double, String).self
        ) {
            streams.append(EventStream(
                id: id, name: name, parentId: parentId,
                clientData: try StoreEncoding.json(clientData, column: "client_data"), trashed: trashed,
                created: created, createdBy: createdBy, modified: modified, modifiedBy: modifiedBy))
        }
        return streams
    }

    /// Adds a stream. Throws ``StoreError/alreadyExists(_:id:)`` when the user has one with this
    /// identifier, ``StoreError/notFound(_:id:)`` for an unknown user.
    public func addStream(_ stream: EventStream, for userName: String) async throws {
        try await transaction { connection in
            try await requireUser(userName, connection)
            try await insert(stream, for: userName, connection)
        }
    }

    /// Deletes streams for good (their events were dealt with before); returns how many there were.
    public func removeStreams(ids: [String], for userName: String) async throws -> Int {
        try await client.query("DELETE FROM streams WHERE user_name = \(userName) AND id = ANY(\(ids)) RETURNING id",
                               logger: logger).collect().count
    }

    /// Replaces the stream with the same identifier (it keeps its place in the order).
    public func replaceStream(_ stream: EventStream, for userName: String) async throws {
        try await transaction { connection in
            // The user's row, locked for the transaction: moves of one user's streams happen one
            // at a time, across processes, so that the check below sees every move before it.
            _ = try await connection.query("SELECT 1 FROM users WHERE name = \(userName) FOR UPDATE", logger: logger).collect()
            if let parent = stream.parentId {
                let depth = StreamAncestry.maximumStreamDepth
                let rows = try await connection.query("""
                    WITH RECURSIVE up(id, depth) AS (
                        SELECT \(parent)::text, 0
                        UNION ALL
                        SELECT s.parent_id, up.depth + 1 FROM streams s JOIN up ON s.id = up.id AND s.user_name = \(userName)
                        WHERE s.parent_id IS NOT NULL AND up.depth < \(depth)
                    )
                    SELECT 1 FROM up WHERE id = \(stream.id) LIMIT 1
                    """, logger: logger).collect()
                if !rows.isEmpty { throw StoreError.cycle(streamId: stream.id, parentId: parent) }
            }
            let updated = try await connection.query("""
            UPDATE streams SET name = \(stream.name), parent_id = \(stream.parentId),
                client_data = \(StoreEncoding.text(stream.clientData)), trashed = \(stream.trashed),
                created = \(stream.created), created_by = \(stream.createdBy), modified = \(stream.modified),
                modified_by = \(stream.modifiedBy)
            WHERE user_name = \(userName) AND id = \(stream.id)
            RETURNING seq
            """, logger: logger).collect()
            if updated.isEmpty { throw StoreError.notFound("stream", id: stream.id) }
        }
    }

    private func insert(_ stream: EventStream, for userName: String, _ connection: PostgresConnection) async throws {
        let inserted = try await connection.query("""
            INSERT INTO streams (user_name, id, name, parent_id, client_data, trashed, created, created_by,
                modified, modified_by)
            VALUES (\(userName), \(stream.id), \(stream.name), \(stream.parentId),
                \(StoreEncoding.text(stream.clientData)), \(stream.trashed), \(stream.created),
                \(stream.createdBy), \(stream.modified), \(stream.modifiedBy))
            ON CONFLICT DO NOTHING RETURNING seq
            """, logger: logger).collect()
        if inserted.isEmpty { throw StoreError.alreadyExists("stream", id: stream.id) }
    }

    private func requireUser(_ name: String, _ connection: PostgresConnection) async throws {
        let rows = try await connection.query("SELECT 1 FROM users WHERE name = \(name)", logger: logger).collect()
        if rows.isEmpty { throw StoreError.notFound("user", id: name) }
    }

    // MARK: Events

    static let eventColumns = """
        seq, id, stream_ids, time, duration, type, content, description, tags, client_data, \
        attachments, trashed, created, created_by, modified, modified_by
        """

    private typealias EventRow = (
        Int64, String, [String], Double, Double?, String, String?, String?, String, String?, String, Bool,
        Double, String, Double, String
    )

    private static func event(from row: PostgresRow) throws -> Event {
        try placedEvent(from: row).event
    }

    /// The event in a row and its place in the time order.
    private static func placedEvent(from row: PostgresRow) throws -> (event: Event, place: EventCursor) {
        let (seq, id, streamIds, time, duration, type, content, description, tags, clientData, attachments,
             trashed, created, createdBy, modified, modifiedBy) = try row.decode(EventRow.self)
        let event = try EventColumns(
            id: id, streamIds: streamIds, time: time, duration: duration, type: type, content: content,
            description: description, tags: tags, clientData: clientData, attachments: attachments,
            trashed: trashed, created: created, createdBy: createdBy, modified: modified, modifiedBy: modifiedBy
        ).event()
        return (event, EventCursor(time: time, sequence: seq))
    }

    func events(_ query: PostgresQuery, _ connection: PostgresConnection? = nil) async throws -> [Event] {
        let rows = if let connection {
            try await connection.query(query, logger: logger)
        } else {
            try await client.query(query, logger: logger)
        }
        var events: [Event] = []
        for try await row in rows { events.append(try Self.event(from: row)) }
        return events
    }

    /// Adds events in one transaction, with their attachments; an identifier the user already
    /// has (even one another process is adding at the same moment) is not written again.
    public func addEvents(_ writes: [EventWrite], for userName: String) async throws -> [EventCreation] {
        try await transaction { connection in
            try await requireUser(userName, connection)
            var results: [EventCreation] = []
            results.reserveCapacity(writes.count)
            for write in writes {
                let event = write.event
                let row = EventColumns(event)
                let inserted = try await connection.query("""
                    INSERT INTO events (user_name, id, time, duration, end_time, type, type_class, content,
                        description, tags, client_data, attachments, stream_ids, trashed, created, created_by,
                        modified, modified_by)
                    VALUES (\(userName), \(row.id), \(row.time), \(row.duration),
                        \(row.endTime(running: PostgresSchema.runningEndTime)), \(row.type), \(row.typeClass),
                        \(row.content), \(row.description), \(row.tags), \(row.clientData), \(row.attachments),
                        \(row.streamIds), \(row.trashed), \(row.created), \(row.createdBy), \(row.modified), \(row.modifiedBy))
                    ON CONFLICT (user_name, id) DO NOTHING RETURNING seq
                    """, logger: logger).collect()
                if inserted.isEmpty {
                    let stored = try await events(
                        "SELECT \(unescaped: Self.eventColumns) FROM events WHERE user_name = \(userName) AND id = \(event.id)",
                        connection)
                    guard let first = stored.first else {
                        throw StoreError.corrupt("event \(event.id) neither inserted nor found")
                    }
                    results.append(.existing(first))
                    continue
                }
                for upload in write.uploads {
                    // A spooled file is read on the blocking pool, once its event is known to be new.
                    let bytes = try await BlockingFileWork.run { try upload.bytes() }
                    try await connection.query("""
                        INSERT INTO attachments (user_name, event_id, attachment_id, data)
                        VALUES (\(userName), \(event.id), \(upload.attachment.id), \(ByteBuffer(bytes: bytes)))
                        ON CONFLICT (user_name, event_id, attachment_id) DO UPDATE SET data = excluded.data
                        """, logger: logger)
                }
                results.append(.created(event))
            }
            let created = results.compactMap { result -> String? in
                if case .created(let event) = result { event.id } else { nil }
            }
            try await notifyChanges(ids: created, userName: userName, connection)
            return results
        }
    }

    /// The event with this identifier, trashed or not.
    public func event(id: String, for userName: String) async throws -> Event? {
        try await events(
            "SELECT \(unescaped: Self.eventColumns) FROM events WHERE user_name = \(userName) AND id = \(id)"
        ).first
    }

    /// Replaces the event with the same identifier; the attachments it no longer lists are
    /// deleted.
    public func replaceEvent(_ event: Event, for userName: String, ifModifiedAt modified: Double?) async throws {
        try await transaction { connection in
            if let modified {
                // The row stays locked until the transaction ends: no change can slip in between.
                let rows = try await connection.query("""
                    SELECT modified FROM events WHERE user_name = \(userName) AND id = \(event.id) FOR UPDATE
                    """, logger: logger)
                var stored: Double?
                for try await value in rows.decode(Double.self) { stored = value }
                guard let current = stored else { throw StoreError.notFound("event", id: event.id) }
                if current != modified { throw StoreError.changed("event", id: event.id) }
            }
            let row = EventColumns(event)
            let updated = try await connection.query("""
                UPDATE events SET time = \(row.time), duration = \(row.duration),
                    end_time = \(row.endTime(running: PostgresSchema.runningEndTime)),
                    type = \(row.type), type_class = \(row.typeClass), content = \(row.content),
                    description = \(row.description), tags = \(row.tags), client_data = \(row.clientData),
                    attachments = \(row.attachments), stream_ids = \(row.streamIds), trashed = \(row.trashed),
                    created = \(row.created), created_by = \(row.createdBy), modified = \(row.modified),
                    modified_by = \(row.modifiedBy)
                WHERE user_name = \(userName) AND id = \(event.id)
                RETURNING seq
                """, logger: logger).collect()
            if updated.isEmpty { throw StoreError.notFound("event", id: event.id) }
            try await notifyChanges(ids: [event.id], userName: userName, connection)
            try await connection.query("""
                DELETE FROM attachments WHERE user_name = \(userName) AND event_id = \(event.id)
                    AND NOT (attachment_id = ANY(\(event.attachments.map(\.id))))
                """, logger: logger)
        }
    }

    /// Deletes an event and (by cascade) its attachments.
    public func removeEvent(id: String, for userName: String, ifModifiedAt modified: Double?) async throws -> Bool {
        guard let modified else {
            return try await transaction { connection in
                let removed = try await connection.query(
                    "DELETE FROM events WHERE user_name = \(userName) AND id = \(id) RETURNING seq", logger: logger
                ).collect()
                guard !removed.isEmpty else { return false }
                try await Self.recordDeletion(of: id, for: userName, connection, logger: logger)
                return true
            }
        }
        return try await transaction { connection in
            let rows = try await connection.query("""
                SELECT modified FROM events WHERE user_name = \(userName) AND id = \(id) FOR UPDATE
                """, logger: logger)
            var stored: Double?
            for try await value in rows.decode(Double.self) { stored = value }
            guard let current = stored else { return false }
            if current != modified { throw StoreError.changed("event", id: id) }
            try await connection.query("DELETE FROM events WHERE user_name = \(userName) AND id = \(id)", logger: logger)
            try await Self.recordDeletion(of: id, for: userName, connection, logger: logger)
            return true
        }
    }

    /// Leaves the tombstone of a deleted event, in the deletion's transaction.
    private static func recordDeletion(of id: String, for userName: String, _ connection: PostgresConnection, logger: Logger) async throws {
        let now = Date().timeIntervalSince1970
        try await connection.query("""
            INSERT INTO event_deletions (user_name, id, deleted) VALUES (\(userName), \(id), \(now))
            ON CONFLICT (user_name, id) DO UPDATE SET deleted = EXCLUDED.deleted
            """, logger: logger)
    }

    /// The tombstones of the user's deleted events, deleted after `since`, oldest first, after
    /// `after`, at most `limit`.
    public func eventDeletions(of userName: String, since: Double, after: EventDeletion?, limit: Int) async throws -> [EventDeletion] {
        let afterDeleted = after?.deleted ?? -Double.greatestFiniteMagnitude
        let afterId = after?.id ?? ""
        var deletions: [EventDeletion] = []
        for try await (id, deleted) in try await client.query("""
            SELECT id, deleted FROM event_deletions d
            WHERE user_name = \(userName) AND deleted > \(since)
                AND (deleted > \(afterDeleted) OR (deleted = \(afterDeleted) AND id > \(afterId)))
                AND NOT EXISTS (SELECT 1 FROM events e WHERE e.user_name = d.user_name AND e.id = d.id)
            ORDER BY deleted, id LIMIT \(max(0, limit))
            """, logger: logger).decode((String, Double).self) {
            deletions.append(EventDeletion(id: id, deleted: deleted))
        }
        return deletions
    }

    /// Forgets the user's tombstones of events deleted before `time`; returns how many.
    public func removeEventDeletions(of userName: String, before time: Double) async throws -> Int {
        try await client.query("DELETE FROM event_deletions WHERE user_name = \(userName) AND deleted < \(time) RETURNING id",
                               logger: logger).collect().count
    }

    /// One page of the events matching `query`, with the place it ended.
    public func eventPage(matching query: EventQuery, for userName: String) async throws -> EventPage {
        var page = EventPage(events: [], end: nil)
        for try await row in try await client.query(Self.sql(for: query, userName: userName), logger: logger) {
            let (event, place) = try Self.placedEvent(from: row)
            page.events.append(event)
            page.end = place
        }
        return page
    }

    /// The bytes of one attachment.
    public func attachmentData(eventId: String, attachmentId: String, for userName: String) async throws -> [UInt8]? {
        for try await data in try await client.query("""
            SELECT data FROM attachments
            WHERE user_name = \(userName) AND event_id = \(eventId) AND attachment_id = \(attachmentId)
            """, logger: logger).decode(ByteBuffer.self) {
            return Array(data.readableBytesView)
        }
        return nil
    }
}
