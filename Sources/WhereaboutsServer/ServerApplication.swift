import Hummingbird
import Logging
import Whereabouts

/// Builds the Whereabouts server: the API, the operations routes, and the middleware that
/// authenticates, limits and reports, over `store`.
///
/// ```swift
/// let store = try SQLiteEventStore(directory: "whereabouts-data")
/// try await store.migrate()
/// let app = makeServerApplication(configuration: ServerConfiguration(), store: store)
/// try await app.runService()   // until SIGINT or SIGTERM, then a graceful shutdown
/// ```
///
/// - Parameters:
///   - onServerRunning: called once the server listens, with the port it bound (useful with
///     port 0).
public func makeServerApplication(
    configuration: ServerConfiguration,
    store: any EventStore,
    logger: Logger = Logger(label: "whereabouts.server"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let metrics = ServerMetrics()
    let streams = StreamDirectory(store: store)
    let service = APIService(store: store, streams: streams, metrics: metrics)
    let router = Router(context: ServerRequestContext.self)
    router.middlewares.add(APIErrorMiddleware(metrics: metrics))
    router.middlewares.add(LogRequestsMiddleware(.debug))
    router.middlewares.add(AuthenticationMiddleware(
        authenticator: TokenAuthenticator(store: store),
        rateLimiter: configuration.rateLimit.map { RateLimiter(requestsPerSecond: $0.requestsPerSecond, burst: $0.burst) }))
    APIRoutes(service: service, limits: configuration.bodyLimits).add(to: router)
    OperationsRoutes(store: store, metrics: metrics).add(to: router)
    OpenAPIDocument.addRoute(to: router, logger: logger)
    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Whereabouts"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
}
