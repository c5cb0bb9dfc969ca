import Foundation
import Hummingbird
import Whereabouts

/// `GET /live`: a WebSocket on which the server sends a user's events as they are created or
/// changed, for the map page and other live clients.
///
/// Browsers cannot set headers on a WebSocket, so the token travels as `?auth=TOKEN` (an
/// `Authorization` header carrying the token is accepted too). Once the socket is open the
/// server sends, as text messages written with ``JSONWriter``:
///
/// - `{"ready": true}` once the subscription is in place: events stored from then on reach the
///   client (a client can wait for it before reporting itself connected);
/// - `{"event": <event>}` for each event created or changed afterwards that the token may read,
///   the event in the shape `GET /events` uses.
///
/// Messages the client sends are ignored. A client that reads too slowly loses the oldest
/// pending events (see ``LiveFeed``), never the connection.
///
/// A browser's socket must come from a page of this server: a request whose `Origin` names
/// another host is refused (403), so that no other site can open a socket with a visitor's
/// token. A token may hold 16 sockets, and the server 4,096 in all
/// (``ServerConfiguration/liveConnections``); beyond that the upgrade is refused (429).
///
/// Without a valid token the upgrade is refused. hummingbird-websocket answers every refused
/// upgrade itself, with a bare `400 Bad Request` (and browsers never show a WebSocket's HTTP
/// status to scripts anyway), so the reason is served over plain HTTP instead: these routes,
/// added to the server's main router, answer a `GET /live` that is not an upgrade with 401 (no
/// or unknown token), 403 (a token that may read nothing) or 426 (a valid token: use a
/// WebSocket), in Pryv's error shape. The map page asks it when its socket is refused. The
/// WebSocket itself is ``LiveWebSocketRoutes``, on the router that handles upgrades.
///
/// ```swift
/// let webSocketRouter = Router(context: ServerRequestContext.self)
/// LiveWebSocketRoutes(feed: feed, store: store, authenticator: authenticator).addRoutes(to: webSocketRouter)
/// LiveRoutes(store: store, authenticator: authenticator).addRoutes(to: router)
/// let app = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: webSocketRouter))
/// ```
struct LiveRoutes: ServerRoutes {
    /// The route's path: the one where the authentication middleware also takes `?auth=`.
    static let path = AuthenticationMiddleware.queryTokenPath

    /// Where the tokens' users and streams are.
    let store: any EventStore
    /// Resolves tokens.
    let authenticator: TokenAuthenticator
    /// The sockets open, against their caps.
    let connections: LiveConnections

    /// Creates the routes.
    init(store: any EventStore, authenticator: TokenAuthenticator, connections: LiveConnections) {
        self.store = store
        self.authenticator = authenticator
        self.connections = connections
    }

    /// Adds a plain-HTTP `GET /live` to the server's main router that says why a WebSocket would
    /// be refused: 401 without a valid token, 403 when the token may read nothing, and otherwise
    /// 426 (the token is fine; connect with a WebSocket).
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(Self.path)) { [store, authenticator, connections] request, context -> Response in
            switch try await Self.authenticate(request, context: context, authenticator: authenticator, store: store) {
            case .failure(let error):
                return APIResponse.error(error)
            case .success(let access, _) where await !connections.admits(access.id):
                return APIResponse.error(Self.tooManyConnections)
            case .success:
                var response = APIResponse.error(APIError(
                    id: "upgrade-required",
                    message: "/live is a WebSocket: connect with ws://HOST/live?auth=TOKEN (Upgrade: websocket).",
                    status: .upgradeRequired))
                response.headers[.upgrade] = "websocket"
                return response
            }
        }
    }

    /// The outcome of checking a `/live` request's token.
    enum Authentication {
        case success(Access, StreamTree)
        case failure(APIError)
    }

    /// The token a `/live` request carries: `?auth=`, else the `Authorization` header.
    static func token(of request: Request) -> String? {
        if let query = request.uri.queryParameters["auth"], !query.isEmpty { return String(query) }
        if let header = request.headers[.authorization], !header.isEmpty { return header }
        return nil
    }

    /// The refusal of a socket beyond the caps.
    static let tooManyConnections = APIError(
        id: "too-many-requests",
        message: "This token (or the server) has as many /live sockets open as it may; close one first.",
        status: .tooManyRequests)

    /// Whether the request's `Origin`, when it has one, names the host the request was sent to
    /// (its `Host`, ports aside: some WebSocket clients leave the port out of `Origin`): a browser
    /// page of another site may not open the socket.
    static func isSameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }   // not a browser
        guard let authority = request.head.authority, let originHost = URLComponents(string: origin)?.host else { return false }
        var host = Substring(authority)
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }                 // [::1]:8080
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]                                        // 127.0.0.1:8080
        }
        let bare = originHost.hasPrefix("[") ? String(originHost.dropFirst().dropLast()) : originHost
        return bare.lowercased() == host.lowercased()
    }

    static func authenticate(
        _ request: Request, context: ServerRequestContext, authenticator: TokenAuthenticator, store: any EventStore
    ) async throws -> Authentication {
        guard isSameOrigin(request) else {
            return .failure(APIError(.forbidden, "/live accepts sockets only from pages of this server; this one comes from \(request.headers[.origin] ?? "elsewhere")."))
        }
        let resolved: Access?
        if let access = context.access {
            resolved = access
        } else if let token = token(of: request) {
            do {
                resolved = try await authenticator.access(forToken: token)
            } catch {
                return .failure(.storeFailure(error))  // 503: the store did not answer
            }
        } else {
            return .failure(APIError(.invalidAccessToken,
                "No token: open the WebSocket as /live?auth=TOKEN with a token from `whereabouts users token`."))
        }
        guard let access = resolved else {
            return .failure(APIError(.invalidAccessToken,
                "The token is not known to this server; make one with `whereabouts users token NAME`."))
        }
        let tree: StreamTree
        do {
            tree = StreamTree(try await store.streams(of: access.userName))
        } catch {
            return .failure(.storeFailure(error))
        }
        if let readable = access.readableStreams(in: tree), readable.isEmpty {
            return .failure(APIError(.forbidden, "The token may read none of \(access.userName)'s streams, so it has nothing to watch."))
        }
        return .success(access, tree)
    }

    /// The text message announcing `event`.
    static func message(for event: Event) -> String {
        JSONWriter().string(from: .object([("event", event.jsonValue)]))
    }

    /// The readable subset of the user's streams, refreshed when an event names a stream that
    /// the tree does not have yet (one created after the socket opened).
    struct ReadFilter {
        let access: Access
        let store: any EventStore
        var tree: StreamTree
        var readable: Set<String>?

        init(access: Access, tree: StreamTree, store: any EventStore) {
            self.access = access
            self.store = store
            self.tree = tree
            self.readable = access.readableStreams(in: tree)
        }

        mutating func allows(_ event: Event) async throws -> Bool {
            guard readable != nil else { return true }
            if event.streamIds.contains(where: { tree.streams[$0] == nil }) {
                tree = StreamTree(try await store.streams(of: access.userName))
                readable = access.readableStreams(in: tree)
            }
            guard let readable else { return true }
            return event.streamIds.contains(where: readable.contains)
        }
    }
}
