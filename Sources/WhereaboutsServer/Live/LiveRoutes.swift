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
    /// The route's path.
    static let path = "/live"

    /// Where the tokens' users and streams are.
    let store: any EventStore
    /// Resolves tokens.
    let authenticator: TokenAuthenticator

    /// Creates the routes.
    init(store: any EventStore, authenticator: TokenAuthenticator) {
        self.store = store
        self.authenticator = authenticator
    }

    /// Adds a plain-HTTP `GET /live` to the server's main router that says why a WebSocket would
    /// be refused: 401 without a valid token, 403 when the token may read nothing, and otherwise
    /// 426 (the token is fine; connect with a WebSocket).
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(Self.path)) { [store, authenticator] request, context -> Response in
            switch try await Self.authenticate(request, context: context, authenticator: authenticator, store: store) {
            case .failure(let error):
                return APIResponse.error(error)
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

    static func authenticate(
        _ request: Request, context: ServerRequestContext, authenticator: TokenAuthenticator, store: any EventStore
    ) async throws -> Authentication {
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
            return .failure(.invalidAccessToken(
                "No token: open the WebSocket as /live?auth=TOKEN with a token from `whereabouts users token`."))
        }
        guard let access = resolved else {
            return .failure(.invalidAccessToken(
                "The token is not known to this server; make one with `whereabouts users token NAME`."))
        }
        let tree: StreamTree
        do {
            tree = StreamTree(try await store.streams(of: access.userName))
        } catch {
            return .failure(.storeFailure(error))
        }
        if let readable = access.readableStreams(in: tree), readable.isEmpty {
            return .failure(.forbidden("The token may read none of \(access.userName)'s streams, so it has nothing to watch."))
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
