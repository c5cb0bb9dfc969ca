import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Several server processes on one PostgreSQL database: each one's `/live` must show the events
/// the others store. Two store instances stand for two processes.
// The limit guards against a listener that never hears anything; the tests take well under a
// second alone, but half a minute in the whole test run on two cores, where every await queues
// behind hundreds of other tests.
@Suite("Live events across processes (PostgreSQL)", .timeLimit(.minutes(5)))
struct LiveRelayTests {
    /// The PostgreSQL half only; no cases when the tests run without PostgreSQL.

    static func position(_ id: String, time: Double = 1_763_700_000) -> EventWrite {
        EventWrite(event: Event(
            id: id, streamIds: ["position"], time: time, type: "position/wgs84",
            content: .object([("latitude", .number(46.5)), ("longitude", .number(6.6))]),
            created: time, createdBy: "test", modified: time, modifiedBy: "test"))
    }

    /// Writes `other-0`, `other-1`, … through `store` every 100 ms until cancelled: the
    /// listener's `LISTEN` takes a moment to be in place, and only then can it hear anything.
    static func keepWriting(_ store: any EventStore, for user: String) -> Task<Void, Never> {
        Task {
            var count = 0
            while !Task.isCancelled {
                _ = try? await store.addEvents([position("other-\(count)")], for: user)
                count += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    @Test("a store hears the events and changes other instances commit, never its own", .needsPostgreSQL)
    func storeHearsOtherInstances() async throws {
        let harness = StoreHarness(.postgres)
        let listener = try await harness.open()
        let writer = try await harness.open()
        let user = try await harness.addUser("relay", to: writer)
        let (heard, heardContinuation) = AsyncStream.makeStream(of: [Event].self)
        let shared = try #require(listener as? any SharedEventStore)
        let stranger = try await harness.addUser("stranger", to: writer)
        let watch = Task {
            defer { heardContinuation.finish() }  // a listener that fails ends the test, not hangs it
            try await shared.watchChangesFromOtherProcesses(ofUsersWhere: { $0 == user }) { userName, events in
                #expect(userName == user)
                heardContinuation.yield(events)
            }
        }
        var iterator = heard.makeAsyncIterator()

        let writing = Self.keepWriting(writer, for: user)
        let first = try #require(await iterator.next())
        writing.cancel()
        await writing.value
        #expect(first.allSatisfy { $0.id.hasPrefix("other-") })
        #expect(first.first?.content?["latitude"] == .number(46.5))

        // Listening now: the listener's own write must not come back, nor another user's
        // event (unwatched); a change by the other instance must. Notifications arrive in
        // commit order, so everything before the change has arrived when the change does.
        _ = try await listener.addEvents([Self.position("own")], for: user)
        _ = try await writer.addEvents([Self.position("unwatched")], for: stranger)
        var changed = try #require(try await writer.event(id: "other-0", for: user))
        changed.duration = 60
        try await writer.replaceEvent(changed, for: user)
        var seen: [Event] = []
        while !seen.contains(where: { $0.id == "other-0" && $0.duration == 60 }) {
            seen += try #require(await iterator.next())
        }
        #expect(!seen.contains { $0.id == "own" || $0.id == "unwatched" })

        watch.cancel()
        _ = try? await watch.value
        try await listener.close()
        try await writer.close()
    }

    @Test("a server's live feed shows events another process stored, and its own once", .needsPostgreSQL)
    func serverRelaysOtherProcesses() async throws {
        let feed = LiveFeed()
        try await TestServer.run(.postgres, liveFeed: feed) { server in
            let (user, token) = try await server.addUser("relayed")
            let otherProcess = try await server.harness.open()
            let live = await feed.subscribe(to: user)
            var iterator = live.makeAsyncIterator()

            let writing = Self.keepWriting(otherProcess, for: user)
            let first = try #require(await iterator.next())
            writing.cancel()
            await writing.value
            #expect(first.id.hasPrefix("other-"))

            // An event posted to this server reaches its feed once (directly, not relayed back).
            let posted = try await server.request(.POST, "/events", token: token, json: .object([
                ("id", .string("posted")), ("streamIds", .array([.string("position")])), ("type", .string("note/txt")),
                ("content", .string("hello")),
            ]))
            #expect(posted.status == 201)
            _ = try await otherProcess.addEvents([Self.position("marker")], for: user)
            var seen: [String] = []
            while seen.last != "marker" {
                seen.append(try #require(await iterator.next()).id)
            }
            #expect(seen.filter { $0 == "posted" }.count == 1)
            try await otherProcess.close()
        }
    }
}
