import Foundation
import GRDB
import Logging
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// A store written by the previous schema (version 2: accesses with an expiry, no types, no
/// tombstones) and migrated by this one: nothing is lost, each user's own token becomes their
/// personal access, the other tokens apps', and deletions leave tombstones from then on.
@Suite("Schema migrations")
struct SchemaMigrationTests {
    /// The rows an older server wrote, in its columns.
    static let olderRows = [
        "INSERT INTO users (name, created) VALUES ('mia', 1700000000)",
        """
        INSERT INTO accesses (user_name, id, name, token_hash, permissions, created, expires)
        VALUES ('mia', 'cpersonal', 'personal', 'hash-1', '[{"streamId":"*","level":"manage"}]', 1700000001, NULL)
        """,
        """
        INSERT INTO accesses (user_name, id, name, token_hash, permissions, created, expires)
        VALUES ('mia', 'cphone', 'phone', 'hash-2', '[{"streamId":"position","level":"contribute"}]', 1700000002, 1800000000)
        """,
        """
        INSERT INTO streams (user_name, id, name, parent_id, client_data, trashed, created, created_by, modified, modified_by)
        VALUES ('mia', 'position', 'Position', NULL, NULL, false, 1700000000, 'system', 1700000000, 'system')
        """,
    ]

    static func olderEvent(sqlite: Bool) -> String {
        """
        INSERT INTO events (user_name, id, time, duration, end_time, type, type_class, content, description, tags,
                            client_data, attachments, stream_ids, trashed, created, created_by, modified, modified_by)
        VALUES ('mia', 'e1', 1700000100, 0, 1700000100, 'note/txt', 'note', '"kept"', NULL, '[]', NULL, '[]',
                \(sqlite ? #"'["position"]'"# : "ARRAY['position']"), false, 1700000100, 'cphone', 1700000100, 'cphone')
        """
    }

    /// What the migrated store must show.
    static func checkMigrated(_ store: any EventStore) async throws {
        let accesses = try await store.accesses(of: "mia")
        #expect(accesses.map(\.id) == ["cpersonal", "cphone"])
        #expect(accesses.map(\.type) == [.personal, .app])
        #expect(accesses.map(\.modified) == [1_700_000_001, 1_700_000_002])
        #expect(accesses.map(\.token) == [nil, nil])
        #expect(accesses[1].expires == 1_800_000_000)
        #expect(accesses[1].permissions == [Permission(streamId: "position", level: .contribute)])
        let event = try #require(try await store.event(id: "e1", for: "mia"))
        #expect(event.content == .string("kept") && event.streamIds == ["position"] && event.createdBy == "cphone")
        #expect(try await store.streams(of: "mia").map(\.id) == ["position"])
        #expect(try await store.eventDeletions(of: "mia", since: 0, after: nil, limit: 10).isEmpty)
        // From now on, a deletion leaves its tombstone.
        #expect(try await store.removeEvent(id: "e1", for: "mia"))
        #expect(try await store.eventDeletions(of: "mia", since: 0, after: nil, limit: 10).map(\.id) == ["e1"])
    }

