import Foundation
import Testing
import WhereaboutsServerTesting
import WhereaboutsTracking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `whereabouts track`, `sync`, `note` and `events` as a user runs them, against a real
/// `whereabouts serve`.
@Suite("Tracking commands", .serialized)
struct TrackingCommandTests {
    /// A data folder with one user, and its token.
    private static func user(_ name: String, in dataDir: URL) async throws -> String {
        let added = try await CommandRunner.run(["users", "add", name, "--data-dir", dataDir.path])
        return added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func connection(_ port: Int, _ token: String, _ outbox: URL) -> [String] {
        server(port, token) + ["--outbox", outbox.path]
    }

    private static func server(_ port: Int, _ token: String) -> [String] {
        ["--server", "http://127.0.0.1:\(port)", "--token", token]
    }

    /// The `new events` count in track's summary.
    private static func newEvents(in text: String) -> Int? {
        guard let range = text.range(of: #"(\d+) new events?"#, options: .regularExpression) else { return nil }
        return Int(text[range].split(separator: " ").first ?? "")
    }

    @Test("track delivers the example's events; events reads them back; a second run of the same replay adds nothing")
    func trackExample() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dataDir = folder.appendingPathComponent("data"), outbox = folder.appendingPathComponent("outbox.sqlite")
        let token = try await Self.user("ann", in: dataDir)
        let server = try ServerCommandTests.ServerProcess(dataDir: dataDir)
        try await server.waitUntilReady()
        defer { _ = server.stop(with: SIGTERM) }

        let tracked = try await CommandRunner.run(["track", "--venue", "Examples/venue.json", "--recording", "Examples/visit.jsonl"]
                                            + Self.connection(server.port, token, outbox))
        #expect(tracked.status == 0, "\(tracked.standardError)")
        #expect(tracked.standardError.contains("Tracked 625 fixes"))
        #expect(tracked.standardError.contains("for ann at http://127.0.0.1:\(server.port): the server has everything"))
        let created = try #require(Self.newEvents(in: tracked.standardError))
        #expect(created > 5)

        let listed = try await CommandRunner.run(["events", "--from", "2023-11-14", "--to", "2023-11-16", "--json"]
                                           + Self.server(server.port, token))
        #expect(listed.status == 0, "\(listed.standardError)")
        let lines = listed.standardOutput.split(separator: "\n")
        #expect(lines.count == created)
        #expect(lines.allSatisfy { $0.contains(#""type":"position/wgs84""#) && $0.contains(#""horizontalAccuracy""#) })
        let text = try await CommandRunner.run(["events", "--from", "2023-11-14", "--to", "2023-11-16"]
                                         + Self.server(server.port, token))
        #expect(text.standardOutput.hasPrefix("2023-11-14T22:13:20Z"), "\(text.standardOutput.prefix(200))")
        // The last 24 hours hold nothing of a visit of 2023: the command says where it is.
        let recent = try await CommandRunner.run(["events"] + Self.server(server.port, token))
        #expect(recent.standardError.contains("0 events.\nNothing in the last 24 hours; the latest is from 2023-11-14T22:"),
                "\(recent.standardError)")
        #expect(recent.standardError.contains(": try --from 2023-11-14 --to 2023-11-15."))
        // The latest, not the oldest: the time of the last event listed.
        let lastListed = try #require(text.standardOutput.split(separator: "\n").last?.prefix(20))
        #expect(lastListed != "2023-11-14T22:13:20Z")
        #expect(recent.standardError.contains("the latest is from \(lastListed)"), "\(lastListed): \(recent.standardError)")

        let again = try await CommandRunner.run(["track", "--venue", "Examples/venue.json", "--recording", "Examples/visit.jsonl"]
                                          + Self.connection(server.port, token, outbox))
        #expect(again.status == 0)
        #expect(again.standardError.contains("tracked") && again.standardError.contains("--again"))
        let after = try await CommandRunner.run(["events", "--from", "2023-11-14", "--to", "2023-11-16", "--json"]
                                          + Self.server(server.port, token))
        #expect(after.standardOutput.split(separator: "\n").count == created)
    }

