import Hummingbird
import Whereabouts

/// `/health` and `/metrics`, for load balancers and monitoring; neither needs a token. `/health`
/// says only whether the store answers (`{"status": "ok"}`, or 503 `{"status": "unavailable"}`);
/// why it does not is in the server's log, not in the public answer.
struct OperationsRoutes: ServerRoutes {
    let store: any EventStore
    let metrics: ServerMetrics

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
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
    }
}
