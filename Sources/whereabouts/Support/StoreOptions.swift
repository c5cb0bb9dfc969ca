import Foundation
import ArgumentParser
import Logging
import Whereabouts
import WhereaboutsServer

/// Where the server's data lives: `--data-dir` (SQLite, the default) or `--database` (PostgreSQL).
/// Shared by `serve`, `users` and `export`, so they all open the same store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The folder of the SQLite database and attachments (created if missing).", valueName: "folder"))
    var dataDir: String = "whereabouts-data"

    @Option(name: .long, help: ArgumentHelp(
        "A PostgreSQL database to use instead of --data-dir, e.g. postgres://user:password@host:5432/whereabouts.",
        valueName: "url"))
    var database: String?

    @Option(name: .long, help: ArgumentHelp(
        "SQLite durability.",
        valueName: "normal|full"))
    var durability: Durability = .normal

    /// A description of the store for messages.
    var summary: String {
        database.map { "PostgreSQL at \(Self.redacted($0))" } ?? "SQLite in \(dataDir)"
    }

    /// Opens the store, runs `body` on it and closes it, whether `body` succeeds or throws. The
    /// administration's refusals and the store's "no such user" become the command's failure,
    /// saying what to do.
    func withStore<Result>(label: String = "whereabouts.users", creating: Bool = false,
                           _ body: (any EventStore) async throws -> Result) async throws -> Result {
        let store = try await open(logger: Logger(label: label), creating: creating)
        do {
            let result = try await body(store)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            switch error {
            case let failure as UserAdministration.Failure: throw CommandFailure(failure.description)
            case StoreError.notFound("user", let id): throw CommandFailure(UserAdministration.Failure.unknownUser(id).description)
            case StoreError.notFound("stream", let id):
                throw CommandFailure("The user has no stream \(id.debugDescription).")
            default: throw error
            }
        }
    }

    /// Opens the store and brings its schema up to date. Only the commands that start a store
    /// (`serve`, `users add`) create one; the others refuse a folder without a database, so that
    /// a mistyped --data-dir is an error rather than an empty new store.
    func open(logger: Logger, creating: Bool = false) async throws -> any EventStore {
        let store: any EventStore
        let databasePath = (dataDir as NSString).appendingPathComponent(SQLiteEventStore.databaseFileName)
        if database == nil, !creating, !FileManager.default.fileExists(atPath: databasePath) {
            throw CommandFailure("There is no Whereabouts store in \(dataDir) (no \(SQLiteEventStore.databaseFileName)); "
                                 + "check --data-dir, or create one with `whereabouts users add NAME --data-dir \(dataDir)`.")
        }
        if let database {
            store = try PostgresEventStore(url: database, logger: logger)
        } else {
            store = try SQLiteEventStore(directory: dataDir, durability: durability)
        }
        do {
            if database != nil {
                // PostgreSQL's client retries a refused connection for ever: give up after a while, saying
                // why, without waiting for the store to notice (it is cancelled, and left to end on its own).
                try await Abandonable.run(within: .seconds(Self.databaseTimeout), else: { DatabaseTimeout() }) {
                    try await store.migrate()
                }
            } else {
                try await store.migrate()
            }
        } catch is DatabaseTimeout {
            try? await store.close()
            throw CommandFailure("\(summary) did not answer within \(Int(Self.databaseTimeout)) s: is it running, and does "
                                 + "the URL name its host, port and database? (`pg_isready -h HOST -p PORT` tells.)")
        } catch {
            try? await store.close()
            throw CommandFailure("Cannot prepare the store (\(summary)): \(error)")
        }
        return store
    }

    /// How long opening a PostgreSQL store may take: `WHEREABOUTS_DATABASE_TIMEOUT` seconds, 15 by default.
    static var databaseTimeout: Double {
        ProcessInfo.processInfo.environment["WHEREABOUTS_DATABASE_TIMEOUT"].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil } ?? 15
    }

    /// What opening a store throws when ``databaseTimeout`` ran out.
    struct DatabaseTimeout: Error {}

    /// The URL without its password.
    static func redacted(_ url: String) -> String {
        PostgresURL.redacted(url)
    }
}
