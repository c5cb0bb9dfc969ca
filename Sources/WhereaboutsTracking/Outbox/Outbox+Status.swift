import Foundation
import GRDB
import Whereabouts

/// What the outbox holds, and repairs: its counts, refused items retried or discarded.
extension Outbox {
    /// What waits and what was refused, for this handle's destination (see ``destination``).
    public func status() throws -> OutboxStatus {
        let (mine, arguments) = destinationCondition
        let elsewhere = try itemsForOtherDestinations()
        return try database.read { db in
            let creates = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE failureId IS NULL AND kind = 'create' AND \(mine)",
                                           arguments: arguments) ?? 0
            let updates = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE failureId IS NULL AND kind = 'update' AND \(mine)",
                                           arguments: arguments) ?? 0
            let failed = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE failureId IS NOT NULL AND \(mine)",
                                          arguments: arguments) ?? 0
            let oldest = try Double.fetchOne(db, sql: "SELECT queuedAt FROM item WHERE failureId IS NULL AND \(mine) ORDER BY seq LIMIT 1",
                                             arguments: arguments)
            let failures = try Self.failures(db, where: "failureId IS NOT NULL AND \(mine) ORDER BY seq LIMIT 20", arguments)
            return OutboxStatus(pendingCreates: creates, pendingUpdates: updates, failed: failed, oldestQueuedAt: oldest,
                                failures: failures, elsewhere: elsewhere)
        }
    }

    /// The latest refusal of an item of the event `eventId` for this handle's destination, if the
    /// server refused one and it still waits (found by the event's index, however many other
    /// refusals wait).
    ///
    /// ```swift
    /// if let refusal = try outbox.failure(ofEvent: id) { print("refused:", refusal.errorId, refusal.message) }
    /// ```
    public func failure(ofEvent eventId: String) throws -> OutboxFailure? {
        let (mine, arguments) = destinationCondition
        return try database.read { db in
            try Self.failures(db, where: "eventId = ? AND failureId IS NOT NULL AND \(mine) ORDER BY seq DESC LIMIT 1",
                              [eventId] + arguments).first
        }
    }

    /// The latest refusals for this handle's destination, newest first: at most `limit`, and at
    /// most 1,000.
    public func latestFailures(limit: Int) throws -> [OutboxFailure] {
        let (mine, arguments) = destinationCondition
        let bound = min(max(0, limit), 1_000)
        guard bound > 0 else { return [] }
        return try database.read { db in
            try Self.failures(db, where: "failureId IS NOT NULL AND \(mine) ORDER BY seq DESC LIMIT \(bound)", arguments)
        }
    }

    /// The refused items a condition (and its order and limit) selects.
    private static func failures(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> [OutboxFailure] {
        try Row.fetchAll(db, sql: "SELECT seq, eventId, kind, failureId, failureMessage, failedAt FROM item WHERE \(condition)",
                         arguments: arguments).map { row in
            OutboxFailure(sequence: row["seq"], eventId: row["eventId"], kind: OutboxItem.Kind(rawValue: row["kind"]) ?? .create,
                          errorId: row["failureId"], message: row["failureMessage"] ?? "", failedAt: row["failedAt"] ?? 0)
        }
    }

    /// Puts every refused item of this handle's destination back in the queue, in its place; returns how many.
    @discardableResult
    public func retryFailed() async throws -> Int {
        let (mine, arguments) = destinationCondition
        let count = try await database.write { db in
            try db.execute(sql: "UPDATE item SET failureId = NULL, failureMessage = NULL, failedAt = NULL WHERE failureId IS NOT NULL AND \(mine)",
                           arguments: arguments)
            return db.changesCount
        }
        if count > 0 { arrivalSignal.yield() }
        return count
    }

    /// Removes every refused item of this handle's destination (and its file); returns how many.
    @discardableResult
    public func discardFailed() async throws -> Int {
        let (mine, arguments) = destinationCondition
        let (count, files) = try await database.write { db -> (Int, [String]) in
            let files = try String.fetchAll(db, sql: """
                SELECT attachmentPath FROM item WHERE failureId IS NOT NULL AND attachmentPath IS NOT NULL AND \(mine)
                """, arguments: arguments)
            try db.execute(sql: "DELETE FROM item WHERE failureId IS NOT NULL AND \(mine)", arguments: arguments)
            return (db.changesCount, files)
        }
        for file in files { try? FileManager.default.removeItem(atPath: file) }
        return count
    }

    /// The checkpoint last written for `source` (this handle's destination's, when it has one).
    public func checkpoint(for source: String) throws -> OutboxCheckpoint? {
        let key = checkpointKey(source)
        return try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT state, finished FROM checkpoint WHERE source = ?", arguments: [key]) else {
                return nil
            }
            let state: Data = row["state"]
            return OutboxCheckpoint(source: source, state: [UInt8](state), finished: row["finished"])
        }
    }

    /// Writes a checkpoint alone (e.g. to mark a source finished).
    public func saveCheckpoint(_ checkpoint: OutboxCheckpoint) async throws {
        try await enqueue([], checkpoint: checkpoint)
    }
}
