import Hummingbird
import Logging

/// `GET /openapi.json`: the ``OpenAPIDocument``, no token needed. Adding it also logs a warning
/// for every route of the router that the document does not describe, so add it last.
///
/// ```swift
/// let router = Router(context: ServerRequestContext.self)
/// // … every other route …
/// OpenAPIRoutes(logger: logger).addRoutes(to: router)
/// ```
struct OpenAPIRoutes: ServerRoutes {
    /// Where the warnings about undocumented routes go.
    let logger: Logger

    /// Creates the route.
    init(logger: Logger) {
        self.logger = logger
    }

    /// Adds `GET /openapi.json` to `router`, and logs a warning for every route of `router` that
    /// the document does not describe. Call it after adding every other route.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(OpenAPIDocument.path)) { _, _ in
            APIResponse.json(text: OpenAPIDocument.body)
        }
        for route in OpenAPIDocument.undocumentedRoutes(of: router) {
            logger.warning("Route missing from /openapi.json; describe it in Resources/openapi.json.",
                           metadata: ["route": "\(route)"])
        }
    }
}
