import Foundation
import GRDB
import Whereabouts

/// How the SQLite store inserts events: the calls that arrive together go in one transaction
/// (`GroupCommit`), each call in a savepoint of its own.
extension SQLiteEventStore {
    /// One call's events, ready to insert: their rows, and their files already at their final
    /// paths (or staged).
    struct EventInsert: Sendable {
        let userName: String
        let writes: [EventWrite]
        let placed: [[PlacedFile]]
        /// Each event's columns, with its stream ids already as the JSON text SQLite keeps.
        let rows: [(columns: EventColumns, streamIdsText: String)]

        /// The row of `event`, encoded before the writer's turn.
        static func row(of event: Event) -> (columns: EventColumns, streamIdsText: String) {
            let columns = EventColumns(event)
            return (columns, columns.streamIds.jsonText)
        }
    }

    /// What inserting one call's events did: a result each, and the files of events that turned
    /// out to exist already (to remove).
    struct EventInsertOutcome: Sendable {
        let results: [EventCreation]
        let unused: [PlacedFile]
    }

    /// The largest group of calls committed together: 64 calls, or 20,000 events (a call larger
    /// than that goes alone).
    static let eventGroupLimits = GroupCommit<EventInsert, EventInsertOutcome>.Limits(writes: 64, weight: 20_000)

    /// Inserts a group of calls in one transaction, each in a savepoint of its own, so that one
    /// call's failure (an unknown user) rolls back that call only; a failure that ends the
    /// transaction itself (a full disk) fails them all, as their commit does.
    static func insert(_ group: [EventInsert], into pool: DatabasePool, files: AttachmentFiles) async
        -> [Result<EventInsertOutcome, any Error>] {
        do {
            return try await pool.writeWithoutTransaction { db in try Self.inTransaction(db) {
                var outcomes: [Result<EventInsertOutcome, any Error>] = []
                outcomes.reserveCapacity(group.count)
                for insert in group {
                    var outcome: EventInsertOutcome?
                    do {
                        outcome = try Self.inCallSavepoint(db) { try Self.insert(insert, db, files: files) }
                    } catch {
                        // SQLite ends the whole transaction on some errors (a full disk, I/O).
                        guard db.isInsideTransaction else { throw error }
                        outcomes.append(.failure(error))
                        continue
                    }
                    outcomes.append(outcome.map { .success($0) }
                        ?? .failure(StoreError.corrupt("no outcome for the events of \(insert.userName)")))
                }
                return outcomes
            } }
        } catch {
            return group.map { _ in .failure(error) }
        }
    }

    /// Runs `body` in a transaction, committed when it returns and rolled back when it throws:
    /// `DatabaseWriter.write`'s work with statements kept prepared (see ``inCallSavepoint(_:_:)``).
    static func inTransaction<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        let value: T
        do {
            value = try body()
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute() }
            throw error
        }
        return value
    }

    /// Runs `body` in a savepoint of its own, released when it returns and rolled back when it
    /// throws (while the transaction lasts). `Database.inSavepoint`'s work with statements kept
    /// prepared: a group opens one savepoint a call, and preparing its two statements again for
    /// every call cost two SQL parses and some thirty allocations a request.
    static func inCallSavepoint<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.cachedStatement(sql: "SAVEPOINT event_call").execute()
        let value: T
        do {
            value = try body()
        } catch {
            if db.isInsideTransaction {
                try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT event_call").execute()
                try db.cachedStatement(sql: "RELEASE SAVEPOINT event_call").execute()
            }
            throw error
        }
        try db.cachedStatement(sql: "RELEASE SAVEPOINT event_call").execute()
        return value
    }

    /// Inserts one call's events (inside the caller's transaction).
    private static func insert(_ insert: EventInsert, _ db: Database, files: AttachmentFiles) throws -> EventInsertOutcome {
        let userName = insert.userName
        guard try Self.userExists(userName, db) else { throw StoreError.notFound("user", id: userName) }
        var results: [EventCreation] = []
        var unused: [PlacedFile] = []
        results.reserveCapacity(insert.writes.count)
        let statement = try db.cachedStatement(sql: EventColumns.sqliteInsert)
        for ((write, placed), row) in zip(zip(insert.writes, insert.placed), insert.rows) {
            let event = write.event
            try row.columns.insert(with: statement, userName: userName, streamIdsText: row.streamIdsText, in: db)
            if db.changesCount == 0 {
                guard let stored = try Self.fetchEvent(id: event.id, userName: userName, db) else {
                    throw StoreError.corrupt("event \(event.id) neither inserted nor found")
                }
                results.append(.existing(stored))
                unused.append(contentsOf: placed)
            } else {
                // Only a file whose final name was taken is still staged (rare).
                let staged = placed.compactMap { if case .staged(let file) = $0 { file } else { nil } }
                try files.install(staged, user: userName, event: event.id)
                results.append(.created(event))
            }
        }
        return EventInsertOutcome(results: results, unused: unused)
    }
}
