import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Deleting leaves a tombstone that a client syncing with `modifiedSince` reads as Pryv's
/// `eventDeletions`, right after the events (where Pryv's JavaScript library parses them).
@Suite("Event deletions")
struct EventDeletionsTests {
    @Test("includeDeletions lists the deletions after modifiedSince, right after the events, in REST and batch",
          arguments: StoreKind.tested)
    func deletionsAreListedForIncrementalSync(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("ida")
            for id in ["d1", "d2", "kept"] {
                _ = try await server.request(.POST, "/events", token: token, json: positionEvent(id: id, time: 100, latitude: 1, longitude: 1))
            }
            _ = try await server.request(.DELETE, "/events/d1?permanent=true", token: token)
            let between = Date().timeIntervalSince1970
            try await Task.sleep(for: .milliseconds(20))
            _ = try await server.request(.DELETE, "/events/d2", token: token)
            _ = try await server.request(.DELETE, "/events/d2", token: token)

            let all = try await server.request(.GET, "/events?fromTime=0&toTime=200&includeDeletions=true&state=all", token: token)
            #expect(all.status == 200)
            // The wire order matters to Pryv's streaming parser: events, then eventDeletions.
            #expect(all.text.hasPrefix(#"{"events":[{"#) && all.text.contains(#"],"eventDeletions":[{"id":"d1","deleted":"#))
            #expect(all.json["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["kept"])
            #expect(all.json["eventDeletions"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["d1", "d2"])
            let deleted = try #require(all.json["eventDeletions"]?.arrayValue?.last?["deleted"]?.numberValue)
            #expect(deleted > between && deleted <= Date().timeIntervalSince1970)

            let since = try await server.request(
                .GET, "/events?fromTime=0&toTime=200&includeDeletions=true&modifiedSince=\(between)", token: token)
            #expect(since.json["eventDeletions"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["d2"])
            #expect(try await server.request(.GET, "/events?fromTime=0&toTime=200", token: token).json["eventDeletions"] == nil)

            let params = object(("fromTime", .number(0)), ("toTime", .number(200)), ("includeDeletions", .bool(true)),
                                ("modifiedSince", .number(between)))
            let call = object(("method", .string("events.get")), ("params", params))
            let batch = try await server.request(.POST, "/", token: token, json: .array([call]))
            let result = try #require(batch.json["results"]?.arrayValue?.first)
            #expect(result["eventDeletions"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["d2"])

            // An identifier used again is an event again, no longer a deletion.
            _ = try await server.request(.POST, "/events", token: token, json: positionEvent(id: "d1", time: 100, latitude: 1, longitude: 1))
            let again = try await server.request(.GET, "/events?fromTime=0&toTime=200&includeDeletions=true", token: token)
            #expect(again.json["eventDeletions"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["d2"])

            // Another user sees none of them.
            let (_, other) = try await server.addUser("jon")
            let theirs = try await server.request(.GET, "/events?fromTime=0&toTime=200&includeDeletions=true", token: other)
            #expect(theirs.json["eventDeletions"] == .array([]))
        }
    }

    @Test("Tombstones are forgotten after their retention, on the next deletion", arguments: StoreKind.tested)
    func tombstonesAreForgottenAfterTheirRetention(kind: StoreKind) async throws {
        var configuration = ServerConfiguration()
        // Kept 5 s: long enough that "new" outlives a busy machine's second deletion (its
        // tombstone is stamped before that deletion forgets the old ones), short enough to wait.
        configuration.answerLimits.deletionsKeptFor = 5
        try await TestServer.run(kind, configuration: configuration) { server in
            let (_, token) = try await server.addUser("kit")
            for id in ["old", "new"] {
                _ = try await server.request(.POST, "/events", token: token, json: positionEvent(id: id, time: 100, latitude: 1, longitude: 1))
            }
            _ = try await server.request(.DELETE, "/events/old?permanent=true", token: token)
            try await Task.sleep(for: .seconds(6))
            _ = try await server.request(.DELETE, "/events/new?permanent=true", token: token)
            let answer = try await server.request(.GET, "/events?fromTime=0&toTime=200&includeDeletions=true", token: token)
            #expect(answer.json["eventDeletions"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["new"])
        }
    }
}
