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

    /// Waits (in real time, at most a minute) until the relay's statistics satisfy `condition`.
    private static func wait(for relay: ReceiverRelay, until condition: (ReceiverRelay.Statistics) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if condition(await relay.statistics) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("the relay never got there: \(await relay.statistics)")
    }

    /// With the server away, reports are held up to the capacity (the oldest go first) and for
    /// `keep` on the relay's clock, then dropped and counted; a scan without a receiver is not sent.
    @Test func reportsAreHeldBoundedAndDroppedWhenTooOld() async throws {
        let client = try TrackingClient(server: "http://127.0.0.1:9", token: "t", timeout: 1)
        let clock = ManualClock()
        let relay = ReceiverRelay(client: client, receiver: nil,
                                  configuration: .init(keep: .seconds(3), capacity: 2, backoff: Backoff(initial: 0.01, maximum: 0.01)),
                                  clock: clock)
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
            let relay = ReceiverRelay(client: client, receiver: "node1")
            let sending = Task { await relay.run() }
            await relay.add(Self.scan(Date().timeIntervalSince1970))
            let statistics = await relay.finish(waitingUpTo: .seconds(30))
            await sending.value
            // This server has no venue of receivers: 404, the whole request refused.
            #expect(statistics.refused == 1 && statistics.failedRequests == 1 && statistics.delivered == 0)
            #expect(statistics.lastError?.hasPrefix("404 unknown-resource") == true)
        }
    }
}
