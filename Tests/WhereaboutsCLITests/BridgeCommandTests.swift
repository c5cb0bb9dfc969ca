import Foundation
import Testing
import Whereabouts
import WhereaboutsMQTT
import WhereaboutsServer
import WhereaboutsServerTesting

/// `whereabouts bridge` between a real Mosquitto and what ESPresense nodes publish: the tag the
/// venue names appears for Home Assistant (discovery, attributes, its room, then not_home), a tag
/// it does not name and a message that is not a report change nothing, and the bridge's death
/// says offline.
@Suite("bridge", .serialized, .enabled(if: MosquittoBroker.shouldRun, "mosquitto is not installed"))
struct BridgeCommandTests {
    /// The messages a client has received, by topic (the latest last).
    actor Inbox {
        var messages: [MQTTMessage] = []
        func add(_ message: MQTTMessage) { messages.append(message) }
        func latest(_ topic: String) -> MQTTMessage? { messages.last { $0.topic == topic } }
        func all(_ topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }
    }

    /// A client that collects what is published for Home Assistant, and one that publishes as
    /// the nodes do.
    final class BrokerClients: Sendable {
        let watcher: MQTTClient
        let publisher: MQTTClient
        let inbox = Inbox()
        private let tasks: [Task<Void, any Error>]

        private init(url: String) throws {
            watcher = MQTTClient(configuration: try MQTTConfiguration(url: url))
            publisher = MQTTClient(configuration: try MQTTConfiguration(url: url))
            let (watcher, publisher, inbox) = (watcher, publisher, inbox)
            tasks = [Task { try await watcher.run() }, Task { try await publisher.run() },
                     Task { for await message in watcher.messages { await inbox.add(message) } }]
        }

        /// Both clients of the broker at `url`, the watcher subscribed.
        static func connect(_ url: String) async throws -> BrokerClients {
            let clients = try BrokerClients(url: url)
            try await clients.watcher.subscribe(to: ["espresense/companion/#", "homeassistant/#"])
            return clients
        }

        func stop() { for task in tasks { task.cancel() } }
    }

    static func waitFor(_ limit: Duration, _ ready: () async -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if await ready() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    static func json(_ message: MQTTMessage?) -> [String: Any]? {
        guard let message else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]
    }

