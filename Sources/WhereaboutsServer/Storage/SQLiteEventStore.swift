import Foundation
import GRDB
import Whereabouts

/// The default store: one SQLite database (through GRDB) in a directory, with attachments as
/// files beside it.
///
/// The directory holds `whereabouts.sqlite` (WAL mode, so readers never wait for the writer)
/// and `attachments/<user>/<event>/<attachment>`. An attachment's file is written and synced
/// at its final path before the row of its event commits, so a crash can leave an orphan file
/// but never an event whose file is missing. Event writes that arrive while others are being
/// committed wait and are committed together, in one transaction (group commit): under load,
/// one commit — with `durability: .full`, one sync to disk — acknowledges many requests.
///
/// ```swift
/// let store = try SQLiteEventStore(directory: "./whereabouts-data")
/// try await store.migrate()
/// let results = try await store.addEvents([EventWrite(event: fix)], for: "alice")
/// ```
public final class SQLiteEventStore: EventStore {
    /// The directory the store keeps its files in.
    public let directory: String
    /// How hard the store works to keep acknowledged writes.
    public let durability: Durability

    /// The database (internal: the group-commit tests commit a group of their making on it).
    let pool: DatabasePool
    /// Where attachments are kept.
    let files: AttachmentFiles
    /// Event inserts that arrive while others are being committed are committed together, in
    /// one transaction: with `durability: .full`, one sync to disk acknowledges them all.
    let eventInserts: GroupCommit<EventInsert, EventInsertOutcome>

    /// The database file's name within ``directory``.
    public static let databaseFileName = "whereabouts.sqlite"

