import Foundation
import Testing
import WhereaboutsMQTT
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
        let watcher = MQTTClient(configuration: try MQTTConfiguration(url: url))
        let publisher = MQTTClient(configuration: try MQTTConfiguration(url: url))
        let runs = [Task { try await watcher.run() }, Task { try await publisher.run() }]
        defer { for run in runs { run.cancel() } }
        try await watcher.subscribe(to: ["espresense/companion/#", "homeassistant/#"])
        let inbox = Inbox()
        let collecting = Task { for await message in watcher.messages { await inbox.add(message) } }
        defer { collecting.cancel() }

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
        #expect(bridge.waitForLine(containing: "\"device\":\"anna\"", limit: .seconds(60)) != nil)

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
}
