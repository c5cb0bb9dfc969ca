import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// One test per failure found while checking the server against `/openapi.json`
/// (`Scripts/schemathesis.sh`) or while writing the document, each fixed in the server.
@Suite("Schemathesis findings")
struct SchemathesisFindingsTests {
    /// A store failure while resolving the token escaped the authentication middleware and was
    /// answered 500; now routes that need the token answer 503 (the store is unavailable, the
    /// request was fine) and public routes still answer.
    @Test("A store that stops answering gives 503 on token routes, not 500")
    func storeFailureWhileAuthenticating() async throws {
        try await TestServer.run(.sqlite) { server in
            let (_, token) = try await server.addUser("outage")
            try await server.store.close()
            let events = try await server.request(.GET, "/events", token: token)
            #expect(events.status == 503)
            #expect(events.errorId == "unexpected-error")
            // The answer names an error id for the log, and nothing of the store's internals.
            let message = events.json["error"]?["message"]?.stringValue ?? ""
            #expect(message.range(of: #"\(error [0-9a-f]{8};"#, options: .regularExpression) != nil, "\(message)")
            #expect(!message.lowercased().contains("sqlite") && !message.contains("GRDB") && !message.contains("database"),
                    "\(message)")
            // /health says down, and no more.
            let health = try await server.request(.GET, "/health", token: nil)
            #expect(health.status == 503)
            #expect(health.json["status"]?.stringValue == "unavailable" && health.json["reason"] == nil)
            let document = try await server.request(.GET, "/openapi.json", token: token)
            #expect(document.status == 200)
            // Plain GET /live resolves the token itself: the same 503, not 500.
            let live = try await server.request(.GET, "/live", token: token)
            #expect(live.status == 503)
            #expect(live.errorId == "unexpected-error")
        }
    }

    /// Stream names were limited to 200 grapheme clusters while the document (JSON Schema's
    /// `maxLength`) counts code points; the server now counts code points too.
    @Test("A stream name's length is counted in code points, as the document says")
    func streamNameLengthInCodePoints() async throws {
        try await TestServer.run(.sqlite) { server in
            let (_, token) = try await server.addUser("names")
            // "e" + COMBINING ACUTE ACCENT is one character but two code points: 150 of them
            // are 150 characters and 300 code points, over the limit of 200.
            let combined = String(repeating: "e\u{301}", count: 150)
            #expect(combined.count == 150 && combined.unicodeScalars.count == 300)
            let long = try await server.request(.POST, "/streams", token: token, json: object(("name", .string(combined))))
            #expect(long.status == 400)
            #expect(long.errorId == "invalid-parameters-format")
            let renamed = try await server.request(.PUT, "/streams/position", token: token, json: object(("name", .string(combined))))
            #expect(renamed.status == 400)
            let fits = String(repeating: "e\u{301}", count: 100)   // 200 code points
            #expect(try await server.request(.POST, "/streams", token: token, json: object(("name", .string(fits)))).status == 201)
        }
    }

    /// `--checks all` found that a method no route has (TRACE, PATCH…) on an existing path was
    /// answered 404, as if the path were wrong; it is now 405 with the methods in `Allow`.
    @Test("An existing path with a method it does not take gives 405 and Allow; an unknown path 404")
    func methodNotAllowed() async throws {
        try await TestServer.run(.sqlite) { server in
            let (_, token) = try await server.addUser("methods")
            let patch = try await server.request(.PATCH, "/events/abc", token: token)
            #expect(patch.status == 405)
            #expect(patch.headers["Allow"].first == "DELETE, GET, HEAD, PUT")
            #expect(patch.errorId == "invalid-operation")
            let trace = try await server.request(.RAW(value: "TRACE"), "/", token: token)
            #expect(trace.status == 405)
            #expect(trace.headers["Allow"].first == "POST")
            let unknown = try await server.request(.GET, "/nowhere", token: token)
            #expect(unknown.status == 404)
            #expect(unknown.errorId == "unknown-resource")
            // HEAD is GET without the body: same status and headers.
            let head = try await server.request(.HEAD, "/events", token: token)
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.headers["Content-Type"].first == "application/json; charset=utf-8")
            #expect(try await server.request(.HEAD, "/events/missing", token: token).status == 404)
            #expect(try await server.request(.HEAD, "/", token: token).status == 405)
            // A route that exists answers its own 404 for a missing item.
            #expect(try await server.request(.GET, "/events/missing", token: token).status == 404)
        }
    }
}
