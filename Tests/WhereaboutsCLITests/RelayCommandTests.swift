import Foundation
import Testing

/// `whereabouts relay` to a real `whereabouts serve` with a venue of fixed receivers: the reports
/// of a pipe reach the server, which locates the tag and stores its positions and places.
@Suite("relay", .serialized)
struct RelayCommandTests {
    /// The user's events in the tags' streams (`GET /events?streams[]=tags`), each as a dictionary.
    static func tagEvents(_ url: String, token: String) async throws -> [[String: Any]] {
        let answer = try await ServerCommandTests.send("GET", url + "/events?streams[]=tags&limit=1000&sortAscending=true", token: token)
        let json = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any]
        return json?["events"] as? [[String: Any]] ?? []
    }

    /// Polls the tags' events until `ready` holds (at most `limit`); returns when it held.
    static func waitForEvents(_ url: String, token: String, limit: Duration,
                              until ready: ([[String: Any]]) -> Bool) async throws -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if ready(try await tagEvents(url, token: token)) { return ContinuousClock.now }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    static func isEvent(_ event: [String: Any], type: String, tag: String) -> Bool {
        event["type"] as? String == type && (event["streamIds"] as? [String])?.first == "tag-\(tag)"
    }

    /// A tag's reports through the relay: its first position is on the server within the window
    /// and half a second (3.5 s) of its first report, it enters the room, and it leaves within the
    /// exit timeout (2 s) and a second of its last report. (That it leaves no earlier than the
    /// timeout after its last located scan is checked exactly, on a test clock, by the server's
    /// `ReceiverReportsTests`.)
    @Test func aPipeOfReportsLocatesTheTagOnTheServer() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = directory.appendingPathComponent("venue.json")
        try Data(FuseCommandTests.venueJSON.utf8).write(to: venue)
        let dataDir = directory.appendingPathComponent("data")
        let personal = try await CommandRunner.run(["users", "add", "rita", "--data-dir", dataDir.path]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let issued = try await CommandRunner.run(["users", "token", "rita", "--name", "gateway", "--stream", "receivers",
                                            "--level", "contribute", "--data-dir", dataDir.path])
        #expect(issued.status == 0, "\(issued.standardError)")
        let relayToken = issued.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServerCommandTests.ServerProcess(dataDir: dataDir, arguments: ["--venue", venue.path, "--tag-exit-timeout", "2"])
        try await server.waitUntilReady()
        defer { _ = server.stop(with: SIGTERM) }
        let url = "http://127.0.0.1:\(server.port)/rita"

        let relay = try LiveCommandTests.LiveProcess(["relay", "--recording", "-", "--server", url, "--token", relayToken])
        defer { if relay.process.isRunning { relay.process.terminate() } }
        func report(_ receiver: String, _ tag: String, at time: Double = Date().timeIntervalSince1970) -> String {
            "{\"t\": \(String(format: "%.3f", time)), \"device\": \"\(receiver)\", \"readings\": [{\"beacon\": \"\(tag)\", \"rssi\": -65}]}"
        }
        // A first tag, until the server has its position (a debug build takes a while to start).
        let warmUp = Task {
            while !Task.isCancelled {
                relay.send(report("node1", "warm-up"))
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        let warm = try await Self.waitForEvents(url, token: personal, limit: LiveCommandTests.startup) { events in
            events.contains { Self.isEvent($0, type: "position/local", tag: "warm-up") }
        }
        warmUp.cancel()
        try #require(warm != nil, "the warm-up tag never reached the server")

        // Then anna, heard by all four nodes a quarter of a second apart, for four seconds. The
        // latencies are the server's own (an event's `created` against the report's stamp), not
        // this test's polling, whose tasks may wait for a thread on a loaded machine.
        var stamps: [Double] = []
        for _ in 0..<4 {
            for node in 1...4 {
                stamps.append(Date().timeIntervalSince1970)
                relay.send(report("node\(node)", "anna", at: stamps[stamps.count - 1]))
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        let left = try await Self.waitForEvents(url, token: personal, limit: .seconds(300)) { events in
            events.contains { Self.isEvent($0, type: "place/exit", tag: "anna") }
        }
        try #require(left != nil, "anna never left the room")
        let events = try await Self.tagEvents(url, token: personal)
        let positions = events.filter { Self.isEvent($0, type: "position/local", tag: "anna") }
        let firstStored = try #require(positions.compactMap { $0["created"] as? Double }.min(), "anna was never located")
        let exitStored = try #require(events.first { Self.isEvent($0, type: "place/exit", tag: "anna") }?["created"] as? Double)
        let first = try #require(stamps.first), last = try #require(stamps.last)
        // The window and half a second (3.5 s) after her first report; the exit timeout (2 s) and a
        // second after her last.
        #expect(firstStored - first <= 3.5, "anna's first position stored \(firstStored - first) s after her first report")
        #expect(exitStored - last <= 3, "anna's exit stored \(exitStored - last) s after her last report")
        #expect(events.contains { Self.isEvent($0, type: "place/enter", tag: "anna") })
        #expect(await relay.close() == 0)
    }

    /// A file would arrive at once, and a token without the grant takes nothing: both fail clearly.
    @Test func aFileAndAWrongTokenAreRefused() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("reports.jsonl")
        try Data("{\"t\": 1, \"device\": \"node1\", \"readings\": []}\n".utf8).write(to: file)
        let fromFile = try await CommandRunner.run(["relay", "--recording", file.path, "--server", "http://127.0.0.1:9", "--token", "t"])
        #expect(fromFile.status == 1)
        #expect(fromFile.standardError.contains("is a file"))

        let venue = directory.appendingPathComponent("venue.json")
        try Data(FuseCommandTests.venueJSON.utf8).write(to: venue)
        let dataDir = directory.appendingPathComponent("data")
        _ = try await CommandRunner.run(["users", "add", "sam", "--data-dir", dataDir.path])
        let reader = try await CommandRunner.run(["users", "token", "sam", "--name", "reader", "--stream", "receivers",
                                                  "--level", "read", "--data-dir", dataDir.path]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServerCommandTests.ServerProcess(dataDir: dataDir, arguments: ["--venue", venue.path])
        try await server.waitUntilReady()
        defer { _ = server.stop(with: SIGTERM) }
        let now = String(format: "%.3f", Date().timeIntervalSince1970)
        let refused = try await CommandRunner.run(
            ["relay", "--recording", "-", "--server", "http://127.0.0.1:\(server.port)/sam", "--token", reader, "--wait", "2"],
            input: Data("{\"t\": \(now), \"device\": \"node1\", \"readings\": [{\"beacon\": \"anna\", \"rssi\": -60}]}\n".utf8))
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("the server took 0, refused 1"))
        #expect(refused.standardError.contains("--stream receivers --level contribute"))
    }
}
