import Testing
import Whereabouts
@testable import WhereaboutsServer

@Suite("Live feed")
struct LiveFeedTests {
    static func position(_ id: String, time: Double, streams: [String] = ["position"]) -> Event {
        Event(id: id, streamIds: streams, time: time, type: "position/wgs84",
              content: .object([("latitude", .number(46.5)), ("longitude", .number(6.6))]))
    }

    /// Takes the next `count` events of a subscription.
    static func take(_ count: Int, from stream: AsyncStream<Event>) async -> [String] {
        var ids: [String] = []
        for await event in stream {
            ids.append(event.id)
            if ids.count == count { break }
        }
        return ids
    }

    @Test("each subscriber gets its own user's events, in order")
    func deliversPerUser() async {
        let feed = LiveFeed()
        let alice = await feed.subscribe(to: "alice")
        let bob = await feed.subscribe(to: "bob")
        await feed.publish([Self.position("a1", time: 1), Self.position("a2", time: 2)], for: "alice")
        await feed.publish([Self.position("b1", time: 3)], for: "bob")
        #expect(await Self.take(2, from: alice) == ["a1", "a2"])
        // Bob's first event is his own: Alice's two were never queued for him.
        #expect(await Self.take(1, from: bob) == ["b1"])
        #expect(await feed.droppedEventCount == 0)
    }

    @Test("a subscriber that does not read keeps only the newest events")
    func dropsOldest() async {
        let feed = LiveFeed(bufferSize: 2)
        let stream = await feed.subscribe(to: "alice")
        await feed.publish((1...5).map { Self.position("e\($0)", time: Double($0)) }, for: "alice")
        // Five events into a buffer of two: e1, e2 and e3 are dropped.
        #expect(await feed.droppedEventCount == 3)
        await feed.publish([Self.position("e6", time: 6)], for: "alice")
        #expect(await feed.droppedEventCount == 4)
        #expect(await Self.take(2, from: stream) == ["e5", "e6"])
    }

    @Test("publishing to a user nobody watches does nothing")
    func publishWithoutSubscribers() async {
        let feed = LiveFeed(bufferSize: 1)
        await feed.publish([Self.position("e1", time: 1), Self.position("e2", time: 2)], for: "alice")
        #expect(await feed.subscriberCount(for: "alice") == 0)
        #expect(await feed.droppedEventCount == 0)
    }

    @Test("a subscription ends when its task is cancelled")
    func unsubscribesOnCancel() async throws {
        let feed = LiveFeed()
        let stream = await feed.subscribe(to: "alice")
        let bob = await feed.subscribe(to: "bob")
        #expect(await feed.subscriberCount(for: "alice") == 1)
        let reader = Task { for await _ in stream {} }
        reader.cancel()
        await reader.value
        // The feed forgets the subscriber on its own executor, shortly after the cancellation.
        var remaining = await feed.subscriberCount(for: "alice")
        for _ in 0..<500 where remaining != 0 {
            try await Task.sleep(for: .milliseconds(10))
            remaining = await feed.subscriberCount(for: "alice")
        }
        #expect(remaining == 0)
        // Bob's subscription, still held, is untouched.
        #expect(await feed.subscriberCount(for: "bob") == 1)
        withExtendedLifetime(bob) {}
    }

    @Test("a subscription ends when its stream is discarded unread")
    func unsubscribesOnDiscard() async throws {
        let feed = LiveFeed()
        do {
            let stream = await feed.subscribe(to: "alice")
            #expect(await feed.subscriberCount(for: "alice") == 1)
            withExtendedLifetime(stream) {}
        }
        var remaining = await feed.subscriberCount(for: "alice")
        for _ in 0..<500 where remaining != 0 {
            try await Task.sleep(for: .milliseconds(10))
            remaining = await feed.subscriberCount(for: "alice")
        }
        #expect(remaining == 0)
    }

    @Test("the live filter passes only streams the access may read, including streams created later")
    func readFilter() async throws {
        let harness = StoreHarness(.sqlite)
        try await harness.run { (store) async throws in
        try await store.addUser(User(name: "alice", created: 0), streams: EventStream.defaults(at: 0) + [
            EventStream(id: "notes", name: "Notes"),
        ])
        let access = Access(id: "a1", userName: "alice", name: "notes reader", tokenHash: "h",
                            permissions: [Permission(streamId: "notes", level: .read)], created: 0)
        var filter = LiveRoutes.ReadFilter(
            access: access, tree: StreamTree(try await store.streams(of: "alice")), store: store)
        #expect(try await filter.allows(Self.position("p", time: 1)) == false)
        #expect(try await filter.allows(Self.position("n", time: 1, streams: ["notes"])) == true)
        // A child of "notes" created after the filter was made is covered by the grant on "notes".
        try await store.addStream(EventStream(id: "work", name: "Work", parentId: "notes"), for: "alice")
        #expect(try await filter.allows(Self.position("w", time: 2, streams: ["work"])) == true)
        // An event in a stream the user does not have at all is not readable.
        #expect(try await filter.allows(Self.position("x", time: 3, streams: ["elsewhere"])) == false)
        }
    }

    @Test("an access on every stream reads everything")
    func readFilterEverywhere() async throws {
        let harness = StoreHarness(.sqlite)
        try await harness.run { (store) async throws in
        let access = Access(id: "a1", userName: "alice", name: "all", tokenHash: "h",
                            permissions: [Permission(streamId: Permission.allStreams, level: .read)], created: 0)
        var filter = LiveRoutes.ReadFilter(access: access, tree: StreamTree([]), store: store)
        #expect(try await filter.allows(Self.position("p", time: 1, streams: ["anything"])) == true)
        }
    }

    @Test("events are sent as {\"event\": …} in the API's shape")
    func messageShape() throws {
        let event = Self.position("p1", time: 1_700_000_000)
        let message = LiveRoutes.message(for: event)
        #expect(try JSONParser.parse(message) == .object([("event", event.jsonValue)]))
        #expect(message.hasPrefix(#"{"event":{"id":"p1","streamIds":["position"]"#))
    }
}
