import Foundation
import GRDB
import Whereabouts

/// What the sender asks of the outbox: the items to deliver, in order, and what became of them.
extension Outbox {
    /// The first `limit` items waiting for delivery to this handle's destination, in order (refused
    /// items skipped).
    public func pendingItems(limit: Int) throws -> [OutboxItem] {
        let mine = destinationCondition
        return try database.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT seq, kind, eventId, body, duration, attachmentPath, attachmentName, revision, attempts, queuedAt
                FROM item WHERE failureId IS NULL AND \(mine.sql) ORDER BY seq LIMIT ?
                """, arguments: mine.arguments + [max(1, limit)])
            // Columns by position, in the SELECT's order: a lookup by name costs a case-insensitive
            // comparison per column and row.
            return rows.map { row in
                let path: String? = row[5]
                let name: String? = row[6]
                let body: Data = row[3]
                return OutboxItem(sequence: row[0], kind: OutboxItem.Kind(rawValue: row[1]) ?? .create, eventId: row[2],
                                  body: [UInt8](body), duration: row[4],
                                  attachment: path.map { OutboxItem.File(path: $0, fileName: name ?? "file") },
                                  revision: row[7], attempts: row[8], queuedAt: row[9])
            }
        }
    }

    /// Whether any item waits for delivery (one indexed row read, not a count).
    public func hasPendingItems() throws -> Bool {
        let mine = destinationCondition
        return try database.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM item WHERE failureId IS NULL AND \(mine.sql) LIMIT 1", arguments: mine.arguments) ?? false
        }
    }

    /// What delivery made of one item.
    public enum Outcome: Sendable {
        /// The server has the item. `serverDuration` is the duration the server answered with,
        /// when it answered with the event: if it differs from the item's (the server already
        /// had the event from an earlier send), the item stays as an update.
        case delivered(OutboxItem, serverDuration: Double?)
        /// The server refused the item for good.
        case refused(OutboxItem, errorId: String, message: String)
        /// The item was tried and will be tried again.
        case attempted(OutboxItem)
    }

    /// Records what delivery made of items, in one transaction.
    public func settle(_ outcomes: [Outcome]) async throws {
        let removedFiles = try await database.write { db -> [String] in
            var files: [String] = []
            let now = Date().timeIntervalSince1970
            for outcome in outcomes {
                switch outcome {
                case .delivered(let item, let serverDuration):
                    let changed = serverDuration.map { $0 != item.duration } ?? false
                    if changed {
                        try db.cachedStatement(sql: "UPDATE item SET kind = 'update', body = x'', attachmentPath = NULL, attempts = attempts + 1 WHERE seq = ?")
                            .execute(arguments: [item.sequence])
                    } else {
                        // Deleted only if no update was folded in while the item was on the wire;
                        // otherwise it becomes an update carrying the newer duration.
                        try db.cachedStatement(sql: "DELETE FROM item WHERE seq = ? AND revision = ?")
                            .execute(arguments: [item.sequence, item.revision])
                        if db.changesCount == 0 {
                            try db.cachedStatement(sql: "UPDATE item SET kind = 'update', body = x'', attachmentPath = NULL WHERE seq = ?")
                                .execute(arguments: [item.sequence])
                        }
                    }
                    if let attachment = item.attachment { files.append(attachment.path) }
                case .refused(let item, let errorId, let message):
                    try db.cachedStatement(sql: """
                        UPDATE item SET failureId = ?, failureMessage = ?, failedAt = ?, attempts = attempts + 1 WHERE seq = ?
                        """).execute(arguments: [errorId, String(message.prefix(1_000)), now, item.sequence])
                case .attempted(let item):
                    try db.cachedStatement(sql: "UPDATE item SET attempts = attempts + 1 WHERE seq = ?").execute(arguments: [item.sequence])
                }
            }
            return files
        }
        for file in removedFiles {
            try? FileManager.default.removeItem(atPath: file)
            try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent)
        }
    }
}
