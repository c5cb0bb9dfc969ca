import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Whereabouts
import WhereaboutsServer
import WhereaboutsTracking

/// A real Whereabouts server over SQLite in a temporary folder, which a test can stop and start
/// again on the same port (the folder, and so the data, stays until ``remove()``).
final class LocalServer: @unchecked Sendable {
    let directory: String
    private(set) var port = 0
    private var store: SQLiteEventStore?
    private var group: ServiceGroup?
    private var task: Task<Void, any Error>?

    init() {
        directory = NSTemporaryDirectory() + "whereabouts-tracking-tests-" + UUID().uuidString
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Starts the server (on its earlier port when it ran before, otherwise on a free one).
    func start() async throws {
        let store = try SQLiteEventStore(directory: directory)
        try await store.migrate()
        var configuration = ServerConfiguration()
        configuration.port = port
        configuration.rateLimit = nil
        var logger = Logger(label: "test.tracking.server")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = makeServerApplication(configuration: configuration, store: store, logger: logger) { port in
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
    func stop() async throws {
        await group?.triggerGracefulShutdown()
        _ = try? await task?.value
        try await store?.close()
        group = nil
        task = nil
        store = nil
    }

    /// Adds a user; returns its personal token.
    func addUser(_ name: String) async throws -> String {
        guard let store else { throw CancellationError() }
        return try await UserAdministration(store: store).addUser(named: name).token
    }

    /// Issues a token limited to `permissions`.
    func token(for user: String, _ permissions: [Permission]) async throws -> String {
        guard let store else { throw CancellationError() }
        return try await UserAdministration(store: store).issueToken(for: user, name: "test", permissions: permissions)
    }

    /// Every event of `user` in the store, oldest first.
    func events(of user: String) async throws -> [Event] {
        guard let store else { throw CancellationError() }
        return try await store.events(matching: EventQuery(fromTime: 0, toTime: 1e11, sortAscending: true, limit: 1_000_000), for: user)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts a server, runs `body`, stops it and removes its files.
    static func with(_ body: (LocalServer) async throws -> Void) async throws {
        let server = LocalServer()
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

/// A temporary outbox path, removed with its files by ``remove()``.
struct TemporaryOutbox {
    let folder = NSTemporaryDirectory() + "whereabouts-outbox-tests-" + UUID().uuidString
    var path: String { folder + "/outbox.sqlite" }

    func open() throws -> Outbox { try Outbox(path: path) }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }
}

/// A fix for tests: x/y in metres, or latitude/longitude.
func fix(_ time: Double, x: Double, y: Double, accuracy: Double = 2, floor: Int? = nil, device: String? = "phone",
         latitude: Double? = nil, longitude: Double? = nil) -> Fix {
    let coordinate = latitude.flatMap { lat in longitude.map { GeoCoordinate(latitude: lat, longitude: $0) } }
    return Fix(time: time, device: device, point: SpatialPoint(x: x, y: y, z: 0), floor: floor, accuracy: accuracy,
               coordinate: coordinate, method: "test")
}