    /// Opens the store in `directory`, creating the directory and the database when missing.
    /// Call ``migrate()`` before using it.
    ///
    /// - Parameters:
    ///   - directory: Where the database and the attachments live.
    ///   - durability: `.normal` (an acknowledged write survives the process being killed) or
    ///     `.full` (it also survives a power cut); see ``Durability``.
    public init(directory: String, durability: Durability = .normal) throws {
        self.directory = directory
        self.durability = durability
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageIOError(path: directory, operation: "create the data directory", reason: "\(error)")
        }
        var configuration = Configuration()
        configuration.label = "whereabouts"
        configuration.busyMode = .timeout(10)
        let synchronous = durability == .full ? "FULL" : "NORMAL"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            // Index pages stay in memory (32 MiB a connection instead of SQLite's 2 MiB) and the first
            // 256 MiB of the file are read through a memory map rather than copied by read(2):
            // inserts into a store of millions of events otherwise spend most of their time
            // re-reading index pages. The mapped pages count in the server's RSS, up to that size.
            try db.execute(sql: "PRAGMA cache_size = -32768")
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
        }
        let path = (directory as NSString).appendingPathComponent(Self.databaseFileName)
        self.pool = try DatabasePool(path: path, configuration: configuration)
        // Opening the pool switches the writer to WAL and, with it, to synchronous = NORMAL,
        // whatever `prepareDatabase` set: the writer, the only connection that commits, gets the
        // durability asked for here, after GRDB's set-up.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
        let files = AttachmentFiles(root: (directory as NSString).appendingPathComponent("attachments"))
        self.files = files
        try files.prepare()
        let pool = self.pool
        eventInserts = GroupCommit(limits: Self.eventGroupLimits, weight: { $0.writes.count }) { group in
            await Self.insert(group, into: pool, files: files)
        }
    }

    /// `attachments/.incoming`: uploads spooled here are moved into place by a rename.
    public var uploadSpoolDirectory: String { files.incoming }

    /// The `synchronous` setting of the connection that commits (1 is NORMAL, 2 is FULL): what
    /// ``durability`` promises, read back.
    public func synchronousSetting() async throws -> Int {
        try await pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Creates the tables and indexes or brings them up to date, and removes attachment files
    /// that a crash left staged but never installed (those older than an hour: another process
    /// on the same directory may be staging one right now).
    public func migrate() async throws {
        try await pool.writeWithoutTransaction { _ in }  // the pool is open and writable
        try SQLiteSchema.migrator.migrate(pool)
        files.removeStaged(olderThan: 3_600)
    }

    /// Closes the database.
    public func close() async throws {
        try pool.close()
    }

    // MARK: Users and accesses

    /// Adds a user and their initial streams in one transaction.
    public func addUser(_ user: User, streams: [EventStream]) async throws {
        try await pool.write { db in
            if try Self.userExists(user.name, db) { throw StoreError.alreadyExists("user", id: user.name) }
            try db.execute(sql: "INSERT INTO users (name, created) VALUES (?, ?)",
                           arguments: [user.name, user.created])
            for stream in streams { try Self.insert(stream, for: user.name, db) }
        }
    }

    /// The user with this name, if any.
    public func user(named name: String) async throws -> User? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT name, created FROM users WHERE name = ?", arguments: [name])
                .map { User(name: $0[0], created: $0[1]) }
        }
    }

    /// Every user, by name.
    public func users() async throws -> [User] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT name, created FROM users ORDER BY name")
                .map { User(name: $0[0], created: $0[1]) }
        }
    }

    /// Erases a user: their rows in one transaction with SQLite's `secure_delete` on (the freed
    /// pages are overwritten with zeros), then the write-ahead log checkpointed and truncated (so
    /// no old page stays in it; a reader that holds the log past the busy timeout leaves that
    /// to the next checkpoint), then their attachment folder. A folder left by a crash after the
    /// rows went is removed by the next call for the same name, which then returns `nil`.
    public func removeUser(named name: String) async throws -> UserRemoval? {
        let removal = try await pool.writeWithoutTransaction { db -> UserRemoval? in
            let previous = try Int.fetchOne(db, sql: "PRAGMA secure_delete") ?? 0
            try db.execute(sql: "PRAGMA secure_delete = ON")
            defer { try? db.execute(sql: "PRAGMA secure_delete = \(previous)") }
            var removal: UserRemoval?
            try db.inTransaction {
                guard try Self.userExists(name, db) else { return .commit }
                let hashes = try String.fetchAll(db, sql: "SELECT token_hash FROM accesses WHERE user_name = ?", arguments: [name])
                func delete(_ table: String) throws -> Int {
                    try db.execute(sql: "DELETE FROM \(table) WHERE user_name = ?", arguments: [name])
                    return db.changesCount
                }
                let events = try delete("events"), deletions = try delete("event_deletions")
                let accesses = try delete("accesses"), streams = try delete("streams")
                try db.execute(sql: "DELETE FROM users WHERE name = ?", arguments: [name])
                removal = UserRemoval(events: events, streams: streams, accesses: accesses, deletions: deletions, tokenHashes: hashes)
                return .commit
            }
            // The user is gone either way; a reader holding the log for longer than the busy
            // timeout only delays its truncation to the next checkpoint.
            if removal != nil { _ = try? db.checkpoint(.truncate) }
            return removal
        }
        try await BlockingFileWork.run { [files] in try files.removeUser(name) }
        return removal
    }

    /// How many seconds the user's events are kept (`nil`: the server's default).
    public func retention(of userName: String) async throws -> Double? {
        try await pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT retention FROM users WHERE name = ?", arguments: [userName]) else {
                throw StoreError.notFound("user", id: userName)
            }
            return row[0]
        }
    }

    /// Sets how many seconds the user's events are kept.
    public func setRetention(_ seconds: Double?, for userName: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET retention = ? WHERE name = ?", arguments: [seconds, userName])
            if db.changesCount == 0 { throw StoreError.notFound("user", id: userName) }
        }
    }

    /// Deletes at most `limit` of the user's events that ended before `cutoff`, oldest first,
    /// with tombstones, in one transaction (found by the `(user_name, time)` index: an event
    /// that ended before the cutoff began before it); then their attachment folders.
    public func purgeEvents(of userName: String, endedBefore cutoff: Double, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        let ids = try await pool.write { db -> [String] in
            // One statement deletes the batch and names what it deleted; one prepared statement
            // leaves the tombstones.
            let ids = try String.fetchAll(db, sql: """
                DELETE FROM events WHERE seq IN (
                    SELECT seq FROM events WHERE user_name = ? AND time < ? AND end_time < ? ORDER BY time LIMIT ?
                ) RETURNING id
                """, arguments: [userName, cutoff, cutoff, limit])
            let tombstone = try db.cachedStatement(sql: "INSERT OR REPLACE INTO event_deletions (user_name, id, deleted) VALUES (?, ?, ?)")
            let now = Date().timeIntervalSince1970
            for id in ids { try tombstone.execute(arguments: [userName, id, now]) }
            return ids
        }
        if !ids.isEmpty {
            try await BlockingFileWork.run { [files] in for id in ids { files.remove(user: userName, event: id) } }
        }
        return ids.count
    }

    /// The user's streams with a retention of their own.
    public func streamRetentions(of userName: String) async throws -> [String: Double] {
        try await pool.read { db in
            guard try Self.userExists(userName, db) else { throw StoreError.notFound("user", id: userName) }
            var found: [String: Double] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, retention FROM streams WHERE user_name = ? AND retention IS NOT NULL",
                                        arguments: [userName]) {
                found[row[0]] = row[1]
            }
            return found
        }
    }

    /// Sets how many seconds a stream's events are kept.
    public func setRetention(_ seconds: Double?, for userName: String, stream streamId: String) async throws {
        try await pool.write { db in
            guard try Self.userExists(userName, db) else { throw StoreError.notFound("user", id: userName) }
            try db.execute(sql: "UPDATE streams SET retention = ? WHERE user_name = ? AND id = ?",
                           arguments: [seconds, userName, streamId])
            if db.changesCount == 0 { throw StoreError.notFound("stream", id: streamId) }
        }
    }

    /// Deletes at most `limit` of the user's events in `streamIds` that ended before `cutoff`
    /// and began at or after `start`, oldest first, with tombstones, in one transaction.
    public func purgeEvents(of userName: String, inStreams streamIds: [String], endedBefore cutoff: Double,
                            startingAt start: Double, limit: Int) async throws -> PurgeBatch {
        guard limit > 0, !streamIds.isEmpty else { return PurgeBatch(events: 0, lastTime: nil) }
        let streams = JSONWriter().string(from: .array(streamIds.map(JSONValue.string)))
        let gone = try await pool.write { db -> [(id: String, time: Double)] in
            let rows = try Row.fetchAll(db, sql: """
                DELETE FROM events WHERE seq IN (
                    SELECT seq FROM events WHERE user_name = ? AND time >= ? AND time < ? AND end_time < ?
                        AND EXISTS (SELECT 1 FROM json_each(events.stream_ids) AS s
                                    WHERE s.value IN (SELECT value FROM json_each(?)))
                    ORDER BY time LIMIT ?
                ) RETURNING id, time
                """, arguments: [userName, start, cutoff, cutoff, streams, limit])
            let tombstone = try db.cachedStatement(sql: "INSERT OR REPLACE INTO event_deletions (user_name, id, deleted) VALUES (?, ?, ?)")
            let now = Date().timeIntervalSince1970
            let gone = rows.map { row -> (id: String, time: Double) in (row[0], row[1]) }
            for event in gone { try tombstone.execute(arguments: [userName, event.id, now]) }
            return gone
        }
        if !gone.isEmpty {
            try await BlockingFileWork.run { [files] in for event in gone { files.remove(user: userName, event: event.id) } }
        }
        return PurgeBatch(events: gone.count, lastTime: gone.map(\.time).max())
    }

    /// Stores an access. Throws ``StoreError/notFound(_:id:)`` for an unknown user and
    /// ``StoreError/alreadyExists(_:id:)`` when the identifier or the token hash is taken.
    public func addAccess(_ access: Access) async throws {
        try await pool.write { db in
            guard try Self.userExists(access.userName, db) else { throw StoreError.notFound("user", id: access.userName) }
            let taken = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM accesses WHERE token_hash = ? OR (user_name = ? AND id = ?))
                """, arguments: [access.tokenHash, access.userName, access.id]) ?? false
            if taken { throw StoreError.alreadyExists("access", id: access.id) }
            try db.execute(sql: """
                INSERT INTO accesses (user_name, id, name, token_hash, permissions, created, expires,
                                      type, created_by, modified, modified_by, token)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [access.userName, access.id, access.name, access.tokenHash,
                                 StoreEncoding.permissionsText(access.permissions), access.created, access.expires,
                                 access.type.rawValue, access.createdBy, access.modified, access.modifiedBy, access.token])
        }
    }

    /// Replaces the access with the same user and identifier (its name, permissions, expiry and
    /// last change; its token stays). Throws ``StoreError/notFound(_:id:)``.
    public func replaceAccess(_ access: Access) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                UPDATE accesses SET name = ?, permissions = ?, expires = ?, modified = ?, modified_by = ?
                WHERE user_name = ? AND id = ?
                """, arguments: [access.name, StoreEncoding.permissionsText(access.permissions), access.expires,
                                 access.modified, access.modifiedBy, access.userName, access.id])
            if db.changesCount == 0 { throw StoreError.notFound("access", id: access.id) }
        }
    }

    private static let accessColumns =
        "id, user_name, name, token_hash, permissions, created, expires, type, created_by, modified, modified_by, token"

    private static func access(_ row: Row) throws -> Access {
        let typeName: String = row[7]
        guard let type = AccessType(rawValue: typeName) else { throw StoreError.corrupt("unknown access type \"\(typeName)\"") }
        return Access(id: row[0], userName: row[1], name: row[2], tokenHash: row[3],
                      permissions: try StoreEncoding.permissions(row[4]), created: row[5], expires: row[6],
                      type: type, createdBy: row[8], modified: row[9], modifiedBy: row[10], token: row[11])
    }

    /// The access whose token hashes to `tokenHash`, if any.
    public func access(tokenHash: String) async throws -> Access? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.accessColumns) FROM accesses WHERE token_hash = ?", arguments: [tokenHash])
                .map(Self.access)
        }
    }

    /// A user's accesses, in creation order.
    public func accesses(of userName: String) async throws -> [Access] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.accessColumns) FROM accesses WHERE user_name = ? ORDER BY created, rowid",
                             arguments: [userName]).map(Self.access)
        }
    }

    /// Removes the access whose token hashes to `tokenHash`; returns whether there was one.
    public func removeAccess(tokenHash: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM accesses WHERE token_hash = ?", arguments: [tokenHash])
            return db.changesCount > 0
        }
    }

    /// Removes a user's accesses labelled `name`; returns how many there were.
    public func removeAccesses(of userName: String, named name: String) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM accesses WHERE user_name = ? AND name = ?", arguments: [userName, name])
            return db.changesCount
        }
    }

    // MARK: Streams

    private static let streamColumns =
        "id, name, parent_id, client_data, trashed, created, created_by, modified, modified_by"

    /// All of a user's streams, in creation order.
    public func streams(of userName: String) async throws -> [EventStream] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.streamColumns) FROM streams WHERE user_name = ? ORDER BY rowid",
                             arguments: [userName])
                .map { row in
                    EventStream(id: row[0], name: row[1], parentId: row[2],
                                clientData: try StoreEncoding.json(row[3], column: "client_data"),
                                trashed: row[4], created: row[5], createdBy: row[6],
                                modified: row[7], modifiedBy: row[8])
                }
        }
    }

    /// Adds a stream. Throws ``StoreError/alreadyExists(_:id:)`` when the user has one with this
    /// identifier, ``StoreError/notFound(_:id:)`` for an unknown user.
    public func addStream(_ stream: EventStream, for userName: String) async throws {
        try await pool.write { db in
            guard try Self.userExists(userName, db) else { throw StoreError.notFound("user", id: userName) }
            try Self.insert(stream, for: userName, db)
        }
    }

    /// Deletes streams for good (their events were dealt with before); returns how many there were.
    public func removeStreams(ids: [String], for userName: String) async throws -> Int {
        try await pool.write { db in
            var removed = 0
            for id in ids {
                try db.execute(sql: "DELETE FROM streams WHERE user_name = ? AND id = ?", arguments: [userName, id])
                removed += db.changesCount
            }
            return removed
        }
    }

    /// Replaces the stream with the same identifier (it keeps its place in the order).
    public func replaceStream(_ stream: EventStream, for userName: String) async throws {
        try await pool.write { db in
            if let parent = stream.parentId {
                // Inside the write transaction: no other write can land between the check and the update.
                let inside = try Bool.fetchOne(db, sql: """
                    WITH RECURSIVE up(id, depth) AS (
                        SELECT ?, 0
                        UNION ALL
                        SELECT s.parent_id, up.depth + 1 FROM streams s JOIN up ON s.id = up.id AND s.user_name = ?
                        WHERE s.parent_id IS NOT NULL AND up.depth < \(StreamAncestry.maximumStreamDepth)
                    )
                    SELECT EXISTS (SELECT 1 FROM up WHERE id = ?)
                    """, arguments: [parent, userName, stream.id]) ?? false
                if inside { throw StoreError.cycle(streamId: stream.id, parentId: parent) }
            }
            try db.execute(sql: """
                UPDATE streams SET name = ?, parent_id = ?, client_data = ?, trashed = ?, created = ?,
                    created_by = ?, modified = ?, modified_by = ?
                WHERE user_name = ? AND id = ?
                """, arguments: [stream.name, stream.parentId, StoreEncoding.text(stream.clientData),
                                 stream.trashed, stream.created, stream.createdBy, stream.modified,
                                 stream.modifiedBy, userName, stream.id])
            if db.changesCount == 0 { throw StoreError.notFound("stream", id: stream.id) }
        }
    }

    private static func insert(_ stream: EventStream, for userName: String, _ db: Database) throws {
        let exists = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM streams WHERE user_name = ? AND id = ?)",
                                       arguments: [userName, stream.id]) ?? false
        if exists { throw StoreError.alreadyExists("stream", id: stream.id) }
        try db.execute(sql: """
            INSERT INTO streams (user_name, \(streamColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [userName, stream.id, stream.name, stream.parentId,
                             StoreEncoding.text(stream.clientData), stream.trashed, stream.created,
                             stream.createdBy, stream.modified, stream.modifiedBy])
    }

    /// Whether the store has a user of this name.
    static func userExists(_ name: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM users WHERE name = ?)"),
                          arguments: [name]) ?? false
    }

    // MARK: Events

    static let eventColumns = """
        seq, id, stream_ids, time, duration, type, content, description, tags, client_data, \
        attachments, trashed, created, created_by, modified, modified_by
        """

    /// Adds events in one transaction. Attachment files are put at their final paths and
    /// synced first, on the blocking pool and outside the writer's turn, so that the
    /// transaction holds only the inserts; those of an event that was already stored are
    /// removed after it.
    public func addEvents(_ writes: [EventWrite], for userName: String) async throws -> [EventCreation] {
        let attachmentFiles = files
        var placements: [[PlacedFile]] = []
        placements.reserveCapacity(writes.count)
        do {
            for write in writes {
                let uploads = write.uploads, eventId = write.event.id
                placements.append(uploads.isEmpty ? [] : try await BlockingFileWork.run {
                    try attachmentFiles.place(uploads, user: userName, event: eventId)
                })
            }
        } catch {
            files.discard(placements.joined())
            throw error
        }
        let placed = placements
        // The rows' values (JSON text of the content, the stream ids…) are made here, in parallel
        // with other requests, so that the writer's turn holds only the inserts.
        let rows = writes.map { EventInsert.row(of: $0.event) }
        do {
            let outcome = try await eventInserts.submit(EventInsert(userName: userName, writes: writes, placed: placed, rows: rows))
            files.discard(outcome.unused)
            return outcome.results
        } catch {
            files.discard(placed.joined())
            throw error
        }
    }


    /// The event with this identifier, trashed or not.
    public func event(id: String, for userName: String) async throws -> Event? {
        try await pool.read { db in try Self.fetchEvent(id: id, userName: userName, db) }
    }

    /// The user's event with this identifier, trashed or not, read inside the caller's access.
    static func fetchEvent(id: String, userName: String, _ db: Database) throws -> Event? {
        let statement = try db.cachedStatement(sql: "SELECT \(eventColumns) FROM events WHERE user_name = ? AND id = ?")
        return try Row.fetchOne(statement, arguments: [userName, id]).map(Self.event(from:))
    }

    private static func event(from row: Row) throws -> Event {
        let streamText: String = row[2]
        return try EventColumns(
            id: row[1], streamIds: [String](jsonText: streamText), time: row[3], duration: row[4],
            type: row[5], content: row[6], description: row[7], tags: row[8], clientData: row[9],
            attachments: row[10], trashed: row[11], created: row[12], createdBy: row[13],
            modified: row[14], modifiedBy: row[15]
        ).event()
    }

    /// Replaces the event with the same identifier. The files of attachments it no longer lists
    /// are removed.
    public func replaceEvent(_ event: Event, for userName: String, ifModifiedAt modified: Double?) async throws {
        let dropped = try await pool.write { db -> [String] in
            guard let old = try Self.fetchEvent(id: event.id, userName: userName, db) else {
                throw StoreError.notFound("event", id: event.id)
            }
            if let modified, old.modified != modified { throw StoreError.changed("event", id: event.id) }
            var arguments = EventColumns(event).sqliteArguments(userName: userName)
            arguments += [userName, event.id]
            try db.execute(sql: """
                UPDATE events SET (\(EventColumns.sqliteColumns)) = (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                WHERE user_name = ? AND id = ?
                """, arguments: arguments)
            let kept = Set(event.attachments.map(\.id))
            return old.attachments.map(\.id).filter { !kept.contains($0) }
        }
        for attachmentId in dropped {
            files.remove(user: userName, event: event.id, attachment: attachmentId)
        }
    }

    /// Deletes an event, then its attachment files.
    public func removeEvent(id: String, for userName: String, ifModifiedAt modified: Double?) async throws -> Bool {
        let removed = try await pool.write { db in
            if let modified {
                guard let old = try Self.fetchEvent(id: id, userName: userName, db) else { return false }
                if old.modified != modified { throw StoreError.changed("event", id: id) }
            }
            try db.execute(sql: "DELETE FROM events WHERE user_name = ? AND id = ?", arguments: [userName, id])
            guard db.changesCount > 0 else { return false }
            try db.execute(sql: "INSERT OR REPLACE INTO event_deletions (user_name, id, deleted) VALUES (?, ?, ?)",
                           arguments: [userName, id, Date().timeIntervalSince1970])
            return true
        }
        if removed { files.remove(user: userName, event: id) }
        return removed
    }

    /// The tombstones of the user's deleted events, deleted after `since`, oldest first, after
    /// `after`, at most `limit`.
    public func eventDeletions(of userName: String, since: Double, after: EventDeletion?, limit: Int) async throws -> [EventDeletion] {
        try await pool.read { db in
            // An identifier used again since its deletion is an event again, not a deletion.
            var sql = """
                SELECT id, deleted FROM event_deletions d WHERE user_name = ? AND deleted > ?
                    AND NOT EXISTS (SELECT 1 FROM events e WHERE e.user_name = d.user_name AND e.id = d.id)
                """
            var arguments: StatementArguments = [userName, since]
            if let after {
                sql += " AND (deleted > ? OR (deleted = ? AND id > ?))"
                arguments += [after.deleted, after.deleted, after.id]
            }
            sql += " ORDER BY deleted, id LIMIT ?"
            arguments += [max(0, limit)]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { EventDeletion(id: $0[0], deleted: $0[1]) }
        }
    }

    /// Forgets the user's tombstones of events deleted before `time`; returns how many.
    public func removeEventDeletions(of userName: String, before time: Double) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM event_deletions WHERE user_name = ? AND deleted < ?", arguments: [userName, time])
            return db.changesCount
        }
    }

    /// One page of the events matching `query`, with the place it ended.
    public func eventPage(matching query: EventQuery, for userName: String) async throws -> EventPage {
        let (sql, arguments) = Self.sql(for: query, userName: userName)
        return try await pool.read { db in
            let statement = try db.cachedStatement(sql: sql)
            var events: [Event] = []
            var end: EventCursor?
            let rows = try Row.fetchCursor(statement, arguments: arguments)
            while let row = try rows.next() {
                events.append(try Self.event(from: row))
                end = EventCursor(time: row[3], sequence: row[0])
            }
            return EventPage(events: events, end: end)
        }
    }

    /// The bytes of one attachment the event lists.
    public func attachmentData(eventId: String, attachmentId: String, for userName: String) async throws -> [UInt8]? {
        let listed = try await pool.read { db -> Bool in
            guard let event = try Self.fetchEvent(id: eventId, userName: userName, db) else { return false }
            return event.attachments.contains { $0.id == attachmentId }
        }
        guard listed else { return nil }
        return try files.read(user: userName, event: eventId, attachment: attachmentId)
    }
}