    @Test("With the server down, track queues; sync fails until it is back, then delivers and exits 0")
    func offlineThenSync() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dataDir = folder.appendingPathComponent("data"), outbox = folder.appendingPathComponent("outbox.sqlite")
        let token = try await Self.user("bob", in: dataDir)
        let port = try ServerCommandTests.ServerProcess.freePort()

        let tracked = try await CommandRunner.run(["track", "--venue", "Examples/venue.json", "--recording", "Examples/visit.jsonl",
                                             "--wait", "0"] + Self.connection(port, token, outbox))
        #expect(tracked.status == 0, "\(tracked.standardError)")
        #expect(tracked.standardError.contains("did not answer"))
        #expect(tracked.standardError.contains("`whereabouts sync` delivers them"))
        let created = try #require(Self.newEvents(in: tracked.standardError))

        let status = try await CommandRunner.run(["sync", "--status", "--outbox", outbox.path])
        #expect(status.status == 0)
        #expect(status.standardOutput.contains("holds \(created) items to deliver (\(created) new events, 0 duration updates)"))

        let failed = try await CommandRunner.run(["sync", "--wait", "0"] + Self.connection(port, token, outbox))
        #expect(failed.status == 1)

        let server = try ServerCommandTests.ServerProcess(dataDir: dataDir, port: port)
        try await server.waitUntilReady()
        defer { _ = server.stop(with: SIGTERM) }
        let synced = try await CommandRunner.run(["sync"] + Self.connection(port, token, outbox))
        #expect(synced.status == 0, "\(synced.standardError)")
        #expect(synced.standardError.contains("The server took \(created) items"))
        let listed = try await CommandRunner.run(["events", "--from", "0", "--json"] + Self.server(port, token))
        #expect(listed.standardOutput.split(separator: "\n").count == created)
    }

    @Test("With a refused token, track keeps positioning and queueing, says why, and exits 1")
    func badToken() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dataDir = folder.appendingPathComponent("data"), outbox = folder.appendingPathComponent("outbox.sqlite")
        _ = try await Self.user("cat", in: dataDir)
        let server = try ServerCommandTests.ServerProcess(dataDir: dataDir)
        try await server.waitUntilReady()
        defer { _ = server.stop(with: SIGTERM) }
        let tracked = try await CommandRunner.run(["track", "--venue", "Examples/venue.json", "--recording", "Examples/visit.jsonl"]
                                            + Self.connection(server.port, "wrong-token", outbox))
        #expect(tracked.status == 1)
        #expect(tracked.standardError.contains("refused the token"))
        #expect(tracked.standardError.contains("Tracked 625 fixes"))
        let status = try await CommandRunner.run(["sync", "--status", "--outbox", outbox.path])
        #expect(!status.standardOutput.contains("the server has everything"))
    }

    @Test("note sends a note and a picture; events shows them; bad input is refused before anything is queued")
    func notes() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dataDir = folder.appendingPathComponent("data"), outbox = folder.appendingPathComponent("outbox.sqlite")
        let token = try await Self.user("dan", in: dataDir)
        let server = try ServerCommandTests.ServerProcess(dataDir: dataDir)
        try await server.waitUntilReady()
        defer { _ = server.stop(with: SIGTERM) }
        let connection = Self.connection(server.port, token, outbox)

        let note = try await CommandRunner.run(["note", "Arrived at the library"] + connection)
        #expect(note.status == 0, "\(note.standardError)")
        let picturePath = folder.appendingPathComponent("view.png")
        try Data(repeating: 1, count: 2_000).write(to: picturePath)
        let picture = try await CommandRunner.run(["note", "The view", "--picture", picturePath.path] + connection)
        #expect(picture.status == 0, "\(picture.standardError)")
        let listed = try await CommandRunner.run(["events"] + Self.server(server.port, token))
        #expect(listed.status == 0)
        #expect(listed.standardOutput.contains("note/txt  position  Arrived at the library"))
        #expect(listed.standardOutput.contains("picture/attached  position  view.png"))

        let noToken = try await CommandRunner.run(["note", "x", "--server", "http://127.0.0.1:\(server.port)", "--outbox", outbox.path])
        #expect(noToken.status != 0 && noToken.standardError.contains("WHEREABOUTS_TOKEN"))
        let status = try await CommandRunner.run(["sync", "--status", "--outbox", outbox.path])
        #expect(status.standardOutput.contains("Nothing waits in the outbox"))
    }

    @Test("note refuses a picture that is not there before anything is queued")
    func noteWithAMissingPicture() {
        let missing = InProcessCommand.parse(["note", "x", "--picture", "/no/such.png", "--server", "http://127.0.0.1:8080",
                                              "--token", "t", "--outbox", "outbox.sqlite"])
        #expect(missing.status == 64 && missing.standardError.contains("no such file"))
    }

    @Test("A replay tracked to one server is new to another server and to another user; --again still sends it twice")
    func resumesPerServerAndUser() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outbox = folder.appendingPathComponent("outbox.sqlite")
        let firstData = folder.appendingPathComponent("first"), secondData = folder.appendingPathComponent("second")
        let ann = try await Self.user("ann", in: firstData), bea = try await Self.user("bea", in: firstData)
        let dan = try await Self.user("dan", in: secondData)
        let first = try ServerCommandTests.ServerProcess(dataDir: firstData)
        try await first.waitUntilReady()
        defer { _ = first.stop(with: SIGTERM) }
        let second = try ServerCommandTests.ServerProcess(dataDir: secondData)
        try await second.waitUntilReady()
        defer { _ = second.stop(with: SIGTERM) }
        let visit = ["track", "--venue", "Examples/venue.json", "--recording", "Examples/visit.jsonl"]
        func count(_ port: Int, _ token: String) async throws -> Int {
            let listed = try await CommandRunner.run(["events", "--from", "2023-11-14", "--to", "2023-11-16", "--json"] + Self.server(port, token))
            return listed.standardOutput.split(separator: "\n").count
        }

        let tracked = try await CommandRunner.run(visit + Self.connection(first.port, ann, outbox))
        #expect(tracked.status == 0, "\(tracked.standardError)")
        let created = try #require(Self.newEvents(in: tracked.standardError))
        #expect(try await count(first.port, ann) == created)

        // The same outbox, a brand-new server: it gets the whole visit.
        let elsewhere = try await CommandRunner.run(visit + Self.connection(second.port, dan, outbox))
        #expect(elsewhere.status == 0, "\(elsewhere.standardError)")
        #expect(Self.newEvents(in: elsewhere.standardError) == created, "\(elsewhere.standardError)")
        #expect(elsewhere.standardError.contains("for dan at http://127.0.0.1:\(second.port): the server has everything"))
        #expect(try await count(second.port, dan) == created)
        // Another user of the first server: new to them too.
        let otherUser = try await CommandRunner.run(visit + Self.connection(first.port, bea, outbox))
        #expect(otherUser.status == 0, "\(otherUser.standardError)")
        #expect(try await count(first.port, bea) == created)
        // Each destination resumes on its own: nothing is sent twice without --again.
        let repeated = try await CommandRunner.run(visit + Self.connection(second.port, dan, outbox))
        #expect(repeated.status == 0)
        #expect(repeated.standardError.contains("was tracked to its end for dan at http://127.0.0.1:\(second.port) already"),
                "\(repeated.standardError)")
        #expect(try await count(second.port, dan) == created)
        let again = try await CommandRunner.run(visit + ["--again"] + Self.connection(second.port, dan, outbox))
        #expect(again.status == 0)
        #expect(try await count(second.port, dan) == 2 * created)
        #expect(try await count(first.port, ann) == created)
    }

    @Test("A refused token exits 1 even for a replay tracked before; the right token then takes its queue over, once")
    func refusedTokenAfterTracking() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dataDir = folder.appendingPathComponent("data"), outbox = folder.appendingPathComponent("outbox.sqlite")
        let token = try await Self.user("eve", in: dataDir)
        let server = try ServerCommandTests.ServerProcess(dataDir: dataDir)
        try await server.waitUntilReady()
        defer { _ = server.stop(with: SIGTERM) }
        let visit = ["track", "--venue", "Examples/venue.json", "--recording", "Examples/visit.jsonl", "--wait", "2"]
        let tracked = try await CommandRunner.run(visit + Self.connection(server.port, token, outbox))
        #expect(tracked.status == 0, "\(tracked.standardError)")
        let created = try #require(Self.newEvents(in: tracked.standardError))

        let refused = try await CommandRunner.run(visit + Self.connection(server.port, "wrong-token", outbox))
        #expect(refused.status == 1, "\(refused.standardError)")
        #expect(refused.standardError.contains("refused the token"))
        #expect(!refused.standardError.contains("nothing new to track"), "\(refused.standardError)")
        #expect(!refused.standardError.contains("the server has everything"), "\(refused.standardError)")

        // The right token: what the refused one queued was the same user's visit, already there.
        let right = try await CommandRunner.run(["sync", "--wait", "2"] + Self.connection(server.port, token, outbox))
        #expect(right.status == 0, "\(right.standardError)")
        let listed = try await CommandRunner.run(["events", "--from", "2023-11-14", "--to", "2023-11-16", "--json"]
                                           + Self.server(server.port, token))
        #expect(listed.standardOutput.split(separator: "\n").count == 2 * created)
    }
}

