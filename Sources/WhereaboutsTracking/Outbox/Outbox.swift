import Foundation
import GRDB
import Whereabouts

/// The durable queue between a tracker and the server: every event, duration update, note and
/// picture is written here, and synced to disk, before the caller hears that it was accepted.
///
/// - **Durable acknowledgements.** The database is SQLite in WAL mode with `synchronous = FULL`:
///   when `enqueue(_:checkpoint:)` returns, the change survives a crash of the process and a
///   power cut. Changes that arrive while a write is in flight are committed together in the
///   next one (group commit), so many callers share one sync.
/// - **Folding.** A duration update to an event still in the outbox changes that event's create:
///   the server gets one create with the final duration.
/// - **Order.** Items are delivered in the order they were queued.
/// - **Nothing lost, nothing stuck.** An item the server refuses for good keeps the server's
///   reason and waits, skipped by delivery, until it is retried or discarded on purpose.
/// - **Bounded memory.** The sender reads items in batches; a backlog of millions costs disk,
///   not memory.
///
/// ```swift
/// let outbox = try Outbox(path: "outbox.sqlite")
/// try await outbox.enqueue(.create(event))
/// try await outbox.enqueue(.updateDuration(eventId: event.id, duration: 42))
/// print(try await outbox.status().pending)   // 1: the update folded into the create
/// ```
public actor Outbox {
    /// The database file.
    public nonisolated let path: String
    /// The folder where attached files wait (`PATH.files`).
    public nonisolated let filesFolder: String
    /// Signals, after each write, that items may be waiting (one consumer: the sender).
    public nonisolated let arrivals: AsyncStream<Void>
    /// Whom this handle queues for and delivers to: items it writes carry it, delivery and
    /// status see only its items (and those queued before destinations were kept), and
    /// checkpoints are its own. `nil` (until ``scope(to:)`` or ``scope(for:)``): every item,
    /// and checkpoints named by their source alone.
    public internal(set) var destination: OutboxDestination?

    /// The largest file an item may carry (64 MiB).
    public static let maximumAttachmentSize = 64 << 20

    /// The outbox's database (WAL, `synchronous = FULL`).
    let database: DatabaseQueue
    /// Yields after each write: the other end of ``arrivals``.
    let arrivalSignal: AsyncStream<Void>.Continuation
    /// Writes that arrive while one is being committed go together in the next transaction.
    private let commits: GroupCommit<Submission, Void>
    /// How large one transaction of the outbox may grow: up to 1,024 submissions or 65,536 changes.
    private static let groupLimits = GroupCommit<Submission, Void>.Limits(writes: 1_024, weight: 65_536)

    private struct Submission: Sendable {
        var changes: [PreparedChange]
        var checkpoint: OutboxCheckpoint?
        /// The destination's key, or empty.
        var destination: String
    }

    private enum PreparedChange: Sendable {
        case create(eventId: String, body: [UInt8], duration: Double, attachmentPath: String?, attachmentName: String?)
        case update(eventId: String, duration: Double)
    }

    /// Opens the outbox at `path`, creating it (and its folder) when needed.
    public init(path: String) throws {
        self.path = path
        self.filesFolder = path + ".files"
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw OutboxError.cannotOpen(path: path, reason: "cannot create its folder: \(error.localizedDescription)")
            }
        }
        var configuration = Configuration()
        configuration.label = "whereabouts.outbox"
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(10)
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            // GRDB's WAL set-up chooses synchronous = NORMAL; the outbox promises more.
            try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Self.migrate(database)
        } catch {
            throw OutboxError.cannotOpen(path: path, reason: "\(error)")
        }
        let (arrivals, arrivalSignal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.arrivals = arrivals
        self.arrivalSignal = arrivalSignal
        commits = GroupCommit(limits: Self.groupLimits, weight: { $0.changes.count }) { [database] group in
            await Self.write(group, to: database, signalling: arrivalSignal)
        }
    }

    /// Brings the schema up to date. Two processes that open a new outbox at once (`track` and
    /// `sync`, or a watcher) can both find a migration missing; the one that loses the race
    /// fails on a table the other just made, and finds the migration done when it looks again.
    private static func migrate(_ database: DatabaseQueue) throws {
        var attempt = 1
        while true {
            do {
                try OutboxSchema.migrator.migrate(database)
                return
            } catch {
                if (try? database.read({ db in try OutboxSchema.migrator.hasCompletedMigrations(db) })) == true { return }
                guard attempt < 5 else { throw error }
                usleep(useconds_t(20_000 * attempt))
                attempt += 1
            }
        }
    }

    /// The database's `synchronous` setting (2 is FULL): what a test reads back.
    public func synchronousSetting() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    // MARK: Writing

    /// Writes `change` durably.
    public func enqueue(_ change: OutboxChange, checkpoint: OutboxCheckpoint? = nil) async throws {
        try await enqueue([change], checkpoint: checkpoint)
    }

    /// Writes `changes` and `checkpoint` durably, in one transaction, and returns once they are
    /// on disk. Changes that arrive while a write is in flight are committed together next.
    public func enqueue(_ changes: [OutboxChange], checkpoint: OutboxCheckpoint? = nil) async throws {
        let prepared = try changes.map(prepare)
        let named = checkpoint.map { OutboxCheckpoint(source: checkpointKey($0.source), state: $0.state, finished: $0.finished) }
        try await commits.submit(Submission(changes: prepared, checkpoint: named, destination: destination?.key ?? ""))
    }

    /// Commits `group` in one transaction; when that fails, each submission alone, so that one
    /// bad submission fails only its own caller. Then tells the sender that items may wait.
    private static func write(_ group: [Submission], to database: DatabaseQueue,
                              signalling arrivalSignal: AsyncStream<Void>.Continuation) async -> [Result<Void, any Error>] {
        do {
            try await database.write { db in
                for submission in group { try Self.apply(submission, db) }
            }
            arrivalSignal.yield()
            return group.map { _ in .success(()) }
        } catch {
            guard group.count > 1 else { return [.failure(error)] }
            var results: [Result<Void, any Error>] = []
            for submission in group {
                do {
                    try await database.write { db in try Self.apply(submission, db) }
                    results.append(.success(()))
                } catch {
                    results.append(.failure(error))
                }
            }
            arrivalSignal.yield()
            return results
        }
    }

    private static func apply(_ submission: Submission, _ db: Database) throws {
        let now = Date().timeIntervalSince1970
        for change in submission.changes {
            switch change {
            case .create(let eventId, let body, let duration, let attachmentPath, let attachmentName):
                let insert = try db.cachedStatement(sql: """
                    INSERT INTO item (kind, eventId, body, duration, attachmentPath, attachmentName, queuedAt, destination)
                    VALUES ('create', ?, ?, ?, ?, ?, ?, ?)
                    """)
                try insert.execute(arguments: [eventId, Data(body), duration, attachmentPath, attachmentName, now,
                                               submission.destination])
            case .update(let eventId, let duration):
                let latest = try db.cachedStatement(sql: "SELECT seq FROM item WHERE eventId = ? ORDER BY seq DESC LIMIT 1")
                if let sequence = try Int64.fetchOne(latest, arguments: [eventId]) {
                    let fold = try db.cachedStatement(sql: "UPDATE item SET duration = ?, revision = revision + 1 WHERE seq = ?")
                    try fold.execute(arguments: [duration, sequence])
                } else {
                    let insert = try db.cachedStatement(sql: """
                        INSERT INTO item (kind, eventId, body, duration, queuedAt, destination) VALUES ('update', ?, x'', ?, ?, ?)
                        """)
                    try insert.execute(arguments: [eventId, duration, now, submission.destination])
                }
            }
        }
        if let checkpoint = submission.checkpoint {
            let save = try db.cachedStatement(sql: """
                INSERT INTO checkpoint (source, state, finished, updatedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (source) DO UPDATE SET state = excluded.state, finished = excluded.finished,
                    updatedAt = excluded.updatedAt
                """)
            try save.execute(arguments: [checkpoint.source, Data(checkpoint.state), checkpoint.finished, now])
        }
    }

    /// Checks a change and turns it into what the database keeps; copies an attachment in.
    private func prepare(_ change: OutboxChange) throws -> PreparedChange {
        switch change {
        case .create(let event, let attachment):
            try Self.check(id: event.id)
            guard event.time.isFinite, event.time >= 0, event.duration.isFinite, event.duration >= 0 else {
                throw OutboxError.invalidChange("event \(event.id): its time and duration must be finite and not negative")
            }
            let body = Self.bodyWithoutDuration(event)
            var path: String?, name: String?
            if let attachment {
                (path, name) = try copyIn(attachment, eventId: event.id)
            }
            return .create(eventId: event.id, body: body, duration: event.duration, attachmentPath: path, attachmentName: name)
        case .updateDuration(let eventId, let duration):
            try Self.check(id: eventId)
            guard duration.isFinite, duration >= 0 else {
                throw OutboxError.invalidChange("event \(eventId): a duration must be finite and not negative, found \(duration)")
            }
            return .update(eventId: eventId, duration: duration)
        }
    }

    /// The event's JSON without its `duration` member (encoded once).
    private static func bodyWithoutDuration(_ event: TrackedEvent) -> [UInt8] {
        let json = event.jsonValue
        guard case .object(let members) = json else { return JSONWriter().bytes(from: json) }
        return JSONWriter().bytes(from: .object(members.filter { $0.key != "duration" }))
    }

    private static func check(id: String) throws {
        let allowed = id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        guard (1...100).contains(id.utf8.count), allowed else {
            throw OutboxError.invalidChange("\"\(id)\" is not an event id (1 to 100 letters, digits, -, _ or .)")
        }
    }

    /// Copies `url` into the outbox's folder and syncs it; returns where it is and its name.
    private func copyIn(_ url: URL, eventId: String) throws -> (String, String) {
        let name = url.lastPathComponent.isEmpty ? "file" : url.lastPathComponent
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard let size = (attributes?[.size] as? NSNumber)?.intValue else {
            throw OutboxError.invalidChange("cannot read \(url.path)")
        }
        guard size <= Self.maximumAttachmentSize else {
            throw OutboxError.invalidChange("\(url.path) has \(size) bytes; an attachment may have at most \(Self.maximumAttachmentSize)")
        }
        let folder = (filesFolder as NSString).appendingPathComponent(eventId)
        let copy = (folder as NSString).appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            if FileManager.default.fileExists(atPath: copy) { try FileManager.default.removeItem(atPath: copy) }
            try FileManager.default.copyItem(atPath: url.path, toPath: copy)
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: copy))
            try handle.synchronize()
            try handle.close()
            Self.syncFolder(folder)
            Self.syncFolder(filesFolder)
        } catch {
            throw OutboxError.invalidChange("cannot copy \(url.path) into the outbox: \(error.localizedDescription)")
        }
        return (copy, name)
    }

    private static func syncFolder(_ path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
