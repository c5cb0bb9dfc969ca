import Foundation
import Testing
import Whereabouts
import WhereaboutsFacades
import WhereaboutsServerTesting
import WhereaboutsTracking

// The seed's names, unqualified, as an app ported from it declares them.
typealias PryvAPIClient = PryvFacade.PryvAPIClient
typealias PositionEvent = PryvFacade.PositionEvent
typealias PryvClientError = PryvFacade.PryvClientError
typealias PositionEventSender = PryvFacade.PositionEventSender

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
            let note = PositionEvent(location: nil, message: "Arrived", time: now - 30)
            try await client.sendNote(note)

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
            #expect(events.map(\.eventId) == [here.eventId, note.eventId, later.eventId])
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

    /// The seed's rules on the facade's path: 0/0 and inaccurate positions are ignored, a
    /// position within its accuracy plus the minimum distance extends the last event, a new
    /// event waits for the minimum interval; event times are the server's, whose clock here is
    /// ten minutes ahead of this machine's.
    @Test func positionsPassTheAcceptanceRules() async throws {
        let outbox = NSTemporaryDirectory() + "whereabouts-pryv-rules-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: outbox) }
        try await LocalServer.with { server in
          try await SkewedClockProxy(target: server.url, skew: 600).run { skewed in
            let token = try await server.addUser("alice")
            let client = PryvAPIClient(policy: AcceptancePolicy(maximumAccuracy: 50, minimumDistance: 5, minimumInterval: 60))
            let serverTime = try await client.startClient(userId: "alice", oAuthToken: token, channelId: "position", server: skewed,
                                                          outboxPath: outbox + "/outbox.sqlite")
            #expect(abs(serverTime - Date().timeIntervalSince1970 - 600) < 10)
            let t = Date().timeIntervalSince1970 - 600
            func position(_ latitude: Double, _ longitude: Double, accuracy: Double = 8, at time: Double) -> PositionEvent {
                PositionEvent(latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, time: time)
            }
            func ignored(_ event: PositionEvent) async -> AcceptanceDecision.IgnoreReason? {
                do {
                    try await client.send(event)
                    return nil
                } catch PryvClientError.ignored(let id, let reason) {
                    #expect(id == event.eventId)
                    return reason
                } catch {
                    Issue.record("\(error)")
                    return nil
                }
            }
            #expect(await ignored(position(0, 0, at: t)) == .nullPosition)
            #expect(await ignored(position(41.3551, 2.1322, accuracy: 80, at: t)) == .inaccurate(accuracy: 80, maximum: 50))
            let first = position(41.3551, 2.1322, at: t)
            #expect(try await client.send(first) == first.eventId)
            // About 10 m away, 20 s later: within 8 + 5 m, the first event now lasts 20 s.
            #expect(try await client.send(position(41.35519, 2.1322, at: t + 20)) == first.eventId)
            // 500 m away, but 30 s after the first began: too soon for a new event.
            guard case .tooSoon? = await ignored(position(41.3596, 2.1322, at: t + 30)) else {
                Issue.record("a far position 30 s later was not refused as too soon")
                return
            }
            let far = position(41.3596, 2.1322, at: t + 90)
            #expect(try await client.send(far) == far.eventId)

            let events = try await server.events(of: "alice")
            #expect(events.map(\.id) == [first.eventId, far.eventId])
            #expect(events.first?.duration == 20)
            // Times moved from this machine's clock to the server's, ten minutes ahead (measured
            // within half a round trip).
            #expect(abs((events.first?.time ?? 0) - (t + 600)) < 10, "\(events.first?.time ?? 0) against \(t + 600)")
            #expect(abs((events.last?.time ?? 0) - (t + 690)) < 10)
          }
        }
    }

    /// A refusal reaches the call that sent the event, however many older refusals wait in the
    /// outbox: the 26th note to a stream the server does not have is refused as the first was,
    /// and a good note after them is delivered.
    @Test func aRefusalIsReportedWithTwentyFiveOlderWaiting() async throws {
        let outbox = NSTemporaryDirectory() + "whereabouts-pryv-refusal-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: outbox) }
        try await LocalServer.with { server in
            let token = try await server.addUser("alice")
            let client = PryvAPIClient()
            try await client.startClient(userId: "alice", oAuthToken: token, channelId: "position", server: server.url,
                                         outboxPath: outbox + "/outbox.sqlite")
            let now = Date().timeIntervalSince1970
            func refusal(of note: PositionEvent) async -> String? {
                do {
                    try await client.sendNote(note)
                    return nil
                } catch PryvClientError.refused(let eventId, let message) {
                    #expect(eventId == note.eventId)
                    return message
                } catch {
                    Issue.record("\(error)")
                    return nil
                }
            }
            for index in 0..<25 {
                let note = PositionEvent(location: nil, message: "lost \(index)", stream: "no-such-stream", time: now - 100 + Double(index))
                #expect(await refusal(of: note) != nil, "note \(index) was reported delivered")
            }
            let last = PositionEvent(location: nil, message: "lost too", stream: "no-such-stream", time: now - 50)
            let message = await refusal(of: last)
            #expect(message?.contains("unknown-referenced-resource") == true, "\(message ?? "reported delivered")")
            let good = PositionEvent(location: nil, message: "kept", time: now - 40)
            #expect(try await client.sendNote(good) == good.eventId)
            #expect(try await client.pendingEventCount() == 0)
            #expect(try await server.events(of: "alice").map(\.id) == [good.eventId])
        }
    }

    /// The seed's sender: each event as the kind it is (a position, a note, a picture), the
    /// completion called whatever happened, and what waits sent after a synchronisation.
    @Test func thePositionEventSenderSendsEachKindAndWhatWaits() async throws {
        let folder = NSTemporaryDirectory() + "whereabouts-pryv-sender-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let picture = URL(fileURLWithPath: folder + "/view.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: picture)
        try await LocalServer.with { server in
            let token = try await server.addUser("alice")
            let client = PryvAPIClient()
            try await client.startClient(userId: "alice", oAuthToken: token, channelId: "position", server: server.url,
                                         outboxPath: folder + "/outbox.sqlite")
            let now = Date().timeIntervalSince1970
            let position = PositionEvent(latitude: 41.3551, longitude: 2.1322, horizontalAccuracy: 8, time: now - 60)
            let note = PositionEvent(location: nil, message: "Arrived", time: now - 50)
            let view = PositionEvent(location: nil, message: "The view", attachment: picture, time: now - 40)
            #expect(try await PositionEventSender(positionEvent: position, client: client).send() == position.eventId)
            // The seed's form: a completion with no argument, called once the call has settled.
            await withCheckedContinuation { done in
                PositionEventSender(positionEvent: note, client: client).sendToPrYvApi { done.resume() }
            }
            #expect(try await PositionEventSender(positionEvent: view, client: client).send() == view.eventId)
            let events = try await server.events(of: "alice")
            #expect(events.map(\.id) == [position.eventId, note.eventId, view.eventId])
            #expect(events.map(\.type) == ["position/wgs84", "note/txt", "picture/attached"])

            // Down: the next one waits; after the synchronisation, the sender's static call sends it.
            try await server.stop()
            let later = PositionEvent(location: nil, message: "Later", time: now - 30)
            let (id, failed): (String?, Bool) = await withCheckedContinuation { done in
                PositionEventSender(positionEvent: later, client: client).sendToPrYvApi { id, error in done.resume(returning: (id, error != nil)) }
            }
            #expect(id == later.eventId && failed)
            try await server.start()
            try await client.synchronizeTime()
            #expect(try await PositionEventSender.sendAllPendingEvents(client: client) == 1)
            #expect(try await server.events(of: "alice").map(\.id).last == later.eventId)
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
