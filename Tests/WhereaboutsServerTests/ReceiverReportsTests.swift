import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// `POST /{username}/receivers/reports`: fixed receivers' reports fused into a tag's positions and
/// places on a real server, its time moved by a test clock.
@Suite("Receivers' reports")
struct ReceiverReportsTests {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    /// Four receivers at the corners of a 10 × 10 m room that is one place; the tag "anna".
    static let venue = Venue(
        places: [Venue.Place(id: "room", shape: .circle(center: PlanarPoint(x: 5, y: 5), radius: 20, coordinate: nil))],
        receivers: [(0.0, 0.0), (10, 0), (0, 10), (10, 10)].enumerated().map { Venue.Receiver(id: "r\($0.offset)", x: $0.element.0, y: $0.element.1) },
        tags: [Venue.Tag(id: "anna", iBeacon: IBeaconIdentity(uuid: uuid, major: 7, minor: 1))])
    /// The receivers' own clock when the test clock starts (not the server's).
    static let receiverEpoch = 1_700_000_000.0

    /// Every receiver's report of anna standing in the middle (7.07 m from each: −59 − 20·log10(7.07) dBm).
    static func reports(at second: Double) -> JSONValue {
        .array((0..<4).map { index in
            object(("t", .number(receiverEpoch + second)), ("device", .string("r\(index)")),
                   ("readings", .array([object(("uuid", .string(uuid.uuidString)), ("major", .number(7)), ("minor", .number(1)),
                                               ("rssi", .number(-59 - 20 * log10(50.0.squareRoot()))))])))
        })
    }

    static func configuration(clock: ManualClock) -> ServerConfiguration {
        var configuration = ServerConfiguration(venue: venue)
        configuration.clock = clock
        return configuration
    }

    /// The tag's fix falls due within the window and half a second after it was first heard; its positions and
    /// its entry are stored in its own stream; it leaves its place within a second of the exit
    /// timeout after the receivers last heard it, while they stay silent.
    @Test func aTagHeardByTheReceiversIsLocatedEntersAndLeavesOnTime() async throws {
        let clock = ManualClock()
        try await TestServer.run(.sqlite, configuration: Self.configuration(clock: clock)) { server in
            let (name, personal) = try await server.addUser("rita")
            let token = try await server.token(for: name, [Permission(streamId: "receivers", level: .contribute)])
            let path = "/\(name)/receivers/reports"

            let first = try await server.request(.POST, path, token: token, json: Self.reports(at: 0))
            #expect(first.status == 200)
            #expect(first.json["accepted"]?.numberValue == 4)
            #expect(first.json["refusedCount"]?.numberValue == 0)
            try await Self.waitUntilSleeping(clock)
            // Within the window (3 s) and half a second of the first sighting.
            let due = try #require(clock.nextDeadline)
            #expect(due.offset > .zero && due.offset <= .milliseconds(3_500))

            for second in 1...5 {
                await clock.advance(to: ManualClock.Instant(offset: .seconds(second)))
                #expect(try await server.request(.POST, path, token: token, json: Self.reports(at: Double(second))).status == 200)
            }
            await clock.advance(to: ManualClock.Instant(offset: .seconds(7)))
            let stored = try await Self.waitForEvents(server, user: name, token: personal) { events in
                events.contains { $0["type"]?.stringValue == "place/enter" }
            }
            let positions = stored.filter { $0["type"]?.stringValue == "position/local" }
            #expect(positions.count >= 3)
            for position in positions {
                #expect(position["streamIds"] == .array([.string("tag-anna")]))
                let x = try #require(position["content"]?["x"]?.numberValue), y = try #require(position["content"]?["y"]?.numberValue)
                #expect(abs(x - 5) < 0.5 && abs(y - 5) < 0.5, "at (\(x), \(y)), not the middle")
                #expect(position["clientData"]?["whereabouts"]?["device"]?.stringValue == "anna")
            }
            let entry = try #require(stored.first { $0["type"]?.stringValue == "place/enter" })
            #expect(entry["content"]?["place"]?.stringValue == "room")
            #expect(!stored.contains { $0["type"]?.stringValue == "place/exit" })

            // Silence: the receivers last heard anna at 5 s. Her last scan averages what they heard
            // at 4 and 5 s and is dated 4.5 s; the exit falls due the exit timeout (30 s) after
            // it: within a second of 30 s after she was last heard.
            await clock.advance(to: ManualClock.Instant(offset: .seconds(33)))
            try await Self.waitUntilSleeping(clock, after: .seconds(33))
            let exitDue = try #require(clock.nextDeadline)
            #expect(exitDue.offset >= .seconds(34) && exitDue.offset <= .seconds(36))
            await clock.advance(to: exitDue)
            let after = try await Self.waitForEvents(server, user: name, token: personal) { events in
                events.contains { $0["type"]?.stringValue == "place/exit" }
            }
            let exit = try #require(after.first { $0["type"]?.stringValue == "place/exit" })
            let times = after.filter { $0["type"]?.stringValue == "position/local" }.compactMap { $0["time"]?.numberValue }
            let lastHeard = try #require(times.max())
            let exitTime = try #require(exit["time"]?.numberValue)
            #expect(exitTime - lastHeard >= 29 && exitTime - lastHeard <= 31, "left \(exitTime - lastHeard) s after the last fix")

            // The token sends reports and nothing else.
            let note = object(("streamIds", .array([.string("tag-anna")])), ("type", .string("note/txt")), ("content", .string("x")))
            #expect(try await server.request(.POST, "/\(name)/events", token: token, json: note).status == 403)
            #expect(try await server.request(.GET, "/\(name)/events", token: token).json["events"] == .array([]))
        }
    }

