import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsTracking

@Suite("The outbox")
struct OutboxTests {
    private func position(_ id: String, time: Double = 1_700_000_000, duration: Double = 0) -> TrackedEvent {
        TrackedEvent(id: id, streamIds: ["position"], time: time, duration: duration, type: "position/wgs84",
                     content: .object([("latitude", .number(46.5)), ("longitude", .number(6.6))]))
    }

    /// The params of an item's batch call.
    private func params(_ item: OutboxItem) throws -> JSONValue {
        let call = try JSONParser.parse(item.batchCall)
        return try #require(call["params"])
    }

    @Test("Every commit is synced: synchronous = FULL on the outbox's connection, in WAL mode")
    func durableSettings() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        #expect(try await outbox.synchronousSetting() == 2)
        #expect(FileManager.default.fileExists(atPath: temporary.path + "-wal"))
    }

    @Test("Each destination sees its own items and checkpoints; a resolved user takes over its server's unresolved ones, and is remembered by token")
    func destinations() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        let home = "http://home.example", other = "http://other.example"
        // Offline, a token never answered for: the server's unresolved account.
        #expect(try await outbox.scope(toServer: home + "/", tokenDigest: "t1", user: nil)
                == OutboxDestination(server: home, account: .unresolved))
        try await outbox.enqueue([.create(position("u1"))], checkpoint: OutboxCheckpoint(source: "replay:a", state: [1]))
        // Another server's user queues their own.
        try await outbox.scope(toServer: other, tokenDigest: "t2", user: "bea")
        try await outbox.enqueue([.create(position("b1"))], checkpoint: OutboxCheckpoint(source: "replay:a", state: [2]))
        #expect(try await outbox.pendingItems(limit: 10).map(\.eventId) == ["b1"])
        #expect(try await outbox.checkpoint(for: "replay:a")?.state == [2])
        #expect(try await outbox.status().elsewhere == 1)
        // The first token of home the server answers for takes over what its unresolved account queued.
        try await outbox.scope(toServer: home, tokenDigest: "t3", user: "ann")
        #expect(try await outbox.pendingItems(limit: 10).map(\.eventId) == ["u1"])
        #expect(try await outbox.checkpoint(for: "replay:a")?.state == [1])
        // Offline again, that token is still ann's: her checkpoint, not a new unresolved one.
        #expect(try await outbox.scope(toServer: home, tokenDigest: "t3", user: nil)
                == OutboxDestination(server: home, account: .user("ann")))
        #expect(try await outbox.checkpoint(for: "replay:a")?.state == [1])
        // Without a destination, every item.
        await outbox.scope(to: nil)
        #expect(Set(try await outbox.pendingItems(limit: 10).map(\.eventId)) == ["u1", "b1"])
        #expect(try await outbox.status().elsewhere == 0)
    }

    @Test("A duration update to an event still queued folds into its create")
    func folding() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        try await outbox.enqueue(.create(position("a")))
        try await outbox.enqueue(.updateDuration(eventId: "a", duration: 12))
        try await outbox.enqueue(.updateDuration(eventId: "a", duration: 30.5))
        let items = try await outbox.pendingItems(limit: 10)
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(item.kind == .create && item.duration == 30.5 && item.revision == 2)
        let params = try params(item)
        #expect(params["id"] == .string("a"))
        #expect(params["duration"] == .number(30.5))
        #expect(params["type"] == .string("position/wgs84"))
        #expect(try await outbox.status().pendingCreates == 1)
    }

    @Test("An update to a delivered event is its own item, and later updates fold into it")
    func updatesAfterDelivery() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        try await outbox.enqueue(.create(position("a")))
        let created = try await outbox.pendingItems(limit: 10)
        try await outbox.settle(created.map { .delivered($0, serverDuration: 0) })
        try await outbox.enqueue(.updateDuration(eventId: "a", duration: 5))
        try await outbox.enqueue(.updateDuration(eventId: "a", duration: 8))
        let items = try await outbox.pendingItems(limit: 10)
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(item.kind == .update)
        #expect(try JSONParser.parse(item.batchCall)
                == .object([("method", .string("events.update")),
                            ("params", .object([("id", .string("a")), ("update", .object([("duration", .number(8))]))]))]))
    }

    @Test("An update folded in while the create was on the wire is not lost: the item stays as an update")
    func foldDuringDelivery() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        try await outbox.enqueue(.create(position("a")))
        let inFlight = try await outbox.pendingItems(limit: 10)
        try await outbox.enqueue(.updateDuration(eventId: "a", duration: 9))
        try await outbox.settle(inFlight.map { .delivered($0, serverDuration: 0) })
        let items = try await outbox.pendingItems(limit: 10)
        #expect(items.map(\.kind) == [.update])
        #expect(items.first?.duration == 9)
    }

    @Test("A create the server already had with another duration (a resend after a crash) becomes an update")
    func idempotentResend() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        try await outbox.enqueue(.create(position("a", duration: 20)))
        let items = try await outbox.pendingItems(limit: 10)
        try await outbox.settle(items.map { .delivered($0, serverDuration: 0) })
        let left = try await outbox.pendingItems(limit: 10)
        #expect(left.map(\.kind) == [.update])
        #expect(left.first?.duration == 20)
        #expect(try await outbox.hasPendingItems())
        try await outbox.settle(left.map { .delivered($0, serverDuration: nil) })
        #expect(try await outbox.status().isEmpty)
        #expect(try await !outbox.hasPendingItems())
    }

    @Test("A refused item keeps its reason, is skipped, and waits until retried or discarded")
    func refusals() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        try await outbox.enqueue([.create(position("a")), .create(position("b")), .create(position("c"))])
        let items = try await outbox.pendingItems(limit: 10)
        #expect(items.map(\.eventId) == ["a", "b", "c"])
        try await outbox.settle([.refused(items[1], errorId: "forbidden", message: "no")])
        #expect(try await outbox.pendingItems(limit: 10).map(\.eventId) == ["a", "c"])
        var status = try await outbox.status()
        #expect(status.pending == 2 && status.failed == 1)
        #expect(status.failures.map(\.errorId) == ["forbidden"] && status.failures.first?.eventId == "b")
        #expect(try await outbox.retryFailed() == 1)
        #expect(try await outbox.pendingItems(limit: 10).map(\.eventId) == ["a", "b", "c"])
        try await outbox.settle([.refused(items[1], errorId: "forbidden", message: "no")])
        try await outbox.settle([.refused(items[0], errorId: "forbidden", message: "no"), .refused(items[2], errorId: "forbidden", message: "no")])
        #expect(try await !outbox.hasPendingItems())  // refused items do not count as waiting
        try await outbox.retryFailed()
        try await outbox.settle([.refused(items[1], errorId: "forbidden", message: "no")])
        #expect(try await outbox.discardFailed() == 1)
        status = try await outbox.status()
        #expect(status.pending == 2 && status.failed == 0)
    }

    @Test("What was acknowledged is there after the outbox is opened again; the checkpoint too")
    func reopening() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        do {
            let outbox = try temporary.open()
            try await outbox.enqueue(.create(position("a")), checkpoint: OutboxCheckpoint(source: "s", state: [1, 2, 3]))
        }
        let again = try temporary.open()
        #expect(try await again.pendingItems(limit: 10).map(\.eventId) == ["a"])
        #expect(try await again.checkpoint(for: "s") == OutboxCheckpoint(source: "s", state: [1, 2, 3]))
        #expect(try await again.checkpoint(for: "other") == nil)
    }

    @Test("Concurrent writers are committed together and each hears of its own write")
    func groupCommit() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { try await outbox.enqueue(.create(self.position("e\(index)"))) }
            }
            // One bad change fails its own caller only.
            group.addTask {
                await #expect(throws: OutboxError.self) { try await outbox.enqueue(.create(self.position("bad id"))) }
            }
            try await group.waitForAll()
        }
        #expect(try await outbox.status().pendingCreates == 200)
    }

    @Test("Invalid changes are refused before anything is written")
    func invalidChanges() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        await #expect(throws: OutboxError.self) { try await outbox.enqueue(.create(position(""))) }
        await #expect(throws: OutboxError.self) { try await outbox.enqueue(.updateDuration(eventId: "a", duration: -1)) }
        await #expect(throws: OutboxError.self) { try await outbox.enqueue(.create(position("a", duration: .nan))) }
        await #expect(throws: OutboxError.self) {
            try await outbox.enqueue(.create(position("a"), attachment: URL(fileURLWithPath: "/no/such/file.jpg")))
        }
        #expect(try await outbox.status().isEmpty)
    }

    @Test("An attached file is copied into the outbox's folder and removed once delivered")
    func attachments() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        let source = URL(fileURLWithPath: temporary.folder + "/photo.jpg")
        try Data([1, 2, 3]).write(to: source)
        var picture = position("p")
        picture.type = "picture/attached"
        picture.content = nil
        try await outbox.enqueue(.create(picture, attachment: source))
        try FileManager.default.removeItem(at: source)  // the outbox has its own copy
        let item = try #require(try await outbox.pendingItems(limit: 10).first)
        let attachment = try #require(item.attachment)
        #expect(attachment.fileName == "photo.jpg")
        #expect(try Data(contentsOf: URL(fileURLWithPath: attachment.path)) == Data([1, 2, 3]))
        try await outbox.settle([.delivered(item, serverDuration: 0)])
        #expect(!FileManager.default.fileExists(atPath: attachment.path))
    }
}
