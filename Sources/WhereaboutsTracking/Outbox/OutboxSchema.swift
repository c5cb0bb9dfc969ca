import GRDB

/// The outbox's tables.
///
/// - `item`: what waits for the server, in delivery order (`seq`). A create keeps its event's
///   JSON without the duration, which has its own column so that a later update folds into it.
///   `revision` grows with every fold, so that the sender never deletes an item that changed
///   while it was on the wire. A refused item keeps its `failure` and waits, skipped.
/// - `checkpoint`: per source of fixes, the tracker's state at its last change.
/// - Since v2, each item names its ``OutboxDestination`` (`destination`, its key; empty for items
///   queued before, which any destination delivers), checkpoints are named by destination and
///   source (`KEY<tab>SOURCE`; a checkpoint from before stays unnamed and is no scoped run's),
///   and `account` remembers which user a token (by its SHA-256) was at a server, so that a run
///   that cannot ask the server still knows whose items and checkpoints are its own.
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
        migrator.registerMigration("v2: destinations") { db in
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN destination TEXT NOT NULL DEFAULT '';
                CREATE INDEX item_destination ON item (destination, seq) WHERE failureId IS NULL;
                CREATE TABLE account (
                    server TEXT NOT NULL,
                    tokenDigest TEXT NOT NULL,
                    username TEXT NOT NULL,
                    seenAt REAL NOT NULL,
                    PRIMARY KEY (server, tokenDigest)
                );
                """)
        }
        return migrator
    }
}
