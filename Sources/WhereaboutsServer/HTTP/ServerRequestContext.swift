import Hummingbird
import HummingbirdWebSocket

/// The per-request context of the Whereabouts server: Hummingbird's core storage, the WebSocket
/// upgrade handle for `/live`, and the access the request's token resolved to.
public struct ServerRequestContext: RequestContext, WebSocketRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The WebSocket handler, set when a route upgrades the connection.
    public let webSocket: WebSocketHandlerReference<ServerRequestContext>
    /// The access the request authenticated as, once ``AuthenticationMiddleware`` has run.
    public var access: Access?

    /// Creates the context for a new request.
    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.access = nil
    }
}
