import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Serves `router` on a free loopback port while `body` runs with that port, then shuts it down:
/// for tests that need a small server of their own (a server whose clock is off, a proxy).
///
/// ```swift
/// let router = Router()
/// router.get("/health") { _, _ in "ok" }
/// try await withLoopbackServer(router) { port in /* requests to 127.0.0.1:port */ }
/// ```
public func withLoopbackServer(_ router: Router<BasicRequestContext>, _ body: (Int) async throws -> Void) async throws {
    var logger = Logger(label: "whereabouts.tests.loopback")
    logger.logLevel = .critical
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
    let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = await iterator.next() ?? 0
        do { try await body(port) } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}