    /// A feed that hands the test's reports to the server as `user`'s, and keeps what the server
    /// gives back.
    final class TestFeed: ReceiverReportFeed, @unchecked Sendable {
        /// Set once the test server has made the user (it gives names a prefix of its own).
        var user: String {
            get { lock.withLock { userName } }
            set { lock.withLock { userName = newValue } }
        }
        private var userName: String
        let name = "test-feed"
        let reports: AsyncStream<[Scan]>
        let continuation: AsyncStream<[Scan]>.Continuation
        private let lock = NSLock()
        private var outputs: [TagPipeline.Output] = []

        init(user: String) {
            userName = user
            (reports, continuation) = AsyncStream.makeStream()
        }

        var published: [TagPipeline.Output] { lock.withLock { outputs } }

        func run(deliver: @escaping @Sendable ([Scan]) async -> Void) async throws {
            for await batch in reports { await deliver(batch) }
        }

        func publish(_ outputs: [TagPipeline.Output]) async {
            lock.withLock { self.outputs += outputs }
        }
    }

    /// Anna in the middle, as each receiver heard her at `second`.
    static func scans(at second: Double) -> [Scan] {
        (0..<4).map { index in
            Scan(time: receiverEpoch + second, device: "r\(index)",
                 readings: [Reading(beacon: .iBeacon(IBeaconIdentity(uuid: uuid, major: 7, minor: 1)), rssi: -59 - 20 * log10(50.0.squareRoot()))])
        }
    }

