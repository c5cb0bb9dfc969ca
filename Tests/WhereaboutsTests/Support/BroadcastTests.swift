import Testing
@testable import Whereabouts

/// ``Broadcast``: the listener registry of the event hub, the place ranker and the live feed.
@Suite struct BroadcastTests {
    /// An owner as the hub and the ranker are: an actor holding the registry.
    actor Owner {
        var listeners = Broadcast<Int>()
        func subscribe(buffer: Int? = nil) -> AsyncStream<Int> {
            listeners.subscribe(bufferingPolicy: buffer.map { .bufferingNewest($0) } ?? .unbounded) { [weak self] id in
                Task { await self?.remove(id) }
            }
        }
        func send(_ value: Int) -> Int { listeners.yield(value) }
        func remove(_ id: Broadcast<Int>.SubscriberID) { listeners.remove(id) }
        func finish() { listeners.finishAll() }
        var count: Int { listeners.count }
    }

    @Test func everySubscriberGetsWhatIsSentAfterItSubscribed() async {
        let owner = Owner()
        #expect(await owner.send(0) == 0)            // no one listens: nothing is dropped either
        let first = await owner.subscribe()
        #expect(await owner.send(1) == 0)
        let second = await owner.subscribe()
        #expect(await owner.send(2) == 0)
        #expect(await owner.count == 2)
        await owner.finish()
        #expect(await owner.count == 0)
        var a: [Int] = [], b: [Int] = []
        for await value in first { a.append(value) }
        for await value in second { b.append(value) }
        #expect(a == [1, 2] && b == [2])
    }

    @Test func aFullBufferDropsItsOldestAndSaysSo() async {
        let owner = Owner()
        let slow = await owner.subscribe(buffer: 2)
        var dropped = 0
        for value in 1...5 { dropped += await owner.send(value) }
        #expect(dropped == 3)
        await owner.finish()
        var got: [Int] = []
        for await value in slow { got.append(value) }
        #expect(got == [4, 5])
    }

    @Test func aStreamThatEndsIsRemoved() async throws {
        let owner = Owner()
        var stream: AsyncStream<Int>? = await owner.subscribe()
        #expect(await owner.count == 1)
        stream = nil
        _ = stream
        // The termination handler hops back onto the owner.
        for _ in 0..<100 where await owner.count > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await owner.count == 0)
    }
}
