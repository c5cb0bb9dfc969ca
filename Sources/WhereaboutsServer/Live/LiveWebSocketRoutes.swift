import Hummingbird
import HummingbirdWebSocket
import Logging
import Whereabouts

/// `GET /live` as a WebSocket, on the router given to `.http1WebSocketUpgrade(webSocketRouter:)`:
/// the upgrade is accepted for a token that may read some of its user's streams, and the socket
/// then carries `{"ready": true}` and one `{"event": …}` per readable event created or changed
/// (see ``LiveRoutes`` for the messages, and for the plain-HTTP answer that says why an upgrade
/// was refused).
///
/// ```swift
/// let webSocketRouter = Router(context: ServerRequestContext.self)
/// LiveWebSocketRoutes(feed: feed, store: store, authenticator: authenticator).addRoutes(to: webSocketRouter)
/// ```
struct LiveWebSocketRoutes: ServerRoutes {
    /// Where created and changed events are published.
    let feed: LiveFeed
    /// Where the tokens' users and streams are.
    let store: any EventStore
    /// Resolves tokens.
    let authenticator: TokenAuthenticator
    /// The sockets open, against their caps.
    let connections: LiveConnections

    /// Creates the route.
    init(feed: LiveFeed, store: any EventStore, authenticator: TokenAuthenticator, connections: LiveConnections) {
        self.feed = feed
        self.store = store
        self.authenticator = authenticator
        self.connections = connections
    }

    /// Adds the `GET /live` WebSocket upgrade to `webSocketRouter` (the router given to
    /// `.http1WebSocketUpgrade(webSocketRouter:)`).
    func addRoutes(to webSocketRouter: Router<ServerRequestContext>) {
        webSocketRouter.ws(RouterPath(LiveRoutes.path)) { [store, authenticator, connections] request, context in
            let outcome = try await LiveRoutes.authenticate(
                request, context: context, authenticator: authenticator, store: store)
            guard case .success(let access, _) = outcome, await connections.admits(access.id) else { return .dontUpgrade }
            return .upgrade([:])
        } onUpgrade: { [feed, store, authenticator, connections] inbound, outbound, context in
            // The upgrade request's context is a copy taken before the route ran, so the access
            // is resolved again (TokenAuthenticator caches it).
            let outcome = try await LiveRoutes.authenticate(
                context.request, context: context.requestContext, authenticator: authenticator, store: store)
            guard case .success(let access, let tree) = outcome else {
                try await outbound.close(.policyViolation, reason: "The token no longer gives access.")
                return
            }
            guard await connections.open(access.id) else {
                try await outbound.close(.policyViolation, reason: "Too many /live sockets for this token or this server.")
                return
            }
            do {
                try await Self.stream(to: outbound, inbound: inbound, access: access, tree: tree,
                                      feed: feed, store: store, authenticator: authenticator, logger: context.logger)
            } catch {
                await connections.close(access.id)
                throw error
            }
            await connections.close(access.id)
        }
    }

    private static func stream(
        to outbound: WebSocketOutboundWriter, inbound: WebSocketInboundStream, access: Access, tree: StreamTree,
        feed: LiveFeed, store: any EventStore, authenticator: TokenAuthenticator, logger: Logger
    ) async throws {
        let events = await feed.subscribe(to: access.userName)
        try await outbound.write(.text(JSONWriter().string(from: .object([("ready", .bool(true))]))))
        logger.debug("live feed opened", metadata: ["user": "\(access.userName)", "access": "\(access.id)"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Reading the inbound side notices the client closing; its messages are ignored.
            group.addTask {
                for try await _ in inbound {}
            }
            // Once a second: a revoked or expired token closes the socket.
            group.addTask {
                while true {
                    try await Task.sleep(for: .seconds(1))
                    guard (try? await authenticator.isValid(access)) != false else {
                        logger.info("live feed closed: token revoked or expired", metadata: ["access": "\(access.id)"])
                        try await outbound.close(.policyViolation, reason: "The token was revoked or has expired.")
                        return
                    }
                }
            }
            group.addTask {
                var filter = LiveRoutes.ReadFilter(access: access, tree: tree, store: store)
                for await event in events {
                    guard try await filter.allows(event) else { continue }
                    try await outbound.write(.text(LiveRoutes.message(for: event)))
                }
            }
            defer { group.cancelAll() }
            try await group.next()
        }
        logger.debug("live feed closed", metadata: ["user": "\(access.userName)", "access": "\(access.id)"])
    }
}