@Suite("Empty recordings")
struct EmptyRecordingTests {
    @Test("locate, rank, watch and track say that an empty recording holds no scans, and fail")
    func emptyRecording() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty.jsonl")
        try Data("\n\n".utf8).write(to: empty)
        let runs: [(String, [String])] = [
            ("locate", ["locate", "--venue", "Examples/venue.json", "--recording", empty.path]),
            ("rank", ["rank", "--venue", "Examples/venue.json", "--recording", empty.path]),
            ("watch", ["watch", "--venue", "Examples/venue.json", "--recording", empty.path]),
            ("track", ["track", "--venue", "Examples/venue.json", "--recording", empty.path, "--server", "http://127.0.0.1:1",
                       "--token", "t", "--outbox", folder.appendingPathComponent("outbox.sqlite").path, "--wait", "0"]),
        ]
        for (task, arguments) in runs {
            let run = try await CommandRunner.run(arguments)
            #expect(run.status == 1, "\(task): \(run.standardError)")
            #expect(run.standardError.contains("\(empty.path): the recording holds no scans; nothing to \(task)."), "\(run.standardError)")
        }
    }
}

@Suite("Live tracking through a pipe")
struct LiveTrackingTests {
    /// How long `track` may take to start and deliver its first part: a debug build on a busy
    /// machine can take minutes. Not what is measured.
    static let startup = Duration.seconds(600)

