import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer
import WhereaboutsServerTesting

/// Failures in the middle of things: the store failing on a write or half-way through an answer,
/// a client vanishing half-way through an upload. Each ends in a clear error, nothing
/// acknowledged is lost, and the server goes on serving.
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
            // A failure after the first page (of 500) can only cut the body: never valid JSON.
            faults.failEventPages(after: 1)
            let cut = try? await server.request(.GET, "/events?fromTime=0&toTime=5000", token: token)
            if let cut {
                #expect(!cut.text.contains(#""meta""#), "a cut answer looked whole")
                #expect((try? JSONParser.parse(cut.body)) == nil)
            }
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
}
