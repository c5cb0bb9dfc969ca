import Hummingbird

/// Answers `HEAD` as the same `GET` without its body (RFC 9110 §9.3.2: a server that supports
/// GET supports HEAD), so that monitors, link checkers and `curl -I` see the real status and
/// headers rather than a 405.
///
/// It wraps the router's responder rather than being a router middleware: a middleware runs
/// after the route is chosen, too late to choose the `GET` route.
///
/// ```swift
/// let app = Application(responder: HeadRequestResponder(router.buildResponder()), …)
/// ```
public struct HeadRequestResponder<Base: HTTPResponder>: HTTPResponder {
    /// The request context of the responder it wraps.
    public typealias Context = Base.Context

    /// The responder that answers everything else.
    public let base: Base

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// Runs a `HEAD` request as a `GET` and drops the body of the answer, keeping its length.
    @Sendable public func respond(to request: Request, context: Context) async throws -> Response {
        guard request.method == .head else { return try await base.respond(to: request, context: context) }
        var head = request.head
        head.method = .get
        let response = try await base.respond(to: Request(head: head, body: request.body), context: context)
        var headers = response.headers
        if headers[.contentLength] == nil, let length = response.body.contentLength {
            headers[.contentLength] = String(length)
        }
        return Response(status: response.status, headers: headers, body: .init())
    }
}
