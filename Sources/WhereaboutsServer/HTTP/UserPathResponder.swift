import Hummingbird

/// Serves every API route under a user's path as well, Pryv's "DNS-less" API endpoint form:
/// `https://host/alice/events` is `https://host/events` for a token of alice's.
///
/// Pryv's clients reach a user at the endpoint that `/service/info` gives (`api`, with
/// `{username}` in it); this server serves all its users on one host, so the endpoint is
/// `https://host/{username}/`. The user's name is taken off the path and kept in the request's
/// context (``ServerRequestContext/pathUser``); ``AuthenticationMiddleware`` refuses a token of
/// another user there. A path whose first segment is one of the server's own
/// (``User/reservedNames``) is left as it is, which is why no user may have such a name.
public struct UserPathResponder<Base: HTTPResponder>: HTTPResponder where Base.Context == ServerRequestContext {
    public typealias Context = ServerRequestContext

    /// The responder of the routes without the user's path.
    public let base: Base

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// Answers `request`, without the user's name at the start of its path when it has one.
    @Sendable public func respond(to request: Request, context: Context) async throws -> Response {
        // `/{username}` alone is the batch route (POST); any other method there is no route.
        guard let (user, rest) = Self.userPath(request.uri.path), rest != "/" || request.method == .post else {
            return try await base.respond(to: request, context: context)
        }
        var head = request.head
        let query = request.uri.query.map { "?" + $0 } ?? ""
        head.path = rest + query
        var context = context
        context.pathUser = user
        return try await base.respond(to: Request(head: head, body: request.body), context: context)
    }

    /// The user's name and the rest of the path (at least `/`) when `path` starts with a user's
    /// path: a first segment that could be a user's name and is not one of the server's own.
    static func userPath(_ path: String) -> (user: String, rest: String)? {
        let trimmed = path.utf8.first == UInt8(ascii: "/") ? path.dropFirst() : path[...]
        let slash = trimmed.firstIndex(of: "/")
        let first = String(trimmed[..<(slash ?? trimmed.endIndex)])
        guard User.isValidName(first) else { return nil }
        let rest = slash.map { String(trimmed[$0...]) } ?? "/"
        return (first, rest)
    }
}
