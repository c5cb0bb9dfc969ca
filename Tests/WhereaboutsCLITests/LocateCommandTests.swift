import Foundation
import Testing

@Suite("whereabouts locate")
struct LocateCommandTests {
    /// The fixes of a fixes file or output, parsed.
    private func fixes(_ text: String) throws -> [[String: Any]] {
        var parsed: [[String: Any]] = []
        for line in text.split(separator: "\n") {
            parsed.append(try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
        }
        return parsed
    }

    @Test func helpHasExamples() {
        let output = InProcessCommand.parse(["locate", "--help"])
        #expect(output.status == 0)
        #expect(output.standardOutput.contains("\nExamples:\n"))
        #expect(output.standardOutput.contains("whereabouts locate --venue"))
    }

    @Test func writesOneFixPerScanWithFiniteNumbers() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let out = room.directory.appendingPathComponent("fixes.jsonl")
        let output = try await CommandRunner.run(["locate", "--venue", room.venue.path, "--recording", room.recording.path, "-o", out.path])
        #expect(output.status == 0, "\(output.standardError)")
        let scans = try room.scans()
        let lines = try fixes(String(contentsOf: out, encoding: .utf8))
        #expect(lines.count == scans.count)
        #expect(output.standardError.contains("Wrote \(out.path): \(scans.count) fixes of \(scans.count) scans"))
        for (fix, scan) in zip(lines, scans) {
            #expect(fix["t"] as? Double == scan["t"] as? Double)
            #expect(fix["device"] as? String == "phone")
            for key in ["x", "y", "z", "accuracy"] {
                let value = try #require(fix[key] as? Double, "\(key)")
                #expect(value.isFinite)
            }
            #expect(fix["floor"] as? Int == 0)
            #expect(fix["method"] as? String == "default")
            let beacons = try #require(fix["beacons"] as? [String])
            #expect(!beacons.isEmpty && beacons.allSatisfy { $0.hasPrefix("node") })
            #expect(fix["latitude"] == nil && fix["longitude"] == nil)   // the venue has no origin
            // Within the venue's bounds: the 6 × 4 m room plus the solvers' 2 m margin.
            #expect((-2...8).contains(fix["x"] as? Double ?? -9) && (-2...6).contains(fix["y"] as? Double ?? -9))
        }
    }

    /// Online, smoothed (the whole track) or 2 s late, each fix has its posterior's places: the
    /// posterior smooths with its own model (the tracking model's smoothers would leave none).
    @Test(arguments: [[], ["--smooth"], ["--lag", "2"]])
    func thePosteriorsFixesCarryEachPlacesProbability(smoothing: [String]) async throws {
        // The preset's walk in its room cut into three (Fixtures/three-rooms).
        let room = try await RoomFixture()
        defer { room.remove() }
        let venue = "Fixtures/three-rooms/venue.json"
        let output = try await CommandRunner.run(["locate", "--venue", venue, "--recording", room.recording.path,
                                            "--algorithm", "posterior", "--quiet"] + smoothing)
        #expect(output.status == 0, "\(output.standardError)")
        let lines = try fixes(output.standardOutput)
        let scans = try room.scans()
        #expect(lines.count == scans.count)
        #expect(zip(lines, scans).allSatisfy { $0["t"] as? Double == $1["t"] as? Double })
        var mostProbable: [String] = []
        for fix in lines {
            let places = try #require(fix["places"] as? [[String: Any]], "\(fix)")
            let probabilities = places.compactMap { $0["probability"] as? Double }
            #expect(probabilities.count == places.count && probabilities.allSatisfy { $0 > 0 && $0 <= 1 })
            #expect(probabilities.reduce(0, +) <= 1.0001 && probabilities == probabilities.sorted(by: >))
            #expect(places.allSatisfy { ["west", "middle", "east"].contains($0["id"] as? String ?? "") })
            if let first = places.first?["id"] as? String { mostProbable.append(first) }
        }
        // The walk goes through all three rooms.
        #expect(Set(mostProbable) == ["west", "middle", "east"])
        // The default algorithm holds no posterior: no places.
        let plain = try await CommandRunner.run(["locate", "--venue", venue, "--recording", room.recording.path, "--quiet"])
        #expect(try fixes(plain.standardOutput).allSatisfy { $0["places"] == nil })
    }

