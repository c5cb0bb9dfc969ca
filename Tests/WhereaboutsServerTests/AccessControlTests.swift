import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Tokens: how they are sent, and that no token reaches another user's data or streams outside
/// its permissions, on every route.
@Suite("Access control")
struct AccessControlTests {
    @Test("The token is accepted in the header, as Bearer and in Basic auth; ?auth= only on /live", arguments: StoreKind.tested)
    func tokenPlacements(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (name, token) = try await server.addUser("max")
            let ways: [(String, [(String, String)])] = [
                ("/events", [("Authorization", token)]),
                ("/events", [("Authorization", "Bearer \(token)")]),
                ("/events", [("Authorization", "Basic " + Data("\(token):".utf8).base64EncodedString())]),
                ("/events", [("Authorization", "Basic " + Data("\(name):\(token)".utf8).base64EncodedString())]),
            ]
            for (path, headers) in ways {
                let answer = try await server.request(.GET, path, headers: headers)
                #expect(answer.status == 200, "\(headers)")
            }
            // A token in the URL ends up in logs and histories: refused outside /live, saying why.
            let inURL = try await server.request(.GET, "/events?auth=\(token)")
            #expect(inURL.status == 401)
            #expect(inURL.json["error"]?["message"]?.stringValue?.contains("only on /live") == true)
            let live = try await server.request(.GET, "/live?auth=\(token)")
            #expect(live.status == 426)   // the token was taken; only the WebSocket upgrade is missing
            let none = try await server.request(.GET, "/events")
            #expect(none.status == 401)
            #expect(none.errorId == "invalid-access-token")
            let wrong = try await server.request(.GET, "/events", token: "not-a-token")
            #expect(wrong.status == 401)
            #expect(wrong.json["error"]?["message"]?.stringValue?.contains("not known") == true)
        }
    }

    @Test("Another user's token sees and changes nothing of this user's", arguments: StoreKind.tested)
    func userIsolation(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, alice) = try await server.addUser("ann")
            let (_, bob) = try await server.addUser("ben")
            let boundary = "b0undary"
            var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"event\"\r\n\r\n".utf8)
            body += Array(#"{"id":"secret","streamIds":["position"],"type":"picture/attached","time":50}"#.utf8)
            body += Array("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.bin\"\r\n\r\nSECRET\r\n--\(boundary)--\r\n".utf8)
            let created = try await server.request(.POST, "/events", token: alice, body: body,
                                                   headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")])
            #expect(created.status == 201)
            let attachmentId = try #require(created.json["event"]?["attachments"]?.arrayValue?.first?["id"]?.stringValue)
            _ = try await server.request(.POST, "/streams", token: alice, json: object(("id", .string("private")), ("name", .string("Private"))))

            #expect(try await server.request(.GET, "/events?fromTime=0&toTime=100", token: bob).json["events"]?.arrayValue?.isEmpty == true)
            #expect(try await server.request(.GET, "/events/secret", token: bob).status == 404)
            #expect(try await server.request(.GET, "/events/secret/\(attachmentId)", token: bob).status == 404)
            #expect(try await server.request(.PUT, "/events/secret", token: bob, json: object(("time", .number(1)))).status == 404)
            #expect(try await server.request(.DELETE, "/events/secret", token: bob).status == 404)
            #expect(try await server.request(.PUT, "/streams/private", token: bob, json: object(("name", .string("Mine")))).status == 404)
            let bobStreams = try await server.request(.GET, "/streams", token: bob)
            #expect(bobStreams.json["streams"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["position"])
            // Bob's own event with the same id is his, and does not touch Alice's.
            let bobsOwn = try await server.request(.POST, "/events", token: bob,
                                                   json: positionEvent(id: "secret", time: 60, latitude: 1, longitude: 1))
            #expect(bobsOwn.status == 201)
            // A batch from Bob that names an event only Alice has changes nothing of hers.
            let alicesOnly = try await server.request(.POST, "/events", token: alice,
                                                      json: positionEvent(id: "alices-only", time: 70, latitude: 2, longitude: 2))
            #expect(alicesOnly.status == 201)
            let batch = try await server.request(.POST, "/", token: bob, json: .array([
                object(("method", .string("events.delete")), ("params", object(("id", .string("alices-only"))))),
                object(("method", .string("events.update")),
                       ("params", object(("id", .string("alices-only")), ("update", object(("time", .number(1))))))),
            ]))
            let errors = batch.json["results"]?.arrayValue?.compactMap { $0["error"]?["id"]?.stringValue }
            #expect(errors == ["unknown-resource", "unknown-resource"])
            let untouched = try await server.request(.GET, "/events/alices-only", token: alice)
            #expect(untouched.json["event"]?["trashed"] == nil && untouched.json["event"]?["time"]?.numberValue == 70)
            let alicesEvent = try await server.request(.GET, "/events/secret", token: alice)
            #expect(alicesEvent.json["event"]?["type"]?.stringValue == "picture/attached")
            #expect(alicesEvent.json["event"]?["trashed"] == nil)
        }
    }

    @Test("A token limited to a stream and level can do only that", arguments: StoreKind.tested)
    func streamPermissions(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (name, personal) = try await server.addUser("cleo")
            _ = try await server.request(.POST, "/streams", token: personal, json: object(("id", .string("work")), ("name", .string("Work"))))
            _ = try await server.request(.POST, "/streams", token: personal,
                                         json: object(("id", .string("desk")), ("name", .string("Desk")), ("parentId", .string("work"))))
            _ = try await server.request(.POST, "/events", token: personal,
                                         json: positionEvent(id: "home", time: 10, latitude: 1, longitude: 1))
            _ = try await server.request(.POST, "/events", token: personal,
                                         json: positionEvent(id: "office", stream: "desk", time: 20, latitude: 2, longitude: 2))

            let reader = try await server.token(for: name, [Permission(streamId: "work", level: .read)])
            let readable = try await server.request(.GET, "/events?fromTime=0&toTime=100", token: reader)
            #expect(readable.json["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["office"])
            #expect(try await server.request(.GET, "/events/home", token: reader).status == 404)
            #expect(try await server.request(.GET, "/events?streams[]=position", token: reader).status == 403)
            let write = try await server.request(.POST, "/events", token: reader,
                                                 json: positionEvent(stream: "desk", time: 30, latitude: 1, longitude: 1))
            #expect(write.status == 403)
            #expect(write.errorId == "forbidden")
            #expect(try await server.request(.PUT, "/events/office", token: reader, json: object(("time", .number(21)))).status == 403)
            #expect(try await server.request(.DELETE, "/events/office", token: reader).status == 403)
            let streams = try await server.request(.GET, "/streams", token: reader)
            #expect(streams.json["streams"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["work"])
            #expect(try await server.request(.POST, "/streams", token: reader,
                                             json: object(("name", .string("Sub")), ("parentId", .string("work")))).status == 403)

            let contributor = try await server.token(for: name, [Permission(streamId: "work", level: .contribute)])
            #expect(try await server.request(.POST, "/events", token: contributor,
                                             json: positionEvent(stream: "desk", time: 30, latitude: 1, longitude: 1)).status == 201)
            #expect(try await server.request(.POST, "/events", token: contributor,
                                             json: positionEvent(stream: "position", time: 30, latitude: 1, longitude: 1)).status == 403)
            // Moving an event out of the token's streams is refused too.
            #expect(try await server.request(.PUT, "/events/office", token: contributor,
                                             json: object(("streamIds", .array([.string("position")])))).status == 403)
            #expect(try await server.request(.POST, "/streams", token: contributor,
                                             json: object(("name", .string("Sub")), ("parentId", .string("work")))).status == 403)
            #expect(try await server.request(.POST, "/streams", token: contributor,
                                             json: object(("name", .string("Root")))).status == 403)

            let manager = try await server.token(for: name, [Permission(streamId: "work", level: .manage)])
            #expect(try await server.request(.POST, "/streams", token: manager,
                                             json: object(("name", .string("Sub")), ("parentId", .string("work")))).status == 201)
            #expect(try await server.request(.PUT, "/streams/position", token: manager,
                                             json: object(("name", .string("P")))).status == 404)
            // The OwnTracks route writes to `position`, which this token cannot.
            let pub = try await server.request(.POST, "/pub", token: manager,
                                               text: #"{"_type":"location","lat":1,"lon":2,"tst":100}"#)
            #expect(pub.status == 403)
        }
    }

    @Test("Each token has its own rate limit", arguments: [StoreKind.sqlite])
    func rateLimit(kind: StoreKind) async throws {
        var configuration = ServerConfiguration()
        configuration.rateLimit = .init(requestsPerSecond: 0.01, burst: 3)
        try await TestServer.run(kind, configuration: configuration) { server in
            let (name, first) = try await server.addUser("dot")
            let second = try await server.token(for: name, [Permission(streamId: "*", level: .read)])
            for _ in 0..<3 {
                #expect(try await server.request(.GET, "/streams", token: first).status == 200)
            }
            let limited = try await server.request(.GET, "/streams", token: first)
            #expect(limited.status == 429)
            #expect(limited.errorId == "too-many-requests")
            #expect(limited.headers["Retry-After"].first.flatMap(Int.init).map { $0 >= 1 } == true)
            #expect(try await server.request(.GET, "/streams", token: second).status == 200)
        }
    }

    @Test("A batch pays for its calls and an answer for its events, once done; the requests after them wait",
          arguments: [StoreKind.sqlite])
    func rateLimitChargesTheWork(kind: StoreKind) async throws {
        var configuration = ServerConfiguration()
        // Refills by one every 1,000 s (the slowest rate a bucket has): next to nothing refills
        // while the test runs, however slowly.
        configuration.rateLimit = .init(requestsPerSecond: 0.001, burst: 12)
        try await TestServer.run(kind, configuration: configuration) { server in
            let (name, writer) = try await server.addUser("costly")
            // A batch of 100 creates costs 1 + 100 × 0.1 = 11 of the 12.
            let calls = (0..<100).map { index in
                object(("method", .string("events.create")), ("params", positionEvent(time: Double(1_000 + index), latitude: 46, longitude: 7)))
            }
            let batch = try await server.request(.POST, "/", token: writer, json: .array(calls))
            #expect(batch.status == 200, "\(batch.text)")
            #expect(try await server.request(.GET, "/streams", token: writer).status == 200)  // the 12th
            let limited = try await server.request(.GET, "/streams", token: writer)
            #expect(limited.status == 429, "a batch of 100 cost as much as one request")
            #expect(limited.headers["Retry-After"].first.flatMap(Int.init).map { $0 >= 500 } == true, "\(limited.headers)")

            // Reading the 100 events: 1 + 10 for the answer, so the next request waits.
            let reader = try await server.token(for: name, [Permission(streamId: "*", level: .read)])
            let answer = try await server.request(.GET, "/events?limit=100", token: reader)
            #expect(answer.json["events"]?.arrayValue?.count == 100)
            #expect(try await server.request(.GET, "/streams", token: reader).status == 200)  // 12th
            #expect(try await server.request(.GET, "/streams", token: reader).status == 429,
                    "an answer of 100 events cost as much as one request")
        }
    }

    @Test("Token buckets: a request costs one, work is charged after it, debt is waited out")
    func tokenBucketArithmetic() {
        var buckets = TokenBuckets(requestsPerSecond: 2, burst: 3)
        #expect(buckets.admit("a") == nil)  // 2 left
        #expect(buckets.admit("a") == nil)  // 1 left
        buckets.charge("a", cost: 9)  // the work it turned out to do: −8
        // (1 − (−8)) / 2 = 4.5 s until one whole request: 5 whole seconds.
        #expect(buckets.admit("a") == 5)
        buckets.charge("b", cost: 4)  // a new key starts full (3): −1
        #expect(buckets.admit("b") == 1)  // (1 − (−1)) / 2 = 1 s
        #expect(buckets.isExhausted("b"))
        #expect(!buckets.isExhausted("c"))
        buckets.charge("c", cost: .infinity)  // ignored, as any cost that is not a finite positive number
        buckets.charge("c", cost: -5)
        #expect(buckets.admit("c") == nil)
    }
}
