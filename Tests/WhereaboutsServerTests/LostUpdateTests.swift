import Foundation
import Logging
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// No update is lost: conditional writes in the store, `If-Unmodified-Since` on PUT and DELETE,
/// concurrent partial updates that both survive, a retried DELETE that does not destroy, and a
/// batch whose store write failed that is not answered 200.
@Suite("Lost updates")
struct LostUpdateTests {
    typealias Contract = EventStoreContractTests

    @Test("A conditional write happens only on the event as it was read", arguments: StoreKind.tested)
    func conditionalWrites(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            let event = Contract.point("a", at: 0, modified: 10)
            _ = try await store.addEvents([EventWrite(event: event)], for: alice)
            var changed = event
            changed.description = "first"
            changed.modified = Contract.t0 + 20
            await #expect(throws: StoreError.changed("event", id: "a")) {
                try await store.replaceEvent(changed, for: alice, ifModifiedAt: Contract.t0 + 9)
            }
            try await store.replaceEvent(changed, for: alice, ifModifiedAt: Contract.t0 + 10)
            #expect(try await store.event(id: "a", for: alice)?.description == "first")
            // The write the first one made moved the event on: the old time no longer matches.
            await #expect(throws: StoreError.changed("event", id: "a")) {
                try await store.replaceEvent(event, for: alice, ifModifiedAt: Contract.t0 + 10)
            }
            await #expect(throws: StoreError.changed("event", id: "a")) {
                _ = try await store.removeEvent(id: "a", for: alice, ifModifiedAt: Contract.t0 + 10)
            }
            #expect(try await store.removeEvent(id: "missing", for: alice, ifModifiedAt: 1) == false)
            await #expect(throws: StoreError.notFound("event", id: "missing")) {
                try await store.replaceEvent(Contract.point("missing", at: 0), for: alice, ifModifiedAt: 1)
            }
            #expect(try await store.removeEvent(id: "a", for: alice, ifModifiedAt: Contract.t0 + 20))
            #expect(try await store.event(id: "a", for: alice) == nil)
        }
    }

    @Test("HTTP dates read as RFC 9110 writes them")
    func httpDates() {
        #expect(HTTPDate.seconds("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.seconds("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.seconds("Tue, 29 Feb 2028 23:59:59 GMT") == 1_835_481_599)
        for seconds in [0.0, 784_111_777, 1_835_481_599, 1_795_700_000] {
            #expect(HTTPDate.seconds(HTTPDate.format(seconds)) == seconds)
        }
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for bad in ["", "yesterday", "Sun, 06 Nov 1994 08:49:37 CET", "Sun, 6 Nov 1994 08:49:37 GMT",
                    "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT"] {
            #expect(HTTPDate.seconds(bad) == nil, "\(bad)")
        }
    }

    @Test("PUT and DELETE with If-Unmodified-Since leave a changed event alone (412)", arguments: StoreKind.tested)
    func ifUnmodifiedSince(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("vic")
            let created = try await server.request(.POST, "/events", token: token, json: positionEvent(id: "v1", time: 100, latitude: 1, longitude: 1))
            let modified = try #require(created.json["event"]?["modified"]?.numberValue)

            func put(_ description: String, since: String) async throws -> TestServer.Answer {
                try await server.request(.PUT, "/events/v1", token: token, json: object(("description", .string(description))),
                                         headers: [("If-Unmodified-Since", since)])
            }
            let stale = try await put("late", since: String(modified - 0.5))
            #expect(stale.status == 412)
            #expect(stale.errorId == "precondition-failed")
            #expect(try await server.request(.GET, "/events/v1", token: token).json["event"]?["description"] == nil)
            let fresh = try await put("in time", since: String(modified))
            #expect(fresh.status == 200)
            // An HTTP date is to the second: the change just made is after the second before it.
            let before = HTTPDate.format(modified.rounded(.down) - 1)
            #expect(try await put("again", since: before).status == 412)
            let deleted = try await server.request(.DELETE, "/events/v1", token: token, headers: [("If-Unmodified-Since", before)])
            #expect(deleted.status == 412)
            #expect(try await server.request(.GET, "/events/v1", token: token).json["event"]?["trashed"] == nil)
            // A value that is no date is ignored, as RFC 9110 says.
            #expect(try await put("ignored", since: "not a date").status == 200)
        }
    }

    @Test("Concurrent updates of different fields both survive", arguments: StoreKind.tested)
    func concurrentPartialUpdates(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("wes")
            let ids = (0..<12).map { "w\($0)" }
            for id in ids {
                _ = try await server.request(.POST, "/events", token: token, json: positionEvent(id: id, time: 100, latitude: 1, longitude: 1))
            }
            try await withThrowingTaskGroup(of: Int.self) { group in
                for id in ids {
                    group.addTask {
                        try await server.request(.PUT, "/events/\(id)", token: token, json: object(("description", .string("walked")))).status
                    }
                    group.addTask {
                        try await server.request(.PUT, "/events/\(id)", token: token, json: object(("tags", .array([.string("kept")])))).status
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            for id in ids {
                let event = try await server.request(.GET, "/events/\(id)", token: token).json["event"]
                #expect(event?["description"]?.stringValue == "walked", "\(id)")
                #expect(event?["tags"] == .array([.string("kept")]), "\(id)")
            }
        }
    }

    @Test("A second delete right after the trashing deletes, over REST and in a batch; permanent deletes at once", arguments: StoreKind.tested)
    func secondDeleteDeletes(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("xan")
            _ = try await server.request(.POST, "/events", token: token, json: positionEvent(id: "x1", time: 100, latitude: 1, longitude: 1))
            let first = try await server.request(.DELETE, "/events/x1", token: token)
            #expect(first.json["event"]?["trashed"] == .bool(true))
            let second = try await server.request(.DELETE, "/events/x1", token: token)
            #expect(second.status == 200)
            #expect(second.json["eventDeletion"] == .object([("id", .string("x1"))]))
            #expect(try await server.request(.GET, "/events/x1", token: token).status == 404)

            // Pryv's library sets up its tests so: create, delete, delete in one batch.
            let batch = try await server.request(.POST, "/", token: token, json: .array([
                .object([("method", .string("events.create")), ("params", positionEvent(id: "x2", time: 100, latitude: 1, longitude: 1))]),
                .object([("method", .string("events.delete")), ("params", .object([("id", .string("x2"))]))]),
                .object([("method", .string("events.delete")), ("params", .object([("id", .string("x2"))]))]),
            ]))
            let results = try #require(batch.json["results"]?.arrayValue)
            #expect(results.count == 3)
            #expect(results[1]["event"]?["trashed"] == .bool(true))
            #expect(results[2]["eventDeletion"] == .object([("id", .string("x2"))]))

            _ = try await server.request(.POST, "/events", token: token, json: positionEvent(id: "x3", time: 100, latitude: 1, longitude: 1))
            let permanent = try await server.request(.DELETE, "/events/x3?permanent=true", token: token)
            #expect(permanent.json["eventDeletion"]?["id"]?.stringValue == "x3")
            #expect(try await server.request(.GET, "/events/x3", token: token).status == 404)
        }
    }

    @Test("A batch whose store write failed is a 5xx, its results saying which calls took effect")
    func failedBatchIsNotOK() async throws {
        let harness = StoreHarness(.sqlite)
        try await harness.run { base in
            let store = FaultyStore(base)
            let service = APIService(store: store, streams: StreamDirectory(store: store), metrics: ServerMetrics())
            let (_, token) = try await UserAdministration(store: store).addUser(named: harness.name("yan"))
            let access = try #require(try await TokenAuthenticator(store: store).access(forToken: token))
            let create = object(("method", .string("events.create")),
                                ("params", positionEvent(id: "y1", time: 100, latitude: 1, longitude: 1)))
            let streams = object(("method", .string("streams.get")), ("params", object()))
            let healthy = try await service.batch(.array([streams, create]), access: access)
            #expect(healthy.serverFailureStatus == nil)

            store.fail([.addEvents])
            let create2 = object(("method", .string("events.create")),
                                 ("params", positionEvent(id: "y2", time: 100, latitude: 1, longitude: 1)))
            // The cause goes to the log (here the test's), not to the client.
            let log = LogCapture()
            let failed = try await APIError.$logger.withValue(Logger(label: "test") { _ in CapturingLogHandler(capture: log) }) {
                try await service.batch(.array([streams, create2]), access: access)
            }
            #expect(log.contains("injected store failure"))
            #expect(failed.serverFailureStatus == .serviceUnavailable)
            guard case .result = failed.answers[0], case .failure(let error) = failed.answers[1] else {
                Issue.record("\(failed.answers)")
                return
            }
            #expect(error.status == .serviceUnavailable)
            #expect(!error.message.contains("injected"), "internals reached the client: \(error.message)")
        }
    }
}