    @Test func smoothingWritesEveryFixOfTheTrackInOrder() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let output = try await CommandRunner.run(["locate", "--venue", room.venue.path, "--recording", room.recording.path,
                                            "--rssi-filter", "none", "--tracking", "stop-and-go", "--smooth"])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = try fixes(output.standardOutput)
        let scans = try room.scans()
        #expect(lines.count == scans.count)
        for (fix, scan) in zip(lines, scans) {
            #expect(fix["t"] as? Double == scan["t"] as? Double)
            #expect((fix["x"] as? Double)?.isFinite == true && (fix["accuracy"] as? Double ?? 0) > 0)
        }
    }

    /// A live scan never ends, so there is nothing to smooth.
    @Test func smoothingALiveScanIsRefused() {
        let live = InProcessCommand.parse(["locate", "--venue", "venue.json", "--adapter", "hci0", "--smooth"])
        #expect(live.status == 64)
        #expect(live.standardError.contains("needs a recording or a capture"))
    }

    @Test func aLagWritesEveryFixThatLateAndNoLagIsTheTracker() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let tracked = ["--rssi-filter", "none", "--tracking", "stop-and-go"]
        func run(_ extra: [String]) async throws -> [[String: Any]] {
            let output = try await CommandRunner.run(["locate", "--venue", room.venue.path, "--recording", room.recording.path] + tracked + extra)
            #expect(output.status == 0, "\(output.standardError)")
            return try fixes(output.standardOutput)
        }
        let online = try await run([]), immediate = try await run(["--lag", "0"]), late = try await run(["--lag", "1"])
        let scans = try room.scans()
        #expect(late.count == scans.count && immediate.count == scans.count)
        for (fix, scan) in zip(late, scans) { #expect(fix["t"] as? Double == scan["t"] as? Double) }
        // No lag: the online tracker's fixes; a second late: fixes of their own.
        var moved = 0
        for ((now, zero), later) in zip(zip(online, immediate), late) {
            let x = now["x"] as? Double ?? .nan, y = now["y"] as? Double ?? .nan
            #expect(abs(x - (zero["x"] as? Double ?? .nan)) < 2e-3 && abs(y - (zero["y"] as? Double ?? .nan)) < 2e-3)
            if abs(x - (later["x"] as? Double ?? .nan)) > 0.01 { moved += 1 }
        }
        #expect(moved > scans.count / 2)
    }

    @Test func writesToStandardOutputWithCoordinatesWhenTheVenueHasAnOrigin() async throws {
        let room = try await RoomFixture(origin: true)
        defer { room.remove() }
        let output = try await CommandRunner.run(["locate", "--venue", room.venue.path, "--recording", room.recording.path])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = try fixes(output.standardOutput)
        #expect(lines.count == (try room.scans().count))
        for fix in lines {
            let latitude = try #require(fix["latitude"] as? Double), longitude = try #require(fix["longitude"] as? Double)
            // Within a few metres of the origin (41.355, 2.132): 10 m is about 1e-4 degree.
            #expect(abs(latitude - 41.355) < 1e-4 && abs(longitude - 2.132) < 1.5e-4)
        }
    }

    @Test func readsStandardInput() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let input = try Data(contentsOf: room.recording)
        let output = try await CommandRunner.run(["locate", "--venue", room.venue.path, "--recording", "-"], input: input)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(try fixes(output.standardOutput).count == (try room.scans().count))
    }

    @Test func scansThatHearNothingGetNoLine() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let recording = room.directory.appendingPathComponent("gaps.jsonl")
        try Data("""
        {"t": 1, "device": "a", "readings": [{"beacon": "node1", "rssi": -60}]}
        {"t": 100, "device": "a", "readings": []}
        {"t": 101, "device": "b", "track": "x", "readings": [{"beacon": "node3", "rssi": -60}]}

        """.utf8).write(to: recording)
        let out = room.directory.appendingPathComponent("fixes.jsonl")
        let output = try await CommandRunner.run(["locate", "--venue", room.venue.path, "--recording", recording.path, "-o", out.path])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = try fixes(String(contentsOf: out, encoding: .utf8))
        #expect(lines.map { $0["device"] as? String } == ["a", "b"])
        // One beacon heard: the fix is on it.
        #expect(lines[1]["x"] as? Double == 5.8 && lines[1]["y"] as? Double == 3.8)
        #expect(output.standardError.contains("2 fixes of 3 scans (1 not located), 2 devices"))
    }

    @Test("locate rejects bad arguments with a message", arguments: [
        (["locate", "--venue", "venue.json", "--recording", "rec.jsonl", "--algorithm", "all"], "The value 'all' is invalid for '--algorithm <name>'. Please provide one of the following:\n  - default\n  - centroid"),
        (["locate", "--recording", "rec.jsonl"], "Missing expected argument '--venue <venue.json>'"),
    ])
    func rejectsArguments(arguments: [String], message: String) {
        let output = InProcessCommand.parse(arguments)
        #expect(output.status == 64)
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }

    @Test("locate names a missing file", arguments: [
        (["locate", "--venue", "VENUE", "--recording", "/nonexistent/r.jsonl"], "/nonexistent/r.jsonl: no such file (the recording)"),
        (["locate", "--venue", "/nonexistent/v.json", "--recording", "REC"], "/nonexistent/v.json: no such file (the venue)"),
    ])
    func namesAMissingFile(arguments: [String], message: String) async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let resolved = arguments.map { $0 == "VENUE" ? room.venue.path : $0 == "REC" ? room.recording.path : $0 }
        let output = try await CommandRunner.run(resolved)
        #expect(output.status != 0)
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }
}
