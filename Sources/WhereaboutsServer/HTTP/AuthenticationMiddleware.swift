import Foundation
import Hummingbird

/// Finds the token a request carries and resolves it to an ``Access``, the ways Pryv allows:
/// the `Authorization` header holding the token itself (or `Bearer TOKEN`), HTTP Basic auth
/// with the token as the user name (Pryv's `https://TOKEN@host`) or as the password (OwnTracks'
/// user/password settings), or — on `/live` only, where a browser's WebSocket cannot send a
/// header — the `auth` query parameter. Elsewhere `?auth=` is refused (401): a token in a URL
/// ends up in logs, histories and `Referer` headers.
///
/// A request without a token goes on without an access; routes that need one call
/// ``ServerRequestContext/requireAccess()``. A request with an unknown token also goes on, with
/// the failure recorded, so that public routes (`/health`, `/map`) still answer.
public struct AuthenticationMiddleware: RouterMiddleware {
    /// The one path that takes its token from `?auth=` as well as from the headers: the live
    /// feed's (`/live`), since a browser's WebSocket cannot set headers.
    static let queryTokenPath = "/live"

    /// The server's request context.
    public typealias Context = ServerRequestContext

    private let authenticator: TokenAuthenticator
    private let rateLimiter: RateLimiter?

    /// Creates the middleware. A client address that tries too many unknown tokens (the
    /// authenticator's limit, ``TokenAuthenticator/resolve(token:client:)``) is answered 429.
    public init(authenticator: TokenAuthenticator, rateLimiter: RateLimiter?) {
        self.authenticator = authenticator
        self.rateLimiter = rateLimiter
    }

    /// Resolves the token, applies the token's rate limit, and passes the request on.
    public func handle(
        _ request: Request, context: ServerRequestContext,
        next: (Request, ServerRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        guard let token = Self.token(in: request) else {
            if request.uri.path != Self.queryTokenPath, QueryParameters(query: request.uri.query)["auth"] != nil {
                context.authenticationFailure = APIError(.invalidAccessToken,
                    "?auth= is accepted only on /live; send the token in the Authorization header.")
            }
            return try await next(request, context)
        }
        let resolution: TokenAuthenticator.Resolution
        do {
            resolution = try await authenticator.resolve(token: token, client: context.clientAddress ?? "unknown")
        } catch {
            // The store did not answer: routes that need the token say so with a 503;
            // public routes still answer.
            context.authenticationFailure = .storeFailure(error)
            return try await next(request, context)
        }
        switch resolution {
        case .access(let access):
            if let rateLimiter, let retryAfter = await rateLimiter.admit(access.id) {
                var response = APIResponse.error(APIError(.tooManyRequests,
                    "This token has sent more requests than its rate limit allows; retry in \(retryAfter) s."))
                response.headers[.retryAfter] = String(retryAfter)
                return response
            }
            if let pathUser = context.pathUser, pathUser != access.userName {
                // As Pryv answers a token the user's accesses do not hold: 403.
                context.authenticationFailure = APIError(
                    id: "invalid-access-token",
                    message: "This token acts for another user than \"\(pathUser)\"; use its own user's API endpoint.",
                    status: .forbidden)
            } else {
                context.access = access
            }
        case .unknown:
            context.authenticationFailure = APIError(.invalidAccessToken,
                "The token is not known to this server. Create one with `whereabouts users token NAME`.")
        case .tooManyFailures:
            return Self.tooManyFailures
        }
        return try await next(request, context)
    }

    /// The answer to a client address that has tried too many unknown tokens.
    static var tooManyFailures: Response {
        var response = APIResponse.error(APIError(.tooManyRequests,
            "Too many requests with unknown tokens from this address; wait a few seconds before trying again."))
        response.headers[.retryAfter] = "5"
        return response
    }

    /// The token a request carries, if any.
    public static func token(in request: Request) -> String? {
        // Every authenticated request comes through here: the header is trimmed and its scheme
        // compared on its bytes, without Foundation's character sets or lower-cased copies.
        if let value = request.headers[.authorization], case let header = trimmed(value[...]), !header.isEmpty {
            if hasScheme("basic ", header) {
                let encoded = trimmed(header.dropFirst(6))
                if let data = Data(base64Encoded: String(encoded)), let text = String(data: data, encoding: .utf8) {
                    let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                    let user = parts.first.map(String.init) ?? ""
                    let password = parts.count > 1 ? String(parts[1]) : ""
                    let token = password.isEmpty ? user : password
                    if !token.isEmpty { return token }
                }
            } else if hasScheme("bearer ", header) {
                let token = trimmed(header.dropFirst(7))
                if !token.isEmpty { return String(token) }
            } else {
                return String(header)
            }
        }
        if request.uri.path == Self.queryTokenPath, let token = QueryParameters(query: request.uri.query)["auth"], !token.isEmpty {
            return token
        }
        return nil
    }

    /// `text` without the spaces and tabs (HTTP's optional white space) around it.
    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }

    /// Whether `header` starts with `scheme` (lower-case ASCII letters and a space), in any case.
    private static func hasScheme(_ scheme: StaticString, _ header: Substring) -> Bool {
        let expected = UnsafeBufferPointer(start: scheme.utf8Start, count: scheme.utf8CodeUnitCount)
        var bytes = header.utf8.makeIterator()
        for wanted in expected {
            guard let byte = bytes.next() else { return false }
            let isUpperCaseOfWanted = wanted >= 0x61 && wanted <= 0x7A && byte == wanted - 0x20
            guard byte == wanted || isUpperCaseOfWanted else { return false }
        }
        return true
    }
}
