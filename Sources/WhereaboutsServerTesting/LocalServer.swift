import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Whereabouts
import WhereaboutsServer

/// A real Whereabouts server over SQLite in a temporary folder, for the tests of its clients: a
/// test can stop it and start it again on the same port (the folder, and so the data, stays
/// until ``remove()``).
///
/// ```swift
/// try await LocalServer.with { server in
///     let token = try await server.addUser("alice")
///     let client = try TrackingClient(server: server.url, token: token)
/// }
/// ```
public final class LocalServer: @unchecked Sendable {
    /// The folder of the server's SQLite store (kept across restarts, removed by ``remove()``).
    public let directory: String
    /// The port it listens on (0 before the first start).
    public private(set) var port = 0
    private var store: SQLiteEventStore?
    private var group: ServiceGroup?
    private var task: Task<Void, any Error>?
    private let answerLimits: APIService.Limits

    /// A server that has not started; its store goes in a new temporary folder. `answerLimits`
    /// caps its answers (lower the events per answer to exercise a client's paging).
    public init(answerLimits: APIService.Limits = APIService.Limits()) {
        directory = NSTemporaryDirectory() + "whereabouts-tracking-tests-" + UUID().uuidString
        self.answerLimits = answerLimits
    }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Starts the server (on its earlier port when it ran before, otherwise on a free one).
    public func start() async throws {
        let store = try SQLiteEventStore(directory: directory)
        try await store.migrate()
        var configuration = ServerConfiguration()
        configuration.port = port
        configuration.rateLimit = nil
        configuration.answerLimits = answerLimits
        var logger = Logger(label: "test.tracking.server")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try makeServerApplication(configuration: configuration, store: store, logger: logger) { port in
            continuation.yield(port)
        }
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        self.store = store
        self.group = group
        task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else { throw CancellationError() }
        port = bound
    }

    /// Stops the server and closes its store.
    public func stop() async throws {
        await group?.triggerGracefulShutdown()
        _ = try? await task?.value
        try await store?.close()
        group = nil
        task = nil
        store = nil
    }

    /// Adds a user; returns its personal token.
    public func addUser(_ name: String) async throws -> String {
        guard let store else { throw CancellationError() }
        return try await UserAdministration(store: store).addUser(named: name).token
    }

    /// Issues a token limited to `permissions`.
    public func token(for user: String, _ permissions: [Permission]) async throws -> String {
        guard let store else { throw CancellationError() }
        return try await UserAdministration(store: store).issueToken(for: user, name: "test", permissions: permissions)
    }

    /// Every event of `user` in the store, oldest first.
    public func events(of user: String) async throws -> [Event] {
        guard let store else { throw CancellationError() }
        var reader = EventReader(store: store, userName: user, query: EventQuery(fromTime: 0, toTime: 1e11, sortAscending: true))
        var events: [Event] = []
        while let page = try await reader.next() { events += page }
        return events
    }

    /// Removes the store's folder (after ``stop()``).
    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts a server, runs `body`, stops it and removes its files.
    public static func with(
        answerLimits: APIService.Limits = APIService.Limits(), _ body: (LocalServer) async throws -> Void
    ) async throws {
        let server = LocalServer(answerLimits: answerLimits)
        try await server.start()
        do {
            try await body(server)
        } catch {
            try? await server.stop()
            server.remove()
            throw error
        }
        try await server.stop()
        server.remove()
    }
}

