import Foundation
import Logging
import Testing
import Whereabouts
@testable import WhereaboutsServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The backends the contract suite runs against.
enum StoreKind: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The kinds to test: SQLite always; PostgreSQL when a server answers, or when `CI` is set
    /// (then an unreachable server makes the tests fail rather than skip).
    static let tested: [StoreKind] = {
        if PostgresTestServer.isReachable || ProcessInfo.processInfo.environment["CI"] != nil {
            // Scripts/test-summary.sh reads this line as the evidence that the half ran.
            print("note: the PostgreSQL half of the tests runs against \(PostgresTestServer.displayURL)")
            return [.sqlite, .postgres]
        }
        print("""
            note: PostgreSQL store tests skipped: no server answers at \(PostgresTestServer.displayURL) \
            (set WHEREABOUTS_TEST_POSTGRES_URL, or start PostgreSQL; with CI set they fail instead)
            """)
        return [.sqlite]
    }()
}

extension Trait where Self == ConditionTrait {
    /// Runs a test only when the PostgreSQL half of the suite runs, and says why when it does
    /// not (rather than reporting that the test has no cases).
    static var needsPostgreSQL: Self {
        .enabled(if: StoreKind.tested.contains(.postgres),
                 "no PostgreSQL answers at \(PostgresTestServer.displayURL) (start it, or set WHEREABOUTS_TEST_POSTGRES_URL)")
    }
}

/// The PostgreSQL server the tests use.
enum PostgresTestServer {
    static let url = ProcessInfo.processInfo.environment["WHEREABOUTS_TEST_POSTGRES_URL"]
        ?? "postgres://whereabouts:whereabouts@127.0.0.1:5432/whereabouts_test"

    /// The URL without its password.
    static var displayURL: String {
        guard let parsed = try? PostgresURL(url) else { return url }
        return "\(parsed.host):\(parsed.port)/\(parsed.database)"
    }

    /// Whether a TCP connection to the server's port opens within two seconds.
    static let isReachable: Bool = {
        guard let parsed = try? PostgresURL(url) else { return false }
        return tcpConnects(host: parsed.host, port: parsed.port, timeoutMilliseconds: 2000)
    }()

    private static func tcpConnects(host: String, port: Int, timeoutMilliseconds: Int32) -> Bool {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return true }
            guard errno == EINPROGRESS else { continue }
            var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&descriptor, 1, timeoutMilliseconds) == 1 else { continue }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0, failure == 0 { return true }
        }
        return false
    }
}

/// One test's stores: a fresh SQLite directory, or the shared PostgreSQL database with user
/// names unique to the test (so tests run in parallel).
final class StoreHarness: Sendable {
    let kind: StoreKind
    private let directory: String
    private let prefix: String

    init(_ kind: StoreKind) {
        self.kind = kind
        let token = String(AccessToken.generate().prefix(10))
        self.prefix = "t\(token)-"
        self.directory = NSTemporaryDirectory() + "whereabouts-store-tests-" + token
    }

    /// A user name unique to this test.
    func name(_ base: String) -> String { prefix + base }

    /// Opens the store (again) and migrates it.
    func open() async throws -> any EventStore {
        let store: any EventStore
        switch kind {
        case .sqlite: store = try SQLiteEventStore(directory: directory)
        case .postgres:
            guard PostgresTestServer.isReachable else {
                throw PostgresUnavailable()
            }
            var logger = Logger(label: "whereabouts.postgres.tests")
            logger.logLevel = .error
            store = try PostgresEventStore(url: PostgresTestServer.url, logger: logger)
        }
        try await store.migrate()
        return store
    }

    /// Opens a store, runs `body`, closes the store and removes the test's files.
    func run(_ body: (any EventStore) async throws -> Void) async throws {
        let store = try await open()
        do {
            try await body(store)
        } catch {
            try? await store.close()
            cleanUp()
            throw error
        }
        try await store.close()
        cleanUp()
    }

    /// Removes the test's SQLite directory.
    func cleanUp() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Adds a user (with the default streams) named `base` for this test; returns the name.
    @discardableResult
    func addUser(_ base: String, to store: any EventStore) async throws -> String {
        let name = name(base)
        try await store.addUser(User(name: name, created: 1_700_000_000), streams: EventStream.defaults(at: 1_700_000_000))
        return name
    }
}

/// Thrown by a PostgreSQL test when CI expects a server and none answers.
struct PostgresUnavailable: Error, CustomStringConvertible {
    var description: String {
        "PostgreSQL was expected (CI is set) but no server answers at \(PostgresTestServer.displayURL); "
            + "start it (.ci/run does) or point WHEREABOUTS_TEST_POSTGRES_URL at one"
    }
}