    @Test func aSQLiteStoreOfTheSecondVersionMigratesWithNothingLost() async throws {
        let directory = NSTemporaryDirectory() + "whereabouts-migration-" + AccessToken.generate().prefix(10)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let older = try DatabasePool(path: (directory as NSString).appendingPathComponent(SQLiteEventStore.databaseFileName))
            try SQLiteSchema.migrator.migrate(older, upTo: "v2: access expiry")
            try await older.write { db in
                for sql in Self.olderRows + [Self.olderEvent(sqlite: true)] { try db.execute(sql: sql) }
            }
            try older.close()
        }
        let store = try SQLiteEventStore(directory: directory)
        try await store.migrate()
        try await Self.checkMigrated(store)
        try await store.close()
    }

    @Test(.needsPostgreSQL) func aPostgreSQLDatabaseOfTheSecondVersionMigratesWithNothingLost() async throws {
        try await Self.withScratchDatabase { url, logger in
            let older = try PostgresEventStore(url: url, logger: logger)
            try await older.migrate(upTo: 2)
            for sql in Self.olderRows + [Self.olderEvent(sqlite: false)] { try await older.execute(unsafeSQL: sql) }
            try await older.close()
            let store = try PostgresEventStore(url: url, logger: logger)
            try await store.migrate()
            try await Self.checkMigrated(store)
            try await store.close()
        }
    }

    @Test("A current PostgreSQL schema is found current without the migrations' lock; a lacking one waits for it",
          .needsPostgreSQL, .timeLimit(.minutes(5)))
    func aCurrentSchemaTakesNoLock() async throws {
        try await Self.withScratchDatabase { url, logger in
            let holder = try PostgresEventStore(url: url, logger: logger)
            let store = try PostgresEventStore(url: url, logger: logger)
            // Another process holds the lock (as while it migrates).
            let (release, holding) = await Self.holdingMigrationLock(holder, logger: logger)
            // The empty database lacks every migration: its migration waits for the lock.
            let waiting = Task { try await store.migrate() }
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await store.setting("server_version") != nil)  // the store itself answers
            let tablesWhileHeld = try await holder.client.withConnection { connection in
                var found = false
                for try await exists in try await connection.query(
                    "SELECT to_regclass('events') IS NOT NULL", logger: logger).decode(Bool.self) { found = exists }
                return found
            }
            #expect(!tablesWhileHeld)
            release.open()
            try await holding.value
            try await waiting.value

            // Now current: migrating again while the lock is held returns without it.
            let (releaseAgain, holdingAgain) = await Self.holdingMigrationLock(holder, logger: logger)
            let done = LockedValue(false)
            let migrating = Task {
                try await store.migrate()
                done.value = true
            }
            for _ in 0..<300 where !done.value { try await Task.sleep(for: .milliseconds(100)) }
            #expect(done.value, "the migration of a current schema waited for the lock")
            releaseAgain.open()
            try await migrating.value
            try await holdingAgain.value
            try await store.close()
            try await holder.close()
        }
    }

    /// Takes the migrations' lock on a connection of `store` and holds it until the returned gate
    /// opens; returns once the lock is held, with the task that holds it.
    static func holdingMigrationLock(
        _ store: PostgresEventStore, logger: Logger
    ) async -> (release: Gate, holding: Task<Void, any Error>) {
        let held = Gate(), release = Gate()
        let holding = Task {
            try await store.client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.lockKey))", logger: logger)
                held.open()
                await release.wait()
            }
        }
        await held.wait()
        return (release, holding)
    }

    @Test("A PostgreSQL schema of a newer server is refused, naming both versions", .needsPostgreSQL)
    func aNewerSchemaIsRefused() async throws {
        try await Self.withScratchDatabase { url, logger in
            let store = try PostgresEventStore(url: url, logger: logger)
            try await store.migrate()
            try await store.execute(unsafeSQL: "INSERT INTO whereabouts_schema_migrations (version, name) VALUES (999, 'from the future')")
            let error = await #expect(throws: StoreError.self) { try await store.migrate() }
            let known = PostgresSchema.migrations.map(\.version).max() ?? 0
            #expect("\(error.map { String(describing: $0) } ?? "")".contains("at version 999 but this server knows versions up to \(known)"))
            try await store.close()
        }
    }

    /// Runs `body` with the URL of a database of its own, dropped afterwards.
    static func withScratchDatabase(_ body: (_ url: String, _ logger: Logger) async throws -> Void) async throws {
        var logger = Logger(label: "whereabouts.postgres.tests")
        logger.logLevel = .error
        let admin = try PostgresEventStore(url: PostgresTestServer.url, logger: logger)
        let database = "whereabouts_migration_" + AccessToken.generate().prefix(10).lowercased().filter { $0.isLetter || $0.isNumber }
        try await admin.execute(unsafeSQL: "CREATE DATABASE \(database)")
        do {
            try await body(try Self.url(PostgresTestServer.url, database: database), logger)
        } catch {
            try? await admin.execute(unsafeSQL: "DROP DATABASE IF EXISTS \(database)")
            try? await admin.close()
            throw error
        }
        try await admin.execute(unsafeSQL: "DROP DATABASE IF EXISTS \(database)")
        try await admin.close()
    }

    /// `url` with another database.
    static func url(_ url: String, database: String) throws -> String {
        let query = url.firstIndex(of: "?").map { String(url[$0...]) } ?? ""
        let base = url.firstIndex(of: "?").map { String(url[..<$0]) } ?? url
        guard let slash = base.lastIndex(of: "/"), base[..<slash].hasSuffix("//") == false else {
            throw PostgresURLError()
        }
        return base[...slash] + database + query
    }

    struct PostgresURLError: Error {}
}
