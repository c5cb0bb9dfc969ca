import Foundation
import Logging
import Testing
import Whereabouts
@testable import WhereaboutsServer
import WhereaboutsServerTesting

/// Failures in the middle of things: the store failing on a write or half-way through an answer,
/// a client vanishing half-way through an upload, the database going away under load (and a full
/// disk, in the CLI tests). Each ends in a clear error, nothing acknowledged is lost, and the
/// server goes on serving.
@Suite("Fault injection")
struct FaultInjectionTests {
    @Test("A store write that fails is a 503 with an error id; the retry stores the event once", arguments: StoreKind.tested)
    func failedWrite(kind: StoreKind) async throws {
        try await TestServer.run(kind, wrappingStore: { FaultyStore($0) }) { server in
            let (_, token) = try await server.addUser("zed")
            let faults = try #require(server.store as? FaultyStore)
            faults.fail([.addEvents])
            let refused = try await server.request(.POST, "/events", token: token,
                                                   json: positionEvent(id: "z1", time: 100, latitude: 1, longitude: 1))
            #expect(refused.status == 503)
            #expect(refused.errorId == "unexpected-error")
            #expect(refused.text.contains("(error "), "\(refused.text)")
            #expect(!refused.text.contains("injected"), "internals reached the client: \(refused.text)")
            // The server's log has the cause under the error id the client got.
            let errorId = try #require(refused.text.range(of: #"error [0-9a-f]{8}"#, options: .regularExpression)
                .map { String(refused.text[$0].dropFirst("error ".count)) })
            #expect(server.log.contains("errorId=\(errorId)") && server.log.contains("injected store failure"),
                    "\(server.log.lines.withLock { $0 })")
            faults.fail([])
            #expect(try await server.request(.GET, "/events/z1", token: token).status == 404)
            let retried = try await server.request(.POST, "/events", token: token,
                                                   json: positionEvent(id: "z1", time: 100, latitude: 1, longitude: 1))
            #expect(retried.status == 201)
            #expect(try await server.request(.POST, "/events", token: token,
                                             json: positionEvent(id: "z1", time: 100, latitude: 1, longitude: 1)).status == 200)
        }
    }

    @Test("A store that fails half-way through an answer cuts it short, never passing a part for the whole")
    func failureMidAnswer() async throws {
        try await TestServer.run(.sqlite, wrappingStore: { FaultyStore($0) }) { server in
            let (user, token) = try await server.addUser("amy")
            let events = (0..<1_200).map { index in
                EventWrite(event: Event(id: "a\(index)", streamIds: ["position"], time: 1_000 + Double(index), type: "note/txt",
                                        content: .string("n")))
            }
            _ = try await server.store.addEvents(events, for: user)
            let faults = try #require(server.store as? FaultyStore)
            // The first page is read before the answer starts: a failure there is still a 503.
            faults.failEventPages(after: 0)
            let refused = try await server.request(.GET, "/events?fromTime=0&toTime=5000", token: token)
            #expect(refused.status == 503)
            // A failure after the first page (of 500) can only cut the body: the head (200) and the
            // first page went out, then the connection closes without the chunked body's last
            // chunk and without "meta", so no client can take the part for the whole. Read raw, so
            // that what arrived is checked whether or not an HTTP client would have thrown on it.
            faults.failEventPages(after: 1)
            let connection = try RawHTTPConnection(port: server.port)
            #expect(connection.send("GET /events?fromTime=0&toTime=5000 HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(token)\r\n\r\n"))
            let cut = await connection.receive(for: 30)
            #expect(cut.closed, "the server kept the connection of a cut answer open")
            #expect(cut.text.hasPrefix("HTTP/1.1 200"), "\(cut.text.prefix(200))")
            #expect(cut.text.contains("transfer-encoding: chunked") || cut.text.contains("Transfer-Encoding: chunked"))
            #expect(cut.text.contains(#""id":"a1199""#), "the first page did not go out")
            #expect(!cut.text.contains(#""meta""#), "a cut answer looked whole")
            #expect(!cut.text.hasSuffix("0\r\n\r\n"), "a cut answer ended with the last chunk")
            // An export too: a 503 when the store fails at once, a cut file when it fails later.
            faults.failEventPages(after: 0)
            #expect(try await server.request(.GET, "/events?format=csv&fromTime=0&toTime=5000&types[]=note/txt", token: token).status == 503)
            faults.failEventPages(after: Int.max)
            let whole = try await server.request(.GET, "/events?fromTime=0&toTime=5000", token: token)
            #expect(whole.json["events"]?.arrayValue?.count == 1_200)
        }
    }

    @Test("A client that vanishes half-way through an upload leaves nothing behind", arguments: StoreKind.tested)
    func clientVanishesMidUpload(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("bea")
            let boundary = "whereabouts-boundary"
            let event = #"{"id":"half","streamIds":["position"],"type":"picture/attached"}"#
            let body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"event\"\r\n\r\n\(event)\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n"
                + "Content-Type: image/png\r\n\r\n" + String(repeating: "x", count: 4_000) + "\r\n--\(boundary)--\r\n"
            let connection = try RawHTTPConnection(port: server.port)
            connection.send("POST /events HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(token)\r\n"
                            + "Content-Type: multipart/form-data; boundary=\(boundary)\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                            + body.prefix(body.utf8.count / 2))
            _ = await connection.receive(for: 0.3)
            connection.abort()
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await server.request(.GET, "/events/half", token: token).status == 404)
            #expect(try await server.request(.GET, "/health").status == 200)
            // The same upload cut short but with a length that says it is whole: refused, not
            // stored without its file.
            let truncated = String(body.prefix(body.utf8.count - 100))
            let cut = try await server.request(.POST, "/events", token: token, body: Array(truncated.utf8),
                                               headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")])
            #expect(cut.status == 400, "\(cut.text)")
            #expect(cut.text.contains("closing boundary"), "\(cut.text)")
            #expect(try await server.request(.GET, "/events/half", token: token).status == 404)
            // The same upload, whole, goes through.
            let whole = try await server.request(.POST, "/events", token: token, body: Array(body.utf8),
                                                 headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")])
            #expect(whole.status == 201, "\(whole.text)")
        }
    }

    @Test("PostgreSQL restarting under load: each request is stored and acknowledged, or answered 503 in bounded time; none is lost; the server recovers and stops",
          .needsPostgreSQL, .timeLimit(.minutes(5)))
    func databaseRestartsUnderLoad() async throws {
        var components = try #require(URLComponents(string: PostgresTestServer.url))
        let proxy = try TCPProxy(targetPort: components.port ?? 5432)
        defer { proxy.stop() }
        components.host = "127.0.0.1"
        components.port = proxy.port
        var logger = Logger(label: "whereabouts.postgres.tests")
        logger.logLevel = .critical
        let proxied = try PostgresEventStore(url: try #require(components.string), logger: logger)
        try await proxied.migrate()
        var configuration = ServerConfiguration()
        configuration.storeTimeout = .seconds(4)
        try await TestServer.run(.postgres, configuration: configuration, wrappingStore: { _ in proxied }) { server in
            let (userName, token) = try await server.addUser("restart")
            struct Outcome { var id: Int, status: Int, startedAfterResume: Bool, seconds: Double }
            let outcomes = LockedValue<[Outcome]>([])
            let resumed = LockedValue(false)
            let stop = LockedValue(false)
            let load = Task {
                await withTaskGroup(of: Void.self) { group in
                    for worker in 0..<4 {
                        group.addTask {
                            var index = worker
                            while !stop.value {
                                let afterResume = resumed.value
                                let started = ContinuousClock.now
                                let status = (try? await server.request(
                                    .POST, "/events", token: token,
                                    json: positionEvent(id: "r\(index)", time: Double(1_000 + index), latitude: 46, longitude: 7)).status) ?? 0
                                let elapsed = ContinuousClock.now - started
                                outcomes.withValue {
                                    $0.append(Outcome(id: index, status: status, startedAfterResume: afterResume, seconds: elapsed.inSeconds))
                                }
                                index += 4
                            }
                        }
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(500))
            proxy.interrupt()  // the database goes away, in the middle of requests
            try await Task.sleep(for: .seconds(1))
            try proxy.resume()  // and comes back
            resumed.value = true
            // Requests started after it came back succeed again within seconds.
            var recovered = false
            for _ in 0..<300 where !recovered {
                try await Task.sleep(for: .milliseconds(100))
                let later = outcomes.value.filter(\.startedAfterResume)
                recovered = later.count >= 8 && later.suffix(8).allSatisfy { $0.status == 201 }
            }
            stop.value = true
            _ = await load.result
            let all = outcomes.value
            #expect(recovered, "the server did not recover: \(all.suffix(8).map(\.status))")
            // Every request ended, stored or refused, within the store's time limit (and a margin
            // for a busy machine; without the limit, some wait until the client gives up, 30 s).
            #expect(all.allSatisfy { $0.status == 201 || $0.status == 503 }, "\(Set(all.map(\.status)))")
            #expect(all.allSatisfy { $0.seconds < 15 }, "slowest: \(all.map(\.seconds).max() ?? 0) s")
            // Every acknowledged event is stored (read through a direct connection).
            let acknowledged = Set(all.filter { $0.status == 201 }.map { "r\($0.id)" })
            let direct = try PostgresEventStore(url: PostgresTestServer.url, logger: logger)
            let query = EventQuery(fromTime: 0, toTime: 100_000, sortAscending: true, limit: 1_000_000)
            let stored = Set(try await direct.events(matching: query, for: userName).map(\.id))
            try await direct.close()
            #expect(acknowledged.isSubset(of: stored), "lost: \(acknowledged.subtracting(stored).sorted())")
            try await proxied.close()
            print("postgres restart: \(all.count) requests, \(acknowledged.count) acknowledged, "
                  + "\(all.filter { $0.status == 503 }.count) answered 503, slowest \(all.map(\.seconds).max() ?? 0) s")
        }
    }
}
