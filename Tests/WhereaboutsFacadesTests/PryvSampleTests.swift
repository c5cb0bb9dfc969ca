import Foundation
import Testing
import Whereabouts
import WhereaboutsFacades
import WhereaboutsServerTesting
import WhereaboutsTracking

/// The Pryv position client's sample against a real server on loopback: start → send → pending
/// while the server is down → delivered after the next synchronisation → read back.
@Suite("Pryv position client sample")
struct PryvSampleTests {
    @Test func startSendQueueWhileDownDeliverAndGet() async throws {
        let outbox = NSTemporaryDirectory() + "whereabouts-pryv-sample-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: outbox) }
        try await LocalServer.with { server in
            let token = try await server.addUser("alice")
            let client = PryvAPIClient()
            let now = Date().timeIntervalSince1970
            // Start: the server's time, and the right user.
            let serverTime = try await client.startClient(userId: "alice", oAuthToken: token, channelId: "position",
                                                          server: server.url, outboxPath: outbox + "/outbox.sqlite")
            #expect(abs(serverTime - now) < 60)
            await #expect(throws: PryvClientError.self) {
                try await PryvAPIClient().startClient(userId: "bob", oAuthToken: token, channelId: "position",
                                                      server: server.url, outboxPath: outbox + "/other.sqlite")
            }

            // Send: delivered at once.
            var here = PositionEvent(latitude: 41.3551, longitude: 2.1322, horizontalAccuracy: 8, time: now - 60,
                                     message: "front desk")
            #expect(try await client.send(here) == here.eventId)
            // Update: the same event, longer.
            here.duration = 45
            try await client.update(here)
            try await client.sendNote(PositionEvent(location: nil, message: "Arrived", time: now - 30))

            // The server goes down: the next event waits in the outbox.
            try await server.stop()
            let later = PositionEvent(latitude: 41.3560, longitude: 2.1330, horizontalAccuracy: 12, time: now - 10)
            do {
                try await client.send(later)
                Issue.record("sent while the server was down")
            } catch PryvClientError.pending(let eventId, let cause) {
                #expect(eventId == later.eventId && cause.isRetryable)
            }
            #expect(try await client.pendingEventCount() == 1)

            // Back up: synchronise, then send everything pending (the seed's order).
            try await server.start()
            _ = try await client.synchronizeTime()
            #expect(try await client.sendAllPendingEvents() == 1)
            #expect(try await client.pendingEventCount() == 0)

            // Get: nil, nil is the last 24 hours.
            let events = try await client.getEvents(from: nil, to: nil, stream: nil)
            #expect(events.map(\.eventId) == [here.eventId, events[1].eventId, later.eventId])
            #expect(events[0].duration == 45 && events[0].message == "front desk")
            #expect(events[0].location?.coordinate == GeoCoordinate(latitude: 41.3551, longitude: 2.1322))
            #expect(events[0].location?.accuracy == 8)
            #expect(events[1].message == "Arrived" && events[1].location == nil)
            #expect(events[2].folderId == "position")
            // A range in the past holds none of them.
            #expect(try await client.getEvents(from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 1_000),
                                               stream: "position").isEmpty)
        }
    }

    @Test func callsBeforeStartAreRefused() async {
        let client = PryvAPIClient()
        await #expect(throws: PryvClientError.self) { try await client.sendAllPendingEvents() }
    }

    /// The completion-handler forms hand back the event's id and the error.
    @Test func completionHandlersReportTheIdAndTheError() async {
        let client = PryvAPIClient()
        let event = PositionEvent(latitude: 1, longitude: 2, horizontalAccuracy: 3, time: 4)
        let (id, failed): (String?, Bool) = await withCheckedContinuation { continuation in
            client.sendEvent(event) { id, error in continuation.resume(returning: (id, error != nil)) }
        }
        #expect(id == event.eventId && failed)
    }
}
