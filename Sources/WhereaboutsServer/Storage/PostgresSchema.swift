import Logging
import PostgresNIO

/// The PostgreSQL schema of ``PostgresEventStore``: versioned SQL migrations, recorded in
/// `whereabouts_schema_migrations` and applied under an advisory lock, so that several server
/// processes starting together on one database apply each migration exactly once.
///
/// The tables mirror the SQLite ones; stream ids are a `text[]` with a GIN index, and
/// attachments live in a `bytea` table written in the same transaction as their event.
enum PostgresSchema {
    /// One step of the schema: statements run in order, in one transaction.
    struct Migration: Sendable {
        var version: Int
        var name: String
        var statements: [String]
    }

    /// The key of the advisory lock held while migrating ("Whereabo" in ASCII).
    static let lockKey: Int64 = 0x5768_6572_6561_626F

    /// The `end_time` of a running event: after every real time.
    static let runningEndTime = Double.greatestFiniteMagnitude

    static let migrations: [Migration] = [
        Migration(version: 1, name: "users, accesses, streams, events, attachments", statements: [
            """
            CREATE TABLE users (
                name text PRIMARY KEY,
                created double precision NOT NULL
            )
            """,
            """
            CREATE TABLE accesses (
                user_name text NOT NULL REFERENCES users(name) ON DELETE CASCADE,
                id text NOT NULL,
                name text NOT NULL,
                token_hash text NOT NULL UNIQUE,
                permissions text NOT NULL,
                created double precision NOT NULL,
                PRIMARY KEY (user_name, id)
            )
            """,
            """
            CREATE TABLE streams (
                seq bigserial NOT NULL,
                user_name text NOT NULL REFERENCES users(name) ON DELETE CASCADE,
                id text NOT NULL,
                name text NOT NULL,
                parent_id text,
                client_data text,
                trashed boolean NOT NULL DEFAULT false,
                created double precision NOT NULL,
                created_by text NOT NULL,
                modified double precision NOT NULL,
                modified_by text NOT NULL,
                PRIMARY KEY (user_name, id)
            )
            """,
            """
            CREATE TABLE events (
                seq bigserial NOT NULL,
                user_name text NOT NULL REFERENCES users(name) ON DELETE CASCADE,
                id text NOT NULL,
                time double precision NOT NULL,
                duration double precision,
                end_time double precision NOT NULL,
                type text NOT NULL,
                type_class text NOT NULL,
                content text,
                description text,
                tags text NOT NULL,
                client_data text,
                attachments text NOT NULL,
                stream_ids text[] NOT NULL,
                trashed boolean NOT NULL DEFAULT false,
                created double precision NOT NULL,
                created_by text NOT NULL,
                modified double precision NOT NULL,
                modified_by text NOT NULL,
                PRIMARY KEY (user_name, id)
            )
            """,
            "CREATE INDEX events_user_time ON events (user_name, time, seq)",
            """
            CREATE INDEX events_user_period_end ON events (user_name, end_time)
                WHERE duration IS NULL OR duration <> 0
            """,
            "CREATE INDEX events_stream_ids ON events USING gin (stream_ids)",
            """
            CREATE TABLE attachments (
                user_name text NOT NULL,
                event_id text NOT NULL,
                attachment_id text NOT NULL,
                data bytea NOT NULL,
                PRIMARY KEY (user_name, event_id, attachment_id),
                FOREIGN KEY (user_name, event_id) REFERENCES events(user_name, id)
                    ON DELETE CASCADE ON UPDATE CASCADE
            )
            """,
        ]),
        Migration(version: 2, name: "access expiry", statements: [
            "ALTER TABLE accesses ADD COLUMN expires double precision",
        ]),
        Migration(version: 3, name: "Pryv's accesses, event deletions", statements: [
            // Tokens issued before are apps' and devices', but for each user's own (`users add`).
            "ALTER TABLE accesses ADD COLUMN type text NOT NULL DEFAULT 'app'",
            """
            UPDATE accesses SET type = 'personal'
                WHERE name = 'personal' AND permissions = '[{"streamId":"*","level":"manage"}]'
            """,
            "ALTER TABLE accesses ADD COLUMN created_by text NOT NULL DEFAULT ''",
            "ALTER TABLE accesses ADD COLUMN modified double precision",
            "UPDATE accesses SET modified = created",
            "ALTER TABLE accesses ALTER COLUMN modified SET NOT NULL",
            "ALTER TABLE accesses ADD COLUMN modified_by text NOT NULL DEFAULT ''",
            "ALTER TABLE accesses ADD COLUMN token text",
            """
            CREATE TABLE event_deletions (
                user_name text NOT NULL REFERENCES users(name) ON DELETE CASCADE,
                id text NOT NULL,
                deleted double precision NOT NULL,
                PRIMARY KEY (user_name, id)
            )
            """,
            "CREATE INDEX event_deletions_user_deleted ON event_deletions (user_name, deleted, id)",
        ]),
        Migration(version: 4, name: "retention", statements: [
            // Seconds a user's events are kept (NULL: the server's default).
            "ALTER TABLE users ADD COLUMN retention double precision",
        ]),
        Migration(version: 5, name: "stream retention", statements: [
            // Seconds a stream's events are kept (NULL: its parent's, else the user's).
            "ALTER TABLE streams ADD COLUMN retention double precision",
        ]),
    ]

