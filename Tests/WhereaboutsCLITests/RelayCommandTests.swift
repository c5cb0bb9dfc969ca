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
    /// and a lateness (3.5 s) of its first report, it enters the room, and it leaves the exit
    /// timeout (2 s) and at most a second after its last report.
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
        func report(_ receiver: String, _ tag: String) -> String {
            "{\"t\": \(String(format: "%.3f", Date().timeIntervalSince1970)), \"device\": \"\(receiver)\", \"readings\": [{\"beacon\": \"\(tag)\", \"rssi\": -65}]}"
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

        // Then anna, heard by all four nodes a quarter of a second apart, for four seconds.
        let first = ContinuousClock.now
        var last = first
        let hearing = Task {
            for _ in 0..<4 {
                for node in 1...4 {
                    last = ContinuousClock.now
                    relay.send(report("node\(node)", "anna"))
                    try await Task.sleep(for: .milliseconds(250))
                }
            }
            return last
        }
        let located = try await Self.waitForEvents(url, token: personal, limit: .seconds(20)) { events in
            events.contains { Self.isEvent($0, type: "position/local", tag: "anna") }
        }
        let firstFix = try #require(located, "anna was never located")
        // The window and a lateness, and what polling adds (50 ms a poll).
        #expect(firstFix - first <= .milliseconds(3_700), "anna's first position \(firstFix - first) after her first report")
        let lastReport = try await hearing.value
        let left = try await Self.waitForEvents(url, token: personal, limit: .seconds(20)) { events in
            events.contains { Self.isEvent($0, type: "place/exit", tag: "anna") }
        }
        let exit = try #require(left, "anna never left the room")
        #expect(exit - lastReport <= .milliseconds(3_200), "anna left \(exit - lastReport) after her last report (timeout 2 s)")
        #expect(exit - lastReport >= .seconds(1), "anna left \(exit - lastReport) after her last report (timeout 2 s)")
        let events = try await Self.tagEvents(url, token: personal)
        #expect(events.contains { Self.isEvent($0, type: "place/enter", tag: "anna") })
        #expect(relay.close() == 0)
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
