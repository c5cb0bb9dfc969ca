import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import ServiceLifecycle
import Whereabouts

/// Builds the Whereabouts server: the API, the operations routes, and the middleware that
/// authenticates, limits and reports, over `store`.
///
/// ```swift
/// let store = try SQLiteEventStore(directory: "whereabouts-data")
/// try await store.migrate()
/// let app = try makeServerApplication(configuration: ServerConfiguration(), store: store)
/// try await app.runService()   // until SIGINT or SIGTERM, then a graceful shutdown
/// ```
///
/// With ``ServerConfiguration/tls`` the server speaks HTTPS (and WSS for `/live`); a certificate
/// or key that cannot be read throws ``ServerSetupError``.
///
/// - Parameters:
///   - configuration: The address, limits and options of the server.
///   - store: Where events, streams and tokens are kept.
///   - liveFeed: where created and changed events are published for `/live` subscribers.
///   - logger: The logger of requests, errors and the server's life.
///   - onServerRunning: called once the server listens, with the port it bound (useful with
///     port 0).
public func makeServerApplication(
    configuration: ServerConfiguration,
    store: any EventStore,
    liveFeed: LiveFeed = LiveFeed(),
    logger: Logger = Logger(label: "whereabouts.server"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    // A database across the network can stop answering; requests then fail after a while
    // instead of waiting for ever.
    let shared = store as? any SharedEventStore
    let served: any EventStore = if shared != nil, let limit = configuration.storeTimeout {
        TimeLimitedEventStore(store, limit: limit)
    } else {
        store
    }
    let metrics = ServerMetrics()
    let streams = StreamDirectory(store: served, logger: logger)
    let authenticator = TokenAuthenticator(store: served, failedAttempts: configuration.failedAuthentications)
    let liveConnections = LiveConnections(limits: configuration.liveConnections)
    let service = APIService(
        store: served, streams: streams, metrics: metrics, limits: configuration.answerLimits,
        eventsDidChange: { events, userName in await liveFeed.publish(events, for: userName) },
        accessesDidEnd: { hashes in await authenticator.forget(tokenHashes: hashes) })
    // The venue's fixed receivers, when it lists some: their reports become the tags' events.
    let feeds = configuration.reportFeeds
    let tagTracking = configuration.venue.flatMap { venue in
        venue.receivers.isEmpty ? nil : TagTracking(venue: venue, configuration: configuration.tags, clock: configuration.clock,
                                                    service: service, logger: logger) { user, outputs in
            for feed in feeds where feed.user == user { await feed.publish(outputs) }
        }
    }
    if !feeds.isEmpty && tagTracking == nil { throw ServerSetupError.reportFeedsWithoutReceivers }
    let router = Router(context: ServerRequestContext.self)
    router.middlewares.add(APIErrorMiddleware(metrics: metrics))
    let rateLimiter = configuration.rateLimit.map { RateLimiter(requestsPerSecond: $0.requestsPerSecond, burst: $0.burst) }
    router.middlewares.add(AuthenticationMiddleware(authenticator: authenticator, rateLimiter: rateLimiter))
    let routes: [any ServerRoutes] = [
        APIRoutes(service: service, limits: configuration.bodyLimits, rateLimiter: rateLimiter),
        OperationsRoutes(store: served, metrics: metrics, metricsArePublic: configuration.venueAndMetricsArePublic),
        ServiceInfoRoutes(publicURL: configuration.publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 },
                          servesTLS: configuration.tls != nil),
        MapPage(venue: configuration.venue, venueIsPublic: configuration.venueAndMetricsArePublic),
        RetentionRoutes(store: served, defaultKeep: configuration.retention.defaultKeep),
        LiveRoutes(store: served, authenticator: authenticator, connections: liveConnections),
        ReceiverRoutes(tracking: tagTracking, limits: configuration.bodyLimits),
        // Last: it checks every route above against the document.
        OpenAPIRoutes(logger: logger),
    ]
    for group in routes { group.addRoutes(to: router) }
    let webSocketRouter = Router(context: ServerRequestContext.self)
    LiveWebSocketRoutes(feed: liveFeed, store: served, authenticator: authenticator, connections: liveConnections)
        .addRoutes(to: webSocketRouter)
    // With a database shared by several processes, the others' events reach this one's /live.
    var services: [any Service] = shared.map { [LiveRelay(store: $0, feed: liveFeed)] } ?? []
    if let interval = configuration.retention.interval {
        services.append(RetentionService(
            purge: RetentionPurge(store: served, defaultKeep: configuration.retention.defaultKeep,
                                  batchSize: configuration.retention.batchSize),
            interval: interval, clock: configuration.clock, metrics: metrics, logger: logger))
    }
    if let tagTracking {
        services.append(TagTracking.Lifetime(tracking: tagTracking))
        services += feeds.map { ReceiverReportFeedService(feed: $0, tracking: tagTracking, logger: logger) }
    }
    var server = HTTPServerBuilder.http1WebSocketUpgrade(webSocketRouter: webSocketRouter, timeouts: configuration.requestTimeouts)
    if let tls = configuration.tls {
        server = try .tls(server, tlsConfiguration: ServerSetupError.tlsConfiguration(tls))
    }
    return Application(
        responder: HeadRequestResponder(UserPathResponder(router.buildResponder())),
        server: server,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Whereabouts"),
        services: services,
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
}

/// What keeps a server from being built.
public enum ServerSetupError: Error, CustomStringConvertible {
    /// The certificate chain or the private key cannot be read as PEM.
    case unreadableTLSFile(path: String, reason: String)
    /// Report feeds were given, but no venue that lists receivers to locate their tags from.
    case reportFeedsWithoutReceivers

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .unreadableTLSFile(let path, let reason):
            "\(path): cannot be read as a PEM certificate or key (\(reason)); give the files of --tls-cert and --tls-key."
        case .reportFeedsWithoutReceivers:
            "Receivers' reports from a feed (--mqtt) need a venue that lists the receivers (--venue, its \"receivers\"): "
                + "without them no tag can be located."
        }
    }

    /// The server-side TLS configuration of the files (TLS 1.2 or later, NIO's defaults otherwise).
    static func tlsConfiguration(_ files: ServerConfiguration.TLSFiles) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificateChain)
        } catch {
            throw ServerSetupError.unreadableTLSFile(path: files.certificateChain, reason: "\(error)")
        }
        guard !chain.isEmpty else {
            throw ServerSetupError.unreadableTLSFile(path: files.certificateChain, reason: "no certificate in it")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: files.privateKey, format: .pem)
        } catch {
            throw ServerSetupError.unreadableTLSFile(path: files.privateKey, reason: "\(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                     privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
