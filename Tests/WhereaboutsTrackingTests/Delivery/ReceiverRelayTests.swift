import Foundation
import Testing
import Whereabouts
import WhereaboutsServer
import WhereaboutsServerTesting
@testable import WhereaboutsTracking

/// The relay's bounds: what it holds, for how long, and what it counts, with the server away or
/// refusing.
@Suite("Receiver relay")
struct ReceiverRelayTests {
    private static func scan(_ time: Double, device: String? = nil) -> Scan {
        Scan(time: time, device: device, readings: [Reading(beacon: .id("anna"), rssi: -60)])
    }

    /// Waits (in real time, at most 300 s: a loaded machine's tasks may wait long for a thread)
    /// until the relay's statistics satisfy `condition`.
    private static func wait(for relay: ReceiverRelay, until condition: (ReceiverRelay.Statistics) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline {
            if condition(await relay.statistics) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("the relay never got there: \(await relay.statistics)")
    }

    /// With the server away, reports are held up to the capacity (the oldest go first) and for
    /// `keep` on the relay's clock, then dropped and counted; a scan without a receiver is not sent.
    @Test func reportsAreHeldBoundedAndDroppedWhenTooOld() async throws {
        let clock = ManualClock()
        let relay = ReceiverRelay(receiver: nil,
                                  configuration: .init(keep: .seconds(3), capacity: 2, backoff: Backoff(initial: 0.01, maximum: 0.01)),
                                  clock: clock) { _ in
            throw TrackingError.unreachable(server: "http://127.0.0.1:9", reason: "connection refused")
        }
        await relay.add(Self.scan(1, device: "node1"))
        await relay.add(Self.scan(2, device: "node1"))
        await relay.add(Self.scan(3, device: "node2"))
        await relay.add(Self.scan(4))
        var statistics = await relay.statistics
        #expect(statistics.received == 4 && statistics.overflowed == 1 && statistics.unnamed == 1)
        #expect(await relay.pending == 2)

        let sending = Task { await relay.run() }
        try await Self.wait(for: relay) { $0.failedRequests >= 2 }
        // Still within `keep`: nothing expires however often the requests fail.
        await clock.advance(by: .seconds(3))
        try await Self.wait(for: relay) { $0.failedRequests >= 4 }
        #expect(await relay.statistics.expired == 0)
        await clock.advance(by: .milliseconds(1))
        try await Self.wait(for: relay) { $0.expired == 2 }
        statistics = await relay.finish(waitingUpTo: .seconds(1))
        await sending.value
        #expect(statistics.delivered == 0 && statistics.expired == 2 && statistics.lastError?.contains("127.0.0.1:9") == true)
        #expect(await relay.pending == 0)
    }

    /// A request the server refuses whole (the token may not send reports) is not sent again:
    /// its reports are counted refused, with the server's reason.
    @Test func aRefusedRequestIsDroppedWithItsReason() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("rhea")
            let client = try TrackingClient(server: server.url, token: token)
            // Kept long enough for a first request on a loaded machine (the default, 3 s, could
            // expire it before it is sent, and the test would not see the refusal).
            let relay = ReceiverRelay(client: client, receiver: "node1", configuration: .init(keep: .seconds(300)))
            let sending = Task { await relay.run() }
            await relay.add(Self.scan(Date().timeIntervalSince1970))
            try await Self.wait(for: relay) { $0.failedRequests >= 1 }
            let statistics = await relay.finish(waitingUpTo: .seconds(30))
            await sending.value
            // This server has no venue of receivers: 404, the whole request refused.
            #expect(statistics.refused == 1 && statistics.failedRequests == 1 && statistics.delivered == 0)
            #expect(statistics.lastError?.hasPrefix("404 unknown-resource") == true)
        }
    }

    /// What a request on its way carries stays its own: reports that come meanwhile wait (the
    /// oldest of them dropped when the relay is full), and go in the next request.
    @Test func reportsComingWhileARequestIsOnItsWayWaitForTheNext() async throws {
        actor Server {
            var batches: [[Double]] = []
            var gate: CheckedContinuation<Void, Never>?
            func take(_ batch: [Scan]) async -> TrackingClient.ReceiverReportsAnswer {
                batches.append(batch.map(\.time))
                if batches.count == 1 { await withCheckedContinuation { gate = $0 } }
                return .init(accepted: batch.count, refused: 0, reasons: [])
            }
            func open() { gate?.resume(); gate = nil }
            var waiting: Bool { gate != nil }
        }
        let server = Server()
        let relay = ReceiverRelay(receiver: "node1", configuration: .init(capacity: 3, batch: 2), clock: ManualClock()) {
            await server.take($0)
        }
        await relay.add(Self.scan(1))
        await relay.add(Self.scan(2))
        let sending = Task { await relay.run() }
        let deadline = ContinuousClock.now + .seconds(300)
        while await !server.waiting, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(await server.batches == [[1, 2]])
        // Full (3): the two on their way and 3; then 4 pushes 3 out, and 5 pushes 4 out.
        for time in [3.0, 4, 5] { await relay.add(Self.scan(time)) }
        #expect(await relay.pending == 3)
        await server.open()
        let statistics = await relay.finish(waitingUpTo: .seconds(30))
        await sending.value
        #expect(await server.batches == [[1, 2], [5]])
        #expect(statistics.delivered == 3 && statistics.overflowed == 2, "\(statistics)")
    }

    /// A relay waiting for reports stops when its task is cancelled.
    @Test func aCancelledRelayStopsWaiting() async throws {
        let relay = ReceiverRelay(receiver: "node1", configuration: .init(), clock: ManualClock()) { _ in
            .init(accepted: 0, refused: 0, reasons: [])
        }
        let ended = LockedValue(false)
        let sending = Task {
            await relay.run()
            ended.value = true
        }
        try await Task.sleep(for: .milliseconds(50))
        sending.cancel()
        let deadline = ContinuousClock.now + .seconds(300)
        while !ended.value, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(ended.value, "the relay still waits after its task was cancelled")
    }
}
