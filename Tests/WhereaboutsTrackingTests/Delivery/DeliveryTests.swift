import Foundation
import Testing
import Whereabouts
import WhereaboutsServer
import WhereaboutsServerTesting
@testable import WhereaboutsTracking

@Suite("Delivery to a real server", .serialized)
struct DeliveryTests {
    /// A walk that stands, moves and stands, with times around now.
    private func walk(count: Int = 90, start: Double = Date().timeIntervalSince1970 - 3_600) -> [Fix] {
        (0..<count).map { second in
            let phase = second % 30
            let x = phase < 10 ? 10 + Double(second / 30) * 40 : 10 + Double(second / 30) * 40 + Double(phase - 9) * 2
            return fix(start + Double(second), x: x, y: 5, accuracy: 1.5)
        }
    }

    private func expectServer(_ events: [Event], equal expected: [OutboxItem]) {
        #expect(events.count == expected.count)
        for (event, item) in zip(events, expected) {
            #expect(event.id == item.eventId && event.duration == item.duration)
        }
    }

    @Test("Tracked fixes reach the server once each, with their final durations; the outbox ends empty")
    func delivery() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("ann")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let tracker = try await Tracker(outbox: outbox, acceptor: FixAcceptor(), source: "walk")
            for fix in walk() { _ = try await tracker.record(fix) }
            let expected = try await outbox.pendingItems(limit: 1_000)
            let sender = OutboxSender(outbox: outbox, client: try TrackingClient(server: server.url, token: token), batchSize: 4)
            #expect(try await sender.deliverPending() == expected.count)
            #expect(try await outbox.status().isEmpty)
            let events = try await server.events(of: "ann")
            expectServer(events, equal: expected)
            #expect(events.allSatisfy { $0.type == "position/local" && $0.streamIds == ["position"] })
            // Delivering again sends nothing.
            #expect(try await sender.deliverPending() == 0)
        }
    }

    @Test("With the server down for the middle third, everything arrives once it is back, without a call")
    func offline() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("bob")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let tracker = try await Tracker(outbox: outbox, acceptor: FixAcceptor(), source: "walk")
            let client = try TrackingClient(server: server.url, token: token, timeout: 2)
            let sender = OutboxSender(outbox: outbox, client: client, batchSize: 3, backoff: Backoff(initial: 0.05, maximum: 0.2))
            let delivery = Task { await sender.run() }
            let fixes = walk(count: 90)
            var expected: [String: Double] = [:]
            for (index, fix) in fixes.enumerated() {
                if index == 30 { try await server.stop() }
                if index == 60 { try await server.start() }
                switch try await tracker.record(fix) {
                case .accepted(let event): expected[event.id] = 0
                case .extended(let id, let duration): expected[id] = duration
                case .ignored: break
                }
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            let statistics = await sender.statistics
            #expect(statistics.delivered > 0)
            // Wait (bounded) for the outbox to drain.
            for _ in 0..<200 where !(try await outbox.status().isEmpty) { try await Task.sleep(nanoseconds: 50_000_000) }
            delivery.cancel()
            #expect(try await outbox.status().isEmpty)
            let events = try await server.events(of: "bob")
            #expect(Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0.duration ?? -1) }) == expected)
        }
    }

    @Test("A preparation (creating the events' stream) runs before the first delivery, retried until it succeeds")
    func preparation() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("ivy")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            try await outbox.enqueue(.create(TrackedEvent(id: "d1", streamIds: ["diary"], time: Date().timeIntervalSince1970 - 5,
                                                          type: "note/txt", content: .string("dear diary"))))
            let client = try TrackingClient(server: server.url, token: token)
            let flaky = FlakyPreparation()
            let sender = OutboxSender(outbox: outbox, client: client) {
                try await flaky.attempt()
                try await client.ensureStream("diary")
            }
            await #expect(throws: TrackingError.self) { try await sender.deliverPending() }
            #expect(try await outbox.status().pending == 1)
            #expect(try await sender.deliverPending() == 1)
            #expect(try await server.events(of: "ivy").map(\.streamIds) == [["diary"]])
        }
    }

    @Test("A refused token stops delivery and keeps everything queued, saying why")
    func badToken() async throws {
        try await LocalServer.with { server in
            _ = try await server.addUser("cat")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let tracker = try await Tracker(outbox: outbox, acceptor: FixAcceptor(), source: "walk")
            for fix in walk(count: 30) { _ = try await tracker.record(fix) }
            let before = try await outbox.status()
            let sender = OutboxSender(outbox: outbox, client: try TrackingClient(server: server.url, token: "not-a-token"))
            do {
                try await sender.deliverPending()
                Issue.record("delivered with a bad token")
            } catch let error as TrackingError {
                #expect(error.isTokenRefused && !error.isRetryable)
                #expect(error.description.contains("refused the token"))
            }
            #expect(try await outbox.status() == before)
        }
    }

    @Test("A wrong server path refuses the whole request: nothing is marked refused, everything stays queued")
    func wrongPath() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("hal")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let now = Date().timeIntervalSince1970
            try await outbox.enqueue((0..<3).map { index in
                .create(TrackedEvent(id: "n\(index)", streamIds: ["position"], time: now, type: "note/txt", content: .string("x")))
            })
            let sender = OutboxSender(outbox: outbox, client: try TrackingClient(server: server.url + "/not/here", token: token))
            await #expect(throws: TrackingError.self) { try await sender.deliverPending() }
            let status = try await outbox.status()
            #expect(status.pending == 3 && status.failed == 0)
        }
    }

    @Test("An item the server refuses is kept with its reason and does not block the items behind it")
    func refusedItem() async throws {
        try await LocalServer.with { server in
            _ = try await server.addUser("dan")
            let token = try await server.token(for: "dan", [Permission(streamId: "position", level: .contribute)])
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let now = Date().timeIntervalSince1970
            try await outbox.enqueue([
                .create(TrackedEvent(id: "one", streamIds: ["position"], time: now, type: "note/txt", content: .string("1"))),
                .create(TrackedEvent(id: "two", streamIds: ["elsewhere"], time: now, type: "note/txt", content: .string("2"))),
                .create(TrackedEvent(id: "three", streamIds: ["position"], time: now, type: "note/txt", content: .number(3))),
                .create(TrackedEvent(id: "four", streamIds: ["position"], time: now, type: "note/txt", content: .string("4"))),
            ])
            let sender = OutboxSender(outbox: outbox, client: try TrackingClient(server: server.url, token: token))
            #expect(try await sender.deliverPending() == 2)
            let status = try await outbox.status()
            #expect(status.pending == 0 && status.failed == 2)
            #expect(status.failures.map(\.eventId) == ["two", "three"])
            #expect(status.failures.map(\.errorId) == ["forbidden", "invalid-parameters-format"] ||
                    status.failures.map(\.errorId) == ["unknown-referenced-resource", "invalid-parameters-format"])
            #expect(try await server.events(of: "dan").map(\.id).sorted() == ["four", "one"])
        }
    }

    @Test("A create resent after a crash, with an update folded in since, ends with the final duration")
    func resendAfterCrash() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("eve")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let client = try TrackingClient(server: server.url, token: token)
            let now = Date().timeIntervalSince1970
            try await outbox.enqueue(.create(TrackedEvent(id: "stay", streamIds: ["position"], time: now, type: "position/wgs84",
                                                          content: .object([("latitude", .number(1)), ("longitude", .number(2))]))))
            // Sent, but the process died before the outbox heard the answer.
            _ = try await client.batch(try await outbox.pendingItems(limit: 10).map(\.batchCall))
            try await outbox.enqueue(.updateDuration(eventId: "stay", duration: 42))
            try await OutboxSender(outbox: outbox, client: client).deliverPending()
            #expect(try await outbox.status().isEmpty)
            let events = try await server.events(of: "eve")
            #expect(events.map(\.id) == ["stay"])
            #expect(events.first?.duration == 42)
        }
    }

    @Test("Notes and pictures go through the outbox; pictures arrive as attachments")
    func notesAndPictures() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("fay")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let picture = URL(fileURLWithPath: temporary.folder + "/view.png")
            try Data(repeating: 7, count: 1_000).write(to: picture)
            let now = Date().timeIntervalSince1970
            try await outbox.enqueue([
                .create(TrackedEvent(id: "n1", streamIds: ["position"], time: now - 10, type: "note/txt", content: .string("hello"))),
                .create(TrackedEvent(id: "p1", streamIds: ["position"], time: now - 9, type: "picture/attached"), attachment: picture),
                .create(TrackedEvent(id: "n2", streamIds: ["position"], time: now - 8, type: "note/txt", content: .string("bye"))),
            ])
            let client = try TrackingClient(server: server.url, token: token)
            #expect(try await OutboxSender(outbox: outbox, client: client).deliverPending() == 3)
            #expect(try await outbox.status().failures == [])
            let events = try await client.events(from: nil, to: nil, streamId: "position")
            try #require(events.map(\.id) == ["n1", "p1", "n2"])
            #expect(events[1].attachmentNames == ["view.png"])
            #expect(events[0].content == .string("hello"))
        }
    }

    @Test("The client follows a server's answer in parts to the limit it asked for")
    func eventsInParts() async throws {
        try await LocalServer.with(answerLimits: .init(eventsPerAnswer: 3)) { server in
            let token = try await server.addUser("ida")
            let client = try TrackingClient(server: server.url, token: token)
            let now = Date().timeIntervalSince1970
            // Ten notes, four of them at the same second: parts end inside the tie too.
            for index in 0..<10 {
                let time = index < 4 ? now - 100 : now - 100 + Double(index)
                _ = try await client.create(TrackedEvent(id: "n\(index)", streamIds: ["position"], time: time,
                                                         type: "note/txt", content: .string("\(index)")))
            }
            let all = try await client.events(from: now - 200, to: now, streamId: nil)
            #expect(all.map(\.id) == (0..<10).map { "n\($0)" })
            let seven = try await client.events(from: now - 200, to: now, streamId: nil, limit: 7)
            #expect(seven.map(\.id) == (0..<7).map { "n\($0)" })
        }
    }

    /// A range with no end reaches the minute ahead of the server's clock, as one with neither
    /// end does: an event a phone's clock (or an offset measured off by a slow answer) stamped a
    /// few seconds ahead is in it (the server's own default end, its now, left it out).
    @Test("A range with no end holds an event stamped a little ahead of the server's clock")
    func anOpenRangeHoldsAnEventStampedAhead() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("ivy")
            let client = try TrackingClient(server: server.url, token: token, defaultStream: "diary")
            _ = try await client.start()
            try await client.ensureStream("diary")
            let ahead = try await client.sendNote("ahead", time: Date().timeIntervalSince1970 + 20)
            #expect(try await client.events(from: 0, to: nil, streamId: "diary").map(\.id) == [ahead.id])
            #expect(try await client.events(from: nil, to: nil, streamId: "diary").map(\.id) == [ahead.id])
            // An end given is the end.
            #expect(try await client.events(from: 0, to: Date().timeIntervalSince1970, streamId: "diary").isEmpty)
        }
    }

    @Test("The client: time range defaults, streams, typed errors")
    func client() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("gus")
            let client = try TrackingClient(server: server.url + "/", token: token, defaultStream: "diary")
            let serverTime = try await client.start()
            #expect(abs(serverTime - Date().timeIntervalSince1970) < 5)
            #expect(await client.userName == "gus")
            try await client.ensureStream("diary")
            try await client.ensureStream("diary")  // already there: nothing to do
            #expect(try await client.streams().flatMap(\.flattened).map(\.id).contains("diary"))
            let old = try await client.sendNote("two days ago", time: Date().timeIntervalSince1970 - 2 * 86_400)
            let recent = try await client.sendNote("just now")
            #expect(recent.streamIds == ["diary"])
            // nil/nil: the last 24 hours; nil stream: every stream.
            #expect(try await client.events(from: nil, to: nil, streamId: nil).map(\.id) == [recent.id])
            #expect(try await client.events(from: 0, to: nil, streamId: "diary").map(\.id) == [old.id, recent.id])
            let updated = try await client.updateDuration(ofEvent: recent.id, to: 5)
            #expect(updated.duration == 5)
            do {
                _ = try await client.create(TrackedEvent(id: "x", streamIds: ["diary"], time: 1, type: "note/txt", content: .number(1)))
                Issue.record("an invalid note was accepted")
            } catch let error as TrackingError {
                #expect(!error.isRetryable)
                guard case .refused(400, "invalid-parameters-format", _) = error else { Issue.record("\(error)"); return }
            }
            #expect(throws: TrackingError.self) { try TrackingClient(server: "not a url", token: "t") }
        }
        // Nobody listens any more: retry later.
        let gone = try TrackingClient(server: "http://127.0.0.1:1", token: "t", timeout: 2)
        do {
            _ = try await gone.start()
            Issue.record("a closed port answered")
        } catch let error as TrackingError {
            #expect(error.isRetryable)
        }
    }
}

/// Fails its first attempt as an unreachable server would, then succeeds.
private actor FlakyPreparation {
    private var attempts = 0

    func attempt() throws {
        attempts += 1
        if attempts == 1 { throw TrackingError.unreachable(server: "test", reason: "first attempt") }
    }
}