    /// Applies the migrations the database lacks, under `pg_advisory_xact_lock`.
    ///
    /// The applied versions are read first without the lock: a process that finds the schema
    /// current (most starts) takes no lock, so that many processes starting together on one
    /// database do not queue behind each other.
    static func migrate(_ client: PostgresClient, logger: Logger, upTo newest: Int = .max) async throws {
        let seen = try await client.withConnection { connection in
            try await appliedVersions(connection, logger: logger)
        }
        if let seen, try lacking(seen, upTo: newest).isEmpty { return }
        try await client.withTransaction(logger: logger) { connection in
            // A migration may rewrite a large table: the requests' statement timeout does not apply.
            try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS whereabouts_schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: logger)
            for migration in try lacking(try await appliedVersions(connection, logger: logger) ?? [], upTo: newest) {
                logger.info("applying database migration", metadata: [
                    "version": "\(migration.version)", "name": "\(migration.name)",
                ])
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("""
                    INSERT INTO whereabouts_schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))
                    """, logger: logger)
            }
        }
    }

    /// The versions recorded in `whereabouts_schema_migrations`, or nil when it does not exist.
    private static func appliedVersions(_ connection: PostgresConnection, logger: Logger) async throws -> Set<Int>? {
        var exists = false
        for try await found in try await connection.query(
            "SELECT to_regclass('whereabouts_schema_migrations') IS NOT NULL", logger: logger
        ).decode(Bool.self) {
            exists = found
        }
        guard exists else { return nil }
        var applied: Set<Int> = []
        for try await version in try await connection.query(
            "SELECT version FROM whereabouts_schema_migrations", logger: logger
        ).decode(Int.self) {
            applied.insert(version)
        }
        return applied
    }

    /// The migrations up to version `newest` that `applied` lacks, in order.
    ///
    /// - Throws: ``StoreError/corrupt(_:)`` when the database is at a version this server does
    ///   not know (a newer server migrated it).
    private static func lacking(_ applied: Set<Int>, upTo newest: Int) throws -> [Migration] {
        let known = migrations.map(\.version).max() ?? 0
        if let newest = applied.max(), newest > known {
            throw StoreError.corrupt("""
                the database's schema is at version \(newest) but this server knows versions up to \(known); \
                run a newer server
                """)
        }
        return migrations.filter { !applied.contains($0.version) && $0.version <= newest }
    }
}