    /// Reports from a feed (`serve --mqtt`) go the way of those over HTTP: anna located and her
    /// entry stored as the feed's user's events, written by the feed; the same outputs are given
    /// back to the feed; a feed's end does not stop the server.
    @Test func aFeedsReportsAreStoredAsItsUsersAndItsTagsGivenBack() async throws {
        let clock = ManualClock()
        let feed = TestFeed(user: "fay")
        var configuration = Self.configuration(clock: clock)
        configuration.reportFeeds = [feed]
        try await TestServer.run(.sqlite, configuration: configuration) { server in
            let (name, personal) = try await server.addUser("fay")
            feed.user = name
            var unknown = Self.scans(at: 0)
            unknown[0].device = "attic"
            feed.continuation.yield(unknown)
            try await Self.waitUntilSleeping(clock)
            for second in 1...5 {
                await clock.advance(to: ManualClock.Instant(offset: .seconds(second)))
                feed.continuation.yield(Self.scans(at: Double(second)))
            }
            feed.continuation.finish()
            await clock.advance(to: ManualClock.Instant(offset: .seconds(7)))
            let stored = try await Self.waitForEvents(server, user: name, token: personal) { events in
                events.contains { $0["type"]?.stringValue == "place/enter" }
            }
            let positions = stored.filter { $0["type"]?.stringValue == "position/local" }
            #expect(!positions.isEmpty && positions.allSatisfy { $0["streamIds"] == .array([.string("tag-anna")]) })
            #expect(stored.allSatisfy { $0["createdBy"]?.stringValue == "test-feed" })
            // Given back: the fixes stored and the entry, each of anna.
            let deadline = ContinuousClock.now + .seconds(300)
            while !feed.published.contains(where: { if case .event = $0 { true } else { false } }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            let fixes = feed.published.compactMap { if case .fix(let fix) = $0 { fix } else { nil } }
            #expect(fixes.count == positions.count && fixes.allSatisfy { $0.device == "anna" })
            #expect(feed.published.contains { if case .event(let event) = $0 { event.device == "anna" } else { false } })
            // The feed has ended; the server still answers.
            #expect(try await server.request(.GET, "/health").status == 200)
        }
    }

    /// Feeds need receivers to locate tags from: a server without them is refused at once.
    @Test func aFeedWithoutReceiversIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("whereabouts-feed-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteEventStore(directory: directory)
        for venue in [nil, Venue(tags: [Venue.Tag(id: "anna", iBeacon: IBeaconIdentity(uuid: Self.uuid, major: 7, minor: 1))])] {
            var configuration = ServerConfiguration(venue: venue)
            configuration.reportFeeds = [TestFeed(user: "fay")]
            do {
                _ = try makeServerApplication(configuration: configuration, store: store)
                Issue.record("a server was made")
            } catch let error as ServerSetupError {
                #expect(error.description.contains("need a venue that lists the receivers"))
            }
        }
    }

    /// What is refused, and how: the right status, the reason, and the rest of a request kept.
    @Test func badReportsAreRefusedWithTheirReasons() async throws {
        try await TestServer.run(.sqlite, configuration: Self.configuration(clock: ManualClock())) { server in
            let (name, personal) = try await server.addUser("sam")
            let token = try await server.token(for: name, [Permission(streamId: "receivers", level: .contribute)])
            let reader = try await server.token(for: name, [Permission(streamId: "receivers", level: .read)])
            let path = "/\(name)/receivers/reports"
            #expect(try await server.request(.POST, path, json: Self.reports(at: 0)).status == 401)
            let forbidden = try await server.request(.POST, path, token: reader, json: Self.reports(at: 0))
            #expect(forbidden.status == 403)
            #expect(forbidden.text.contains("--stream receivers --level contribute"))
            // A personal token may send them too.
            #expect(try await server.request(.POST, path, token: personal, json: Self.reports(at: 0)).status == 200)

            let notArray = try await server.request(.POST, path, token: token, json: object(("t", .number(1))))
            #expect(notArray.status == 400 && notArray.errorId == "invalid-request-structure")
            let tooMany = try await server.request(.POST, path, token: token, json: .array(Array(repeating: .null, count: 1_001)))
            #expect(tooMany.status == 400 && tooMany.text.contains("at most 1000"))

            guard case .array(var mixed) = Self.reports(at: 1) else { return }
            mixed.insert(object(("t", .string("soon"))), at: 1)
            mixed.append(object(("t", .number(Self.receiverEpoch + 1)), ("device", .string("attic")), ("readings", .array([]))))
            let partly = try await server.request(.POST, path, token: token, json: .array(mixed))
            #expect(partly.status == 200)
            #expect(partly.json["accepted"]?.numberValue == 4)
            #expect(partly.json["refusedCount"]?.numberValue == 2)
            guard case .array(let refused)? = partly.json["refused"] else { Issue.record("no refused list"); return }
            #expect(refused.map { $0["index"]?.numberValue } == [1, 5])
            #expect(refused.last?["message"]?.stringValue?.contains("no receiver \"attic\"") == true)

            let none = try await server.request(.POST, path, token: token, json: .array([
                object(("t", .number(Self.receiverEpoch)), ("device", .string("attic")), ("readings", .array([]))),
            ]))
            #expect(none.status == 400 && none.text.contains("attic"))
        }
        // A server whose venue lists no receivers has no such route to offer.
        try await TestServer.run(.sqlite) { server in
            let (name, personal) = try await server.addUser("tom")
            let answer = try await server.request(.POST, "/\(name)/receivers/reports", token: personal, json: Self.reports(at: 0))
            #expect(answer.status == 404 && answer.text.contains("--venue"))
        }
    }

    /// A tag's name becomes a stream id: kept when it is one, else cleaned and told apart by a hash.
    @Test func tagStreamIds() {
        #expect(TagTracking.streamId(ofTag: "wristband-7") == "tag-wristband-7")
        let cleaned = TagTracking.streamId(ofTag: "ibeacon:a:1")
        #expect(cleaned.hasPrefix("tag-ibeacon-a-1-") && cleaned.count == "tag-ibeacon-a-1-".count + 8)
        #expect(cleaned != TagTracking.streamId(ofTag: "ibeacon-a-1"))
        #expect(TagTracking.streamId(ofTag: "ibeacon:a:2") != cleaned)
        #expect(TagTracking.streamId(ofTag: String(repeating: "x", count: 300)).count <= 100)
    }

    // MARK: Helpers

    /// Waits (in real time, at most a minute) until something sleeps on `clock` until after `instant`.
    static func waitUntilSleeping(_ clock: ManualClock, after instant: Duration = .zero) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let next = clock.nextDeadline, next.offset > instant { return }
            try await Task.sleep(for: .milliseconds(2))
        }
        Issue.record("nothing slept on the clock")
    }

    /// The user's events in the tags' streams, once `ready` holds (at most a minute).
    static func waitForEvents(_ server: TestServer, user: String, token: String,
                              until ready: ([JSONValue]) -> Bool) async throws -> [JSONValue] {
        let deadline = ContinuousClock.now + .seconds(60)
        var events: [JSONValue] = []
        while ContinuousClock.now < deadline {
            let answer = try await server.request(.GET, "/\(user)/events?streams[]=tags&limit=1000&sortAscending=true", token: token)
            if case .array(let listed)? = answer.json["events"] { events = listed }
            if ready(events) { return events }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the events never came: \(events.count) stored")
        return events
    }
}