    @Test func espresenseMessagesBecomeHomeAssistantsTrackerAndRoom() async throws {
        let broker = try await MosquittoBroker.start(users: ["ha": "pw"])
        defer { broker.remove() }
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = try FuseCommandTests.write(FuseCommandTests.venueJSON, to: "venue.json", in: directory)

        let url = broker.url(user: "ha", password: "pw")
        let clients = try await BrokerClients.connect(url)
        defer { clients.stop() }
        let (inbox, publisher) = (clients.inbox, clients.publisher)

        let bridge = try LiveCommandTests.LiveProcess(["bridge", "--venue", venue, "--mqtt", url, "--exit-timeout", "2"])
        defer { if bridge.process.isRunning { bridge.process.terminate() } }

        let anna = "iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-7-1"
        // Nearer node1 (at 0.2, 0.2) than the others: louder there.
        let loudness = ["node1": -55, "node2": -72, "node3": -78, "node4": -72]
        let sending = Task {
            while !Task.isCancelled {
                for (node, rssi) in loudness.sorted(by: { $0.key < $1.key }) {
                    try await publisher.publish(MQTTMessage(topic: "espresense/devices/\(anna)/\(node)",
                                                            payload: "{\"id\":\"\(anna)\",\"rssi\":\(rssi),\"rssi@1m\":-59,\"distance\":1.2}"))
                    try await publisher.publish(MQTTMessage(topic: "espresense/devices/irk:00ff/\(node)", payload: "{\"id\":\"irk:00ff\",\"rssi\":-60}"))
                }
                try await publisher.publish(MQTTMessage(topic: "espresense/devices/x/node1", payload: "not json"))
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        let located = try await Self.waitFor(LiveCommandTests.startup) {
            let attributes = await inbox.latest("espresense/companion/anna/attributes")
            let state = await inbox.latest("espresense/companion/anna")
            return attributes != nil && state?.text == "room"
        }
        sending.cancel()
        try #require(located, "no attributes and room for anna; the bridge said: \(bridge.lines.map(\.line).suffix(5))")

        let tracker = try #require(Self.json(await inbox.latest("homeassistant/device_tracker/whereabouts_anna/config")))
        #expect(tracker["state_topic"] as? String == "espresense/companion/anna")
        #expect(tracker["json_attributes_topic"] as? String == "espresense/companion/anna/attributes")
        #expect(tracker["availability_topic"] as? String == "espresense/companion/status")
        #expect(tracker["payload_not_home"] as? String == "not_home")
        let sensor = try #require(Self.json(await inbox.latest("homeassistant/sensor/whereabouts_anna_room/config")))
        #expect(sensor["state_topic"] as? String == "espresense/companion/anna")
        #expect(await inbox.latest("espresense/companion/status")?.text == "online")
        #expect(await inbox.latest("homeassistant/device_tracker/whereabouts_anna/config")?.retain == false,
                "a live subscriber gets it unretained; a late one gets it retained (below)")

        let attributes = try #require(Self.json(await inbox.latest("espresense/companion/anna/attributes")))
        let x = try #require(attributes["x"] as? Double)
        let y = try #require(attributes["y"] as? Double)
        #expect(x < 3 && y < 2, "nearest node1 at (0.2, 0.2): (\(x), \(y))")
        #expect(attributes["fixes"] as? Double == 4)
        #expect(attributes["last_seen"] is String)
        // The tag the venue does not name is not published.
        #expect(await inbox.messages.allSatisfy { !$0.topic.contains("irk") })

        // Silent: it leaves its room, and Home Assistant is told not_home.
        let away = try await Self.waitFor(.seconds(300)) { (await inbox.latest("espresense/companion/anna"))?.text == "not_home" }
        #expect(away)
        #expect(await bridge.waitForLine(containing: "\"device\":\"anna\"", limit: .seconds(60)) != nil)

        // A late subscriber (Home Assistant starting) gets the tracker, the room and the
        // attributes retained.
        let late = MQTTClient(configuration: try MQTTConfiguration(url: url))
        let lateRun = Task { try await late.run() }
        defer { lateRun.cancel() }
        try await late.subscribe(to: ["homeassistant/device_tracker/+/config", "espresense/companion/anna"])
        let lateInbox = Inbox()
        let lateCollecting = Task { for await message in late.messages { await lateInbox.add(message) } }
        defer { lateCollecting.cancel() }
        #expect(try await Self.waitFor(.seconds(60)) {
            let tracker = await lateInbox.latest("homeassistant/device_tracker/whereabouts_anna/config")
            let state = await lateInbox.latest("espresense/companion/anna")
            return tracker?.retain == true && state?.text == "not_home"
        })

