import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Retention: events that ended longer ago than their user's retention (else the server's
/// default) are purged, oldest first, in bounded batches, each leaving a tombstone; running and
/// recent events stay; the server purges at start and every interval, and counts it in /metrics.
@Suite("Retention")
struct RetentionTests {
    typealias Contract = EventStoreContractTests

    @Test(arguments: StoreKind.tested)
    func purgingTakesTheOldestEndedEventsInBatchesAndLeavesTombstones(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            #expect(try await store.retention(of: alice) == nil)
            try await store.setRetention(86_400, for: alice)
            #expect(try await store.retention(of: alice) == 86_400)
            await #expect(throws: StoreError.notFound("user", id: harness.name("nobody"))) {
                try await store.setRetention(1, for: harness.name("nobody"))
            }
            let upload = Contract.upload(id: "photo", bytes: Array(repeating: 7, count: 100))
            var picture = Contract.point("old-picture", at: 10, type: "picture/attached")
            picture.attachments = [upload.attachment]
            let writes = [EventWrite(event: Contract.point("old-1", at: 0)), EventWrite(event: picture, uploads: [upload]),
                          EventWrite(event: Contract.point("old-2", at: 20)),
                          // Began before the cutoff but ends after it: kept.
                          EventWrite(event: Contract.period("long", at: 30, duration: 1_000)),
                          // Running: never ends, never purged.
                          EventWrite(event: Contract.period("running", at: 5, duration: nil)),
                          EventWrite(event: Contract.point("recent", at: 500))]
            _ = try await store.addEvents(writes, for: alice)
            let cutoff = Contract.t0 + 100
            // Two at a time, oldest first.
            #expect(try await store.purgeEvents(of: alice, endedBefore: cutoff, limit: 2) == 2)
            var left = try await store.events(matching: EventQuery(sortAscending: true, state: .all), for: alice).map(\.id)
            #expect(left == ["running", "old-2", "long", "recent"])
            #expect(try await store.attachmentData(eventId: "old-picture", attachmentId: "photo", for: alice) == nil)
            #expect(try await store.purgeEvents(of: alice, endedBefore: cutoff, limit: 2) == 1)
            #expect(try await store.purgeEvents(of: alice, endedBefore: cutoff, limit: 2) == 0)
            left = try await store.events(matching: EventQuery(sortAscending: true, state: .all), for: alice).map(\.id)
            #expect(left == ["running", "long", "recent"])
            let tombstones = try await store.eventDeletions(of: alice, since: 0, after: nil, limit: 10).map(\.id)
            #expect(Set(tombstones) == ["old-1", "old-picture", "old-2"])
        }
    }

    @Test(arguments: StoreKind.tested)
    func eachUserKeepsTheirOwnRetentionElseTheDefault(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            let bob = try await harness.addUser("bob", to: store)
            let carol = try await harness.addUser("carol", to: store)
            for user in [alice, bob, carol] {
                _ = try await store.addEvents((0..<5).map { EventWrite(event: Contract.point("e\($0)", at: Double($0) * 100)) }, for: user)
            }
            try await store.setRetention(250, for: alice)          // keeps e3, e4 (at 300, 400)
            try await store.setRetention(.infinity, for: carol)    // for ever, whatever the default
            let now = Contract.t0 + 550
            // Only this test's users: the PostgreSQL half shares its database with other tests.
            let users = [alice, bob, carol, harness.name("deleted-meanwhile")]
            let none = try await RetentionPurge(store: store, batchSize: 2).run(now: now, users: users)
            #expect(none.events == 3 && none.users == 1)            // alice only: bob has no retention
            let withDefault = try await RetentionPurge(store: store, defaultKeep: 400, batchSize: 2).run(now: now, users: users)
            #expect(withDefault.events == 2 && withDefault.users == 2)  // bob's e0 and e1 (before 150)
            #expect(try await store.events(matching: EventQuery(), for: alice).count == 2)
            #expect(try await store.events(matching: EventQuery(), for: bob).count == 3)
            #expect(try await store.events(matching: EventQuery(), for: carol).count == 5)
        }
    }

    /// A stream's limit applies to it and to the streams under it without their own; other
    /// streams follow the user's; an event in several streams goes by the shortest limit.
    @Test(arguments: StoreKind.tested)
    func aStreamsRetentionCoversItsSubtreeAndTheShortestLimitWins(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            for (id, parent) in [("indoor", "position"), ("activity", nil), ("diary", nil)] as [(String, String?)] {
                try await store.addStream(EventStream(id: id, name: id, parentId: parent), for: alice)
            }
            #expect(try await store.streamRetentions(of: alice).isEmpty)
            try await store.setRetention(300, for: alice)
            try await store.setRetention(100, for: alice, stream: "position")
            try await store.setRetention(.infinity, for: alice, stream: "diary")
            try await store.setRetention(5, for: alice, stream: "activity")
            try await store.setRetention(nil, for: alice, stream: "activity")
            #expect(try await store.streamRetentions(of: alice) == ["position": 100, "diary": .infinity])
            await #expect(throws: StoreError.notFound("stream", id: "nowhere")) {
                try await store.setRetention(1, for: alice, stream: "nowhere")
            }
            await #expect(throws: StoreError.notFound("user", id: harness.name("nobody"))) {
                try await store.streamRetentions(of: harness.name("nobody"))
            }
            // now = t0 + 550: position and indoor keep what ended after t0 + 450, activity
            // (the user's limit) after t0 + 250, diary everything.
            let events: [(String, Double, [String])] = [
                ("pos-a", 0, ["position"]), ("pos-b", 400, ["position"]), ("pos-c", 500, ["position"]),
                ("indoor-a", 420, ["indoor"]), ("act-a", 100, ["activity"]), ("act-b", 300, ["activity"]),
                ("diary-a", 0, ["diary"]), ("diary-and-pos", 10, ["diary", "position"]),
                ("act-and-pos", 260, ["activity", "position"]),
            ]
            _ = try await store.addEvents(events.map { EventWrite(event: Contract.point($0.0, at: $0.1, streams: $0.2)) }, for: alice)
            let report = try await RetentionPurge(store: store, batchSize: 2).run(now: Contract.t0 + 550, users: [alice])
            #expect(report == RetentionPurge.Report(users: 1, events: 6))
            let left = try await store.events(matching: EventQuery(sortAscending: true, state: .all), for: alice).map(\.id)
            #expect(left == ["diary-a", "act-b", "pos-c"])
            let tombstones = try await store.eventDeletions(of: alice, since: 0, after: nil, limit: 10).map(\.id)
            #expect(Set(tombstones) == ["pos-a", "pos-b", "indoor-a", "act-a", "diary-and-pos", "act-and-pos"])
        }
    }

    /// A batch over some streams starts where the last one ended: the events of other streams it
    /// passed over are not read again, and the ones before its start stay.
    @Test(arguments: StoreKind.tested)
    func aStreamBatchBeginsAtItsStart(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            _ = try await store.addEvents((0..<6).map { EventWrite(event: Contract.point("e\($0)", at: Double($0) * 10)) }, for: alice)
            let first = try await store.purgeEvents(of: alice, inStreams: ["position"], endedBefore: Contract.t0 + 1_000,
                                                    startingAt: Contract.t0 + 20, limit: 2)
            #expect(first == PurgeBatch(events: 2, lastTime: Contract.t0 + 30))
            let second = try await store.purgeEvents(of: alice, inStreams: ["position"], endedBefore: Contract.t0 + 45,
                                                     startingAt: Contract.t0 + 30, limit: 2)
            #expect(second == PurgeBatch(events: 1, lastTime: Contract.t0 + 40))
            let none = try await store.purgeEvents(of: alice, inStreams: ["elsewhere"], endedBefore: Contract.t0 + 1_000,
                                                   startingAt: 0, limit: 2)
            #expect(none == PurgeBatch(events: 0, lastTime: nil))
            let left = try await store.events(matching: EventQuery(sortAscending: true, state: .all), for: alice).map(\.id)
            #expect(left == ["e0", "e1", "e5"])
        }
    }

    @Test func limitsFollowAncestorsElseTheUsersAndSurviveCycles() {
        func stream(_ id: String, _ parent: String?) -> EventStream { EventStream(id: id, name: id, parentId: parent) }
        let streams = [stream("a", nil), stream("b", "a"), stream("c", "b"), stream("d", nil), stream("e", "missing"),
                       stream("x", "y"), stream("y", "x"), stream("f", "d")]
        let limits = RetentionPurge.limits(of: streams, own: ["a": 10, "c": 5, "f": .infinity], user: 50)
        #expect(limits == ["a": 10, "b": 10, "c": 5, "d": 50, "e": 50, "x": 50, "y": 50, "f": .infinity])
        let noUser = RetentionPurge.limits(of: streams, own: ["a": 10], user: nil)
        #expect(noUser == ["a": 10, "b": 10, "c": 10])
    }

    /// The server purges at start and then every interval, on its clock, and /metrics counts it.
    @Test func theServerPurgesOnItsClockAndCountsIt() async throws {
        let clock = ManualClock()
        var configuration = ServerConfiguration()
        configuration.clock = clock
        configuration.retention = .init(defaultKeep: 3_600, interval: .seconds(60))
        try await TestServer.run(.sqlite, configuration: configuration) { server in
            let (alice, token) = try await server.addUser("alice")
            let now = Date().timeIntervalSince1970
            for (id, age) in [("two-hours", 7_200.0), ("one-minute", 60)] {
                let answer = try await server.request(.POST, "/events", token: token,
                                                      json: positionEvent(id: "ev-\(id)", time: now - age, latitude: 46.5, longitude: 6.6))
                #expect(answer.status == 201, "\(answer.text)")
            }
            // The purge at start ran before the events came: both wait for the next, a minute on.
            try await Self.until { clock.sleeperCount > 0 }
            #expect(try await server.store.events(matching: EventQuery(), for: alice).count == 2)
            await clock.advance(by: .seconds(60))
            try await Self.until { (try? await server.store.events(matching: EventQuery(), for: alice).count) == 1 }
            #expect(try await server.store.events(matching: EventQuery(), for: alice).map(\.id) == ["ev-one-minute"])
            let metrics = try await server.request(.GET, "/metrics")
            #expect(metrics.text.contains("whereabouts_events_purged_total 1"), "\(metrics.text.prefix(400))")
            let deletions = try await server.request(.GET, "/events?modifiedSince=0&includeDeletions=true", token: token)
            #expect(deletions.text.contains("ev-two-hours"), "\(deletions.text)")
        }
    }

    /// Waits (at most 60 s of real time) until `condition` holds.
    static func until(_ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, !(await condition()) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await condition())
    }
}
