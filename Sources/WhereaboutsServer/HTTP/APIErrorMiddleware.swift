import Hummingbird
import Logging

/// Turns every error into a response in Pryv's error shape, marks every answer `Cache-Control:
/// no-store` (unless its route set its own) and `X-Content-Type-Options: nosniff`, and records
/// each request's metrics.
///
/// Client mistakes that Hummingbird reports itself (no such route, body too large, wrong
/// method) keep their 4xx status with a clear message; an error the server did not expect is
/// logged and answered with a 500 that reveals no internals.
public struct APIErrorMiddleware: RouterMiddleware {
    /// The server's request context.
    public typealias Context = ServerRequestContext

    private let metrics: ServerMetrics

    /// Creates the middleware.
    public init(metrics: ServerMetrics) {
        self.metrics = metrics
    }

    /// Runs the request, converting errors, and records its metrics.
    public func handle(
        _ request: Request, context: ServerRequestContext,
        next: (Request, ServerRequestContext) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        var response: Response
        do {
            // Failures found deep in the service log through the request's logger.
            response = try await APIError.$logger.withValue(context.logger) { try await next(request, context) }
        } catch let error as any HTTPResponseError where error.status == .notFound {
            response = Self.notFoundResponse(for: request)
        } catch {
            response = APIResponse.error(Self.apiError(for: error, request: request, logger: context.logger))
        }
        // Answers hold a user's data: no cache keeps them (unless a route says otherwise), and
        // no browser guesses a downloaded file's type.
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        response.headers[.xContentTypeOptions] = "nosniff"
        let route = context.endpointPath ?? "unmatched"
        metrics.recordRequest(
            method: request.method.rawValue, route: route, status: response.status.code,
            duration: ContinuousClock.now - start)
        return response
    }

    /// No route answered: `405` with `Allow` when the path exists for other methods, else `404`.
    static func notFoundResponse(for request: Request) -> Response {
        let allowed = AllowedMethods.documented.methods(forPath: request.uri.path)
        guard !allowed.isEmpty, !allowed.contains(request.method.rawValue) else {
            return APIResponse.error(APIError(.unknownResource,
                "No route \(request.method.rawValue) \(request.uri.path); see /openapi.json for the API."))
        }
        var response = APIResponse.error(APIError(
            id: "invalid-operation",
            message: "\(request.method.rawValue) is not allowed on \(request.uri.path); it accepts \(allowed.joined(separator: ", ")).",
            status: .methodNotAllowed))
        response.headers[.allow] = allowed.joined(separator: ", ")
        return response
    }

    /// The API error that stands for `error`.
    static func apiError(for error: any Error, request: Request, logger: Logger) -> APIError {
        if let error = error as? APIError { return error }
        if let error = error as? any HTTPResponseError {
            switch error.status {
            case .notFound:
                return APIError(.unknownResource, "No route \(request.method.rawValue) \(request.uri.path); see /openapi.json for the API.")
            case .contentTooLarge:
                return APIError(.tooLarge, "The request body is larger than this server accepts for \(request.uri.path).")
            case .methodNotAllowed:
                return APIError(id: "invalid-operation",
                                message: "\(request.method.rawValue) is not allowed on \(request.uri.path).",
                                status: .methodNotAllowed)
            case let status where (400..<500).contains(status.code):
                return APIError(id: "invalid-request-structure", message: "\(error)", status: status)
            default:
                break
            }
        }
        return .unexpected(error, status: .internalServerError, what: "The server could not complete \(request.method.rawValue) \(request.uri.path)",
                           logger: logger)
    }
}
