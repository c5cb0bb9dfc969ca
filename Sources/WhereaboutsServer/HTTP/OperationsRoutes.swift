import Hummingbird
import Whereabouts

/// `/health` and `/metrics`, for load balancers and monitoring. `/health` needs no token and says
/// only whether the store answers (`{"status": "ok"}`, or 503 `{"status": "unavailable"}`); why
/// it does not is in the server's log, not in the public answer. `/metrics` needs a token unless
/// `metricsArePublic` (see ``ServerConfiguration/publicVenueAndMetrics``).
struct OperationsRoutes: ServerRoutes {
    let store: any EventStore
    let metrics: ServerMetrics
    var metricsArePublic = true

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get("/health") { _, _ in
            do {
                _ = try await store.user(named: "-")
                return APIResponse.json([("status", .string("ok"))])
            } catch {
                APIError.logger.error("Health check: the store does not answer", metadata: ["error": "\(error)"])
                return APIResponse.json([("status", .string("unavailable"))], status: .serviceUnavailable)
            }
        }
        router.get("/metrics") { [metricsArePublic] _, context in
            if !metricsArePublic { _ = try context.requireAccess() }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
    }
}
