import GRDB

/// The SQLite schema of ``SQLiteEventStore``, as GRDB migrations (applied in order, each once).
///
/// Events keep their JSON parts (content, tags, client data, attachments, stream ids) as JSON
/// text, exactly as ``JSONWriter`` wrote them, so that a stored event reads back identical
/// (member order included). The columns a query filters on are plain columns:
///
/// - `time`, and `end_time` = `time + duration` (``SQLiteSchema/runningEndTime`` while running);
/// - `type` and `type_class` (the part before `/`);
/// - `trashed`, `modified`, `duration` (NULL while running).
///
/// Two indexes serve a time-range query for one user: `(user_name, time)` finds the events that
/// start in the range; the partial index `(user_name, end_time)` over periods (a duration other
/// than 0, or running) finds the ones that started before and are still going.
enum SQLiteSchema {
    /// The `end_time` of a running event: after every real time.
    static let runningEndTime = Double.greatestFiniteMagnitude

    /// The migrations, in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users, accesses, streams, events") { db in
            try db.execute(sql: """
                CREATE TABLE users (
                    name TEXT NOT NULL PRIMARY KEY,
                    created REAL NOT NULL
                );
                CREATE TABLE accesses (
                    user_name TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE,
                    permissions TEXT NOT NULL,
                    created REAL NOT NULL,
                    PRIMARY KEY (user_name, id)
                );
                CREATE TABLE streams (
                    user_name TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    parent_id TEXT,
                    client_data TEXT,
                    trashed INTEGER NOT NULL DEFAULT 0,
                    created REAL NOT NULL,
                    created_by TEXT NOT NULL,
                    modified REAL NOT NULL,
                    modified_by TEXT NOT NULL,
                    PRIMARY KEY (user_name, id)
                );
                CREATE TABLE events (
                    seq INTEGER PRIMARY KEY,
                    user_name TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    time REAL NOT NULL,
                    duration REAL,
                    end_time REAL NOT NULL,
                    type TEXT NOT NULL,
                    type_class TEXT NOT NULL,
                    content TEXT,
                    description TEXT,
                    tags TEXT NOT NULL,
                    client_data TEXT,
                    attachments TEXT NOT NULL,
                    stream_ids TEXT NOT NULL,
                    trashed INTEGER NOT NULL DEFAULT 0,
                    created REAL NOT NULL,
                    created_by TEXT NOT NULL,
                    modified REAL NOT NULL,
                    modified_by TEXT NOT NULL,
                    UNIQUE (user_name, id)
                );
                CREATE INDEX events_user_time ON events(user_name, time);
                CREATE INDEX events_user_period_end ON events(user_name, end_time)
                    WHERE duration IS NULL OR duration <> 0;
                """)
        }
        migrator.registerMigration("v2: access expiry") { db in
            try db.execute(sql: "ALTER TABLE accesses ADD COLUMN expires REAL")
        }
        migrator.registerMigration("v3: Pryv's accesses, event deletions") { db in
            // Tokens issued before are apps' and devices', but for each user's own (`users add`).
            try db.execute(sql: """
                ALTER TABLE accesses ADD COLUMN type TEXT NOT NULL DEFAULT 'app';
                UPDATE accesses SET type = 'personal'
                    WHERE name = 'personal' AND permissions = '[{"streamId":"*","level":"manage"}]';
                ALTER TABLE accesses ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
                ALTER TABLE accesses ADD COLUMN modified REAL;
                UPDATE accesses SET modified = created;
                ALTER TABLE accesses ADD COLUMN modified_by TEXT NOT NULL DEFAULT '';
                ALTER TABLE accesses ADD COLUMN token TEXT;
                CREATE TABLE event_deletions (
                    user_name TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    deleted REAL NOT NULL,
                    PRIMARY KEY (user_name, id)
                );
                CREATE INDEX event_deletions_user_deleted ON event_deletions(user_name, deleted, id);
                """)
        }
        migrator.registerMigration("v4: retention") { db in
            // Seconds a user's events are kept (NULL: the server's default).
            try db.execute(sql: "ALTER TABLE users ADD COLUMN retention REAL")
        }
        migrator.registerMigration("v5: stream retention") { db in
            // Seconds a stream's events are kept (NULL: its parent's, else the user's).
            try db.execute(sql: "ALTER TABLE streams ADD COLUMN retention REAL")
        }
        return migrator
    }
}
