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
    /// Why the request's token was refused, when it carried one that is not valid.
    public var authenticationFailure: APIError?
    /// The user named at the start of the path (`/{username}/events`, Pryv's API endpoint form),
    /// taken off it by ``UserPathResponder``; a token must act for that user.
    public var pathUser: String?
    /// The client's IP address, as the connection shows it (a proxy's, behind one).
    public let clientAddress: String?

    /// Creates the context for a new request.
    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.access = nil
        self.authenticationFailure = nil
        self.pathUser = nil
        clientAddress = source.channel.remoteAddress?.ipAddress
    }

    /// The access the request authenticated as; throws `invalid-access-token` (401) when the
    /// request had no token or an unknown one.
    public func requireAccess() throws(APIError) -> Access {
        if let access { return access }
        throw authenticationFailure ?? APIError(.invalidAccessToken,
            "This request needs a token: send it in the Authorization header (as the token itself, as "
                + "Bearer TOKEN, or as the Basic auth user name or password); create one with `whereabouts users token NAME`.")
    }
}