        // Killed, the bridge's will says it is gone.
        kill(bridge.process.processIdentifier, SIGKILL)
        #expect(try await Self.waitFor(.seconds(120)) { (await inbox.latest("espresense/companion/status"))?.text == "offline" })
    }

    /// `relay --mqtt`: a gateway as an ESPresense node, whose messages the bridge's input reads
    /// back as the reports it relayed.
    @Test func aRelayPublishesAsAnESPresenseNode() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.remove() }
        let watcher = MQTTClient(configuration: try MQTTConfiguration(url: broker.url()))
        let run = Task { try await watcher.run() }
        defer { run.cancel() }
        try await watcher.subscribe(to: ["espresense/devices/+/+"])
        let relay = try LiveCommandTests.LiveProcess(["relay", "--recording", "-", "--receiver", "node2", "--mqtt", broker.url()])
        defer { if relay.process.isRunning { relay.process.terminate() } }
        let sending = Task {
            while !Task.isCancelled {
                relay.send("{\"t\": 1, \"readings\": [{\"uuid\": \"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\", \"major\": 7, \"minor\": 1, \"rssi\": -66, \"txPower\": -59}]}")
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        defer { sending.cancel() }
        var iterator = watcher.messages.makeAsyncIterator()
        let message = try #require(await iterator.next())
        #expect(message.topic == "espresense/devices/iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-7-1/node2")
        let report = try ESPresenseInput().report(from: message, arrival: 10)
        #expect(report.device == "node2")
        #expect(report.readings.first?.rssi == -66)
        #expect(report.readings.first?.txPower == -59)
        #expect(report.readings.first?.beacon == ESPresenseInput.tag(forId: "iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-7-1"))
    }

    @Test func aWrongPasswordEndsTheBridgeNamingTheBroker() async throws {
        let broker = try await MosquittoBroker.start(users: ["ha": "pw"])
        defer { broker.remove() }
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = try FuseCommandTests.write(FuseCommandTests.venueJSON, to: "venue.json", in: directory)
        let result = try await CommandRunner.run(["bridge", "--venue", venue, "--mqtt", broker.url(user: "ha", password: "nope")])
        #expect(result.status == 1)
        #expect(result.standardError.contains("mqtt://127.0.0.1:\(broker.port) refused the connection"), "\(result.standardError)")
        #expect(!result.standardError.contains("nope"))
    }

    /// `serve --mqtt`: the server reads the nodes' messages as `bridge` does, stores each tag's
    /// positions and places as the user's events (a phone named by its key from an `irk:` id),
    /// and publishes the tags back for Home Assistant; stopped, the broker says offline.
    @Test func theServerReadsTheBrokerStoresTheTagsAndPublishesThemBack() async throws {
        let broker = try await MosquittoBroker.start(users: ["ha": "pw"])
        defer { broker.remove() }
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = try FuseCommandTests.write(FuseCommandTests.venueJSON, to: "venue.json", in: directory)
        let tags = directory.appendingPathComponent("tags.json").path
        let key = "ec0234a357c8ad05341010a60a397d9b"
        #expect(try await CommandRunner.run(["tags", "add", "phone", "--irk", key, "--file", tags]).status == 0)
        let dataDir = directory.appendingPathComponent("data")
        let token = try await CommandRunner.run(["users", "add", "alice", "--data-dir", dataDir.path]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let url = broker.url(user: "ha", password: "pw")

        // Refused before anything runs: an unknown user (no user, no venue and a shard without
        // the broker are refused as the command line is read: `ServerCommandTests.serveMQTTOptionsGoTogether`).
        let unknown = try await CommandRunner.run(["serve", "--data-dir", dataDir.path, "--port", "0", "--venue", venue,
                                                   "--mqtt", url, "--mqtt-user", "zed"])
        #expect(unknown.status == 1 && unknown.standardError.contains("--mqtt-user zed: no such user"), "\(unknown.standardError)")

        // A refused password stops the server, naming the broker and not the password.
        let refused = try ServerCommandTests.ServerProcess(dataDir: dataDir, arguments: [
            "--venue", venue, "--mqtt", broker.url(user: "ha", password: "nope"), "--mqtt-user", "alice"])
        let patience = ContinuousClock.now + .seconds(300)
        while refused.process.isRunning, ContinuousClock.now < patience { try await Task.sleep(for: .milliseconds(50)) }
        if refused.process.isRunning {
            refused.process.terminate()
            Issue.record("the server ran on with a refused password")
        }
        await DedicatedThread.waitUntilExit(refused.process)
        let refusal = refused.errors
        #expect(refused.process.terminationStatus == 1 && refusal.contains("mqtt://127.0.0.1:\(broker.port) refused the connection"), "\(refusal)")
        #expect(!refusal.contains("nope"))

        // The broker not up yet: the server starts all the same, and connects once it is.
        broker.stop()
        let server = try ServerCommandTests.ServerProcess(dataDir: dataDir, arguments: [
            "--venue", venue, "--tags", tags, "--mqtt", url, "--mqtt-user", "alice", "--tag-exit-timeout", "2"])
        defer { if server.process.isRunning { server.process.terminate() } }
        try await server.waitUntilReady()
        try await broker.restart()

        let clients = try await BrokerClients.connect(url)
        defer { clients.stop() }
        let (inbox, publisher) = (clients.inbox, clients.publisher)

        let anna = "iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-7-1"
        let loudness = ["node1": -55, "node2": -72, "node3": -78, "node4": -72]
        let sending = Task {
            while !Task.isCancelled {
                for (node, rssi) in loudness.sorted(by: { $0.key < $1.key }) {
                    for id in [anna, "irk:" + key] {
                        try await publisher.publish(MQTTMessage(topic: "espresense/devices/\(id)/\(node)",
                                                                payload: "{\"id\":\"\(id)\",\"rssi\":\(rssi),\"rssi@1m\":-59}"))
                    }
                }
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        let published = try await Self.waitFor(LiveCommandTests.startup) {
            let annaState = await inbox.latest("espresense/companion/anna")
            let phoneState = await inbox.latest("espresense/companion/phone")
            let phoneAttributes = await inbox.latest("espresense/companion/phone/attributes")
            return annaState?.text == "room" && phoneState?.text == "room" && phoneAttributes != nil
        }
        sending.cancel()
        try #require(published, "the server published no room for anna and phone")
        #expect(await inbox.latest("espresense/companion/status")?.text == "online")
        #expect(Self.json(await inbox.latest("homeassistant/device_tracker/whereabouts_phone/config")) != nil)

        // Stored as alice's events, in each tag's stream: positions, and the room entered.
        let base = "http://127.0.0.1:\(server.port)"
        var stored: [String: Set<String>] = [:]
        let storedBoth = try await Self.waitFor(.seconds(300)) {
            for tag in ["anna", "phone"] {
                guard let answer = try? await ServerCommandTests.send("GET", base + "/events?streams[]=tag-\(tag)&limit=1000", token: token),
                      answer.status == 200,
                      let json = try? JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any],
                      let events = json["events"] as? [[String: Any]] else { return false }
                stored[tag] = Set(events.compactMap { $0["type"] as? String })
            }
            return ["anna", "phone"].allSatisfy { stored[$0, default: []].isSuperset(of: ["position/local", "place/enter"]) }
        }
        #expect(storedBoth, "stored: \(stored)")

        // Stopped: the server ends cleanly, and the broker publishes its will.
        #expect(server.stop(with: SIGTERM) == 0)
        #expect(try await Self.waitFor(.seconds(120)) { (await inbox.latest("espresense/companion/status"))?.text == "offline" })
    }

    /// The PostgreSQL database the sharing test runs its servers on.
    static let postgresURL = ProcessInfo.processInfo.environment["WHEREABOUTS_TEST_POSTGRES_URL"]
        ?? "postgres://whereabouts:whereabouts@127.0.0.1:5432/whereabouts_test"

    /// Two servers on one broker and one PostgreSQL share the tags by a hash of their names
    /// (`--shard 1/2` and `2/2`): every tag is located, each by the one server its hash names
    /// (its events are that server's feed's), and no fix is made twice.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["WHEREABOUTS_TEST_POSTGRES_URL"] != nil
                   || ProcessInfo.processInfo.environment["CI"] != nil, "no PostgreSQL to share (set WHEREABOUTS_TEST_POSTGRES_URL)"))
    func twoServersShareOneBrokersTagsByHash() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.remove() }
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = try FuseCommandTests.write(FuseCommandTests.venueJSON, to: "venue.json", in: directory)
        let database = ["--database", Self.postgresURL]
        let user = "shared-" + String(UUID().uuidString.lowercased().prefix(8))
        let added = try await CommandRunner.run(["users", "add", user] + database)
        try #require(added.status == 0, "\(added.standardError)")
        let token = added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)

        // Six tags: anna (the venue names her) and five by their identity; the shard each belongs to.
        let ids = (1...6).map { "iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-7-\($0)" }
        let naming = ReceiverFusion(venue: try VenueFile.decode(Array(FuseCommandTests.venueJSON.utf8)))
        var shardOfStream: [String: Int] = [:]
        for id in ids {
            let name = naming.tagName(for: ESPresenseInput.tag(forId: id))
            shardOfStream[TagTracking.streamId(ofTag: name)] = TagShard.index(ofTag: name, count: 2)
        }
        try #require(Set(shardOfStream.values) == [1, 2], "the six tags all hash to one shard")

        let servers = try [1, 2].map { index in
            try ServerCommandTests.ServerProcess(store: database, arguments: [
                "--venue", venue, "--mqtt", broker.url(), "--mqtt-user", user, "--shard", "\(index)/2", "--tag-exit-timeout", "2"])
        }
        defer { for server in servers where server.process.isRunning { server.process.terminate() } }
        for server in servers { try await server.waitUntilReady() }

        let publisher = MQTTClient(configuration: try MQTTConfiguration(url: broker.url()))
        let run = Task { try await publisher.run() }
        defer { run.cancel() }
        let loudness = ["node1": -55, "node2": -72, "node3": -78, "node4": -72]
        let sending = Task {
            while !Task.isCancelled {
                for (node, rssi) in loudness.sorted(by: { $0.key < $1.key }) {
                    for id in ids {
                        try await publisher.publish(MQTTMessage(topic: "espresense/devices/\(id)/\(node)", payload: "{\"id\":\"\(id)\",\"rssi\":\(rssi)}"))
                    }
                }
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        defer { sending.cancel() }

        // Each tag's events, by stream, read from the first server (the store is shared).
        func events() async throws -> [String: [[String: Any]]] {
            let answer = try await ServerCommandTests.send("GET", "http://127.0.0.1:\(servers[0].port)/events?streams[]=tags&limit=10000", token: token)
            let json = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any]
            var byStream: [String: [[String: Any]]] = [:]
            for event in json?["events"] as? [[String: Any]] ?? [] {
                guard let stream = (event["streamIds"] as? [String])?.first else { continue }
                byStream[stream, default: []].append(event)
            }
            return byStream
        }
        let everyTagLocated = try await Self.waitFor(LiveCommandTests.startup) {
            guard let byStream = try? await events() else { return false }
            return shardOfStream.keys.allSatisfy { stream in
                (byStream[stream] ?? []).filter { $0["type"] as? String == "position/local" }.count >= 3
            }
        }
        sending.cancel()
        let located = (try? await events())?.mapValues(\.count) ?? [:]
        try #require(everyTagLocated, "not every tag was located: \(located)")
        // What the fusions still hold falls due a lateness after the last report.
        try await Task.sleep(for: .seconds(2))
        let byStream = try await events()
        for server in servers { #expect(server.stop(with: SIGTERM) == 0) }
        #expect(Set(byStream.keys) == Set(shardOfStream.keys))
        for (stream, shard) in shardOfStream {
            let tagEvents = byStream[stream] ?? []
            let authors = Set(tagEvents.compactMap { $0["createdBy"] as? String })
            #expect(authors == ["mqtt-bridge-\(shard)of2"], "\(stream): made by \(authors)")
            let times = tagEvents.filter { $0["type"] as? String == "position/local" }.compactMap { $0["time"] as? Double }
            #expect(Set(times).count == times.count, "\(stream): a fix made twice")
        }
    }
}
