import GRDB

/// The outbox's tables.
///
/// - `item`: what waits for the server, in delivery order (`seq`). A create keeps its event's
///   JSON without the duration, which has its own column so that a later update folds into it.
///   `revision` grows with every fold, so that the sender never deletes an item that changed
///   while it was on the wire. A refused item keeps its `failure` and waits, skipped.
/// - `checkpoint`: per source of fixes, the tracker's state at its last change.
enum OutboxSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: items and checkpoints") { db in
            try db.execute(sql: """
                CREATE TABLE item (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL CHECK (kind IN ('create', 'update')),
                    eventId TEXT NOT NULL,
                    body BLOB NOT NULL,
                    duration REAL NOT NULL,
                    attachmentPath TEXT,
                    attachmentName TEXT,
                    revision INTEGER NOT NULL DEFAULT 0,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    queuedAt REAL NOT NULL,
                    failureId TEXT,
                    failureMessage TEXT,
                    failedAt REAL
                );
                CREATE INDEX item_event ON item (eventId, seq);
                CREATE INDEX item_pending ON item (seq) WHERE failureId IS NULL;
                CREATE TABLE checkpoint (
                    source TEXT PRIMARY KEY,
                    state BLOB NOT NULL,
                    finished INTEGER NOT NULL DEFAULT 0,
                    updatedAt REAL NOT NULL
                );
                """)
        }
        return migrator
    }
}