    /// The events the server holds for a token.
    static func eventCount(port: Int, token: String) async throws -> Int {
        try await events(port: port, token: token)?.count ?? -1
    }

    /// The events the server holds for a token, oldest first, as JSON objects.
    static func events(port: Int, token: String) async throws -> [[String: Any]]? {
        let answer = try await ServerCommandTests.send("GET", "http://127.0.0.1:\(port)/events?limit=10000&sortAscending=true", token: token)
        guard answer.status == 200,
              let object = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any],
              let events = object["events"] as? [[String: Any]] else {
            Issue.record("GET /events answered \(answer.status): \(answer.text.prefix(200))")
            return nil
        }
        return events
    }

    /// The server and `track` run as processes of their own, so that what is measured is theirs,
    /// not how busy this test process is.
    @Test("track --recording - delivers each accepted event within 2 s, while the pipe stays open")
    func pipeStaysOpen() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dataDir = folder.appendingPathComponent("data")
        var tokens: [String: String] = [:]
        for user in ["eve", "ref0", "ref1", "ref2", "ref3"] {
            let added = try await CommandRunner.run(["users", "add", user, "--data-dir", dataDir.path])
            #expect(added.status == 0, "\(added.standardError)")
            tokens[user] = added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let server = try ServerCommandTests.ServerProcess(dataDir: dataDir)
        defer { _ = server.stop(with: SIGTERM) }
        try await server.waitUntilReady()
        let url = "http://127.0.0.1:\(server.port)"

        // The visit's first 120 scans, in parts. What each prefix makes is known from a replay
        // of it (the same policy decides a replay and a pipe alike), and so is what locating a
        // part costs on this machine as loaded as it is now: the replays' difference in time.
        let lines = try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent("Examples/visit.jsonl"), encoding: .utf8)
            .split(separator: "\n").prefix(120).map(String.init)
        let ends = [1, 40, 80, 120]
        var expected: [Int] = []
        var replayTimes: [Duration] = []
        for (index, end) in ends.enumerated() {
            let file = folder.appendingPathComponent("prefix\(end).jsonl")
            try Data((lines[..<end].joined(separator: "\n") + "\n").utf8).write(to: file)
            let user = "ref\(index)"
            let started = ContinuousClock.now
            let replay = try await CommandRunner.run(["track", "--venue", "Examples/venue.json", "--recording", file.path, "--server", url,
                                                "--token", tokens[user] ?? "",
                                                "--outbox", folder.appendingPathComponent("\(user).sqlite").path])
            #expect(replay.status == 0, "\(replay.standardError)")
            replayTimes.append(ContinuousClock.now - started)
            expected.append(try await Self.eventCount(port: server.port, token: tokens[user] ?? ""))
        }
        #expect(expected.last ?? 0 > 1)

        let process = Process()
        process.executableURL = CommandRunner.productsDirectory.appendingPathComponent("whereabouts")
        process.arguments = ["track", "--venue", "Examples/venue.json", "--recording", "-", "--server", url,
                             "--token", tokens["eve"] ?? "", "--outbox", folder.appendingPathComponent("outbox.sqlite").path, "--wait", "5"]
        process.currentDirectoryURL = CommandRunner.packageRoot
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // Each accepted event and duration update waits in the outbox from when `track` queued it
        // (its own clock, stamped in the item) until the server has it: at most 2 s, however
        // long locating a part takes on a busy machine.
        let outboxPath = folder.appendingPathComponent("outbox.sqlite").path
        var outbox: Outbox?
        var longestWait = 0.0
        func watchOutbox() async throws {
            if outbox == nil, FileManager.default.fileExists(atPath: outboxPath) { outbox = try Outbox(path: outboxPath) }
            let now = Date().timeIntervalSince1970
            for item in try await outbox?.pendingItems(limit: 1000) ?? [] { longestWait = max(longestWait, now - item.queuedAt) }
        }
        var sent = 0
        for (index, end) in ends.enumerated() {
            input.fileHandleForWriting.write(Data((lines[sent..<end].joined(separator: "\n") + "\n").utf8))
            sent = end
            // The first part also waits for the command to start (load the venue, reach the server);
            // the others for their 40 scans to be located, which a debug build on a busy machine
            // does slowly (not what the 2 s are about).
            let locating = index == 0 ? Duration.zero : max(.zero, replayTimes[index] - replayTimes[index - 1])
            let deadline = ContinuousClock.now + (index == 0 ? Self.startup : .seconds(60) + locating * 4)
            var count = try await Self.eventCount(port: server.port, token: tokens["eve"] ?? "")
            while count < expected[index], ContinuousClock.now < deadline {
                try await watchOutbox()
                try await Task.sleep(for: .milliseconds(50))
                count = try await Self.eventCount(port: server.port, token: tokens["eve"] ?? "")
            }
            try await watchOutbox()
            #expect(count == expected[index], "after scans 1-\(end), the server holds \(count) events, not \(expected[index])")
        }
        #expect(longestWait <= 2, "an accepted change waited \(longestWait) s in the outbox while the server was up")
        #expect(process.isRunning, "track ended while its input was open")
        try input.fileHandleForWriting.close()
        await DedicatedThread.waitUntilExit(process)
        #expect(process.terminationStatus == 0)
        // Everything accepted had arrived before the pipe closed, durations included: the same
        // events, each as long, as the replay of the same 120 scans made.
        let piped = try await Self.events(port: server.port, token: tokens["eve"] ?? "") ?? []
        let replayed = try await Self.events(port: server.port, token: tokens["ref3"] ?? "") ?? []
        #expect(piped.count == expected.last)
        let durations = { (events: [[String: Any]]) in events.map { ($0["duration"] as? Double) ?? -1 } }
        #expect(durations(piped) == durations(replayed), "durations \(durations(piped)) against the replay's \(durations(replayed))")
        #expect(durations(replayed).contains { $0 > 0 }, "the replay extended no event: the durations say nothing")
    }
}
