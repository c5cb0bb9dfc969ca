import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// `/health` and `/metrics`.
@Suite("Operations routes")
struct OperationsTests {
    @Test("Health answers without a token; metrics count requests and stored events", arguments: StoreKind.tested)
    func healthAndMetrics(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let health = try await server.request(.GET, "/health")
            #expect(health.status == 200)
            #expect(health.json["status"]?.stringValue == "ok")
            let (_, token) = try await server.addUser("eve")
            for index in 0..<3 {
                _ = try await server.request(.POST, "/events", token: token,
                                             json: positionEvent(time: Double(index), latitude: 1, longitude: 1))
            }
            let metrics = try await server.request(.GET, "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers["Content-Type"].first?.hasPrefix("text/plain") == true)
            let text = metrics.text
            #expect(text.contains("whereabouts_events_stored_total 3"))
            #expect(text.contains(#"whereabouts_http_requests_total{method="POST",route="/events",status="201"} 3"#))
            #expect(text.contains("whereabouts_http_request_duration_seconds_bucket"))
        }
    }

    @Test("Off loopback, /venue and /metrics want a token (any user's); /health never does")
    func venueAndMetricsBehindATokenOffLoopback() async throws {
        var configuration = ServerConfiguration(host: "0.0.0.0", venue: try mapTestVenue())
        #expect(!configuration.venueAndMetricsArePublic)
        #expect(ServerConfiguration(host: "127.0.0.1").venueAndMetricsArePublic)
        configuration.host = "127.0.0.1"  // the test listens on loopback, configured as if it did not
        configuration.publicVenueAndMetrics = false
        try await TestServer.run(.sqlite, configuration: configuration) { server in
            let (_, token) = try await server.addUser("fox")
            for path in ["/venue", "/metrics"] {
                let refused = try await server.request(.GET, path)
                #expect(refused.status == 401, "\(path)")
                #expect(refused.errorId == "invalid-access-token", "\(path)")
                #expect(try await server.request(.GET, path, token: token).status == 200, "\(path)")
            }
            #expect(try await server.request(.GET, "/health").status == 200)
        }
    }

    @Test("Request counts stay exact whether their instruments are kept or, past the limit, looked up again")
    func requestInstrumentsPastTheLimit() {
        let metrics = ServerMetrics()
        let routes = ServerMetrics.requestInstrumentLimit + 10
        for route in 0..<routes {
            metrics.recordRequest(method: "GET", route: "/r\(route)", status: 200, duration: .milliseconds(1))
        }
        // The first route's instruments are kept; the last one's are not.
        for route in [0, routes - 1] {
            metrics.recordRequest(method: "GET", route: "/r\(route)", status: 200, duration: .milliseconds(1))
            metrics.recordRequest(method: "GET", route: "/r\(route)", status: 404, duration: .milliseconds(1))
        }
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        for route in [0, routes - 1] {
            #expect(text.contains(#"whereabouts_http_requests_total{method="GET",route="/r\#(route)",status="200"} 2"#))
            #expect(text.contains(#"whereabouts_http_requests_total{method="GET",route="/r\#(route)",status="404"} 1"#))
            #expect(text.contains(#"whereabouts_http_request_duration_seconds_count{method="GET",route="/r\#(route)"} 3"#))
        }
    }
}
