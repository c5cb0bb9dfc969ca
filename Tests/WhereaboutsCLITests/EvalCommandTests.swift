import Foundation
import Testing

/// A temporary folder with the ESPresense room as a venue file and a simulated recording of it.
struct RoomFixture {
    let directory: URL
    let venue: URL
    let recording: URL

    /// The preset's venue written by hand (a 6 × 4 m room, a receiver near each corner); with
    /// `origin`, anchored to WGS84 so that fixes carry latitude and longitude.
    static func venueJSON(origin: Bool = false) -> String {
        """
        {"name": "ESPresense room", \(origin ? #""origin": {"latitude": 41.355, "longitude": 2.132, "bearing": 0},"# : "")
         "floors": [{"level": 0, "name": "ground", "elevation": 0}],
         "beacons": [{"id": "node1", "x": 0.2, "y": 0.2, "z": 2, "floor": 0, "txPower": -59},
                     {"id": "node2", "x": 5.8, "y": 0.2, "z": 2, "floor": 0, "txPower": -59},
                     {"id": "node3", "x": 5.8, "y": 3.8, "z": 2, "floor": 0, "txPower": -59},
                     {"id": "node4", "x": 0.2, "y": 3.8, "z": 2, "floor": 0, "txPower": -59}],
         "places": [{"id": "room", "polygon": [[0, 0], [6, 0], [6, 4], [0, 4]], "floor": 0}]}
        """
    }

    init(origin: Bool = false) async throws {
        directory = try CommandRunner.temporaryDirectory()
        venue = directory.appendingPathComponent("venue.json")
        try Data(Self.venueJSON(origin: origin).utf8).write(to: venue)
        recording = directory.appendingPathComponent("test.jsonl")
        let simulated = try await CommandRunner.run(["simulate", "--preset", "espresense-room", "--seed", "1", "-o", recording.path])
        guard simulated.status == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// The recording's lines, parsed.
    func scans() throws -> [[String: Any]] {
        try String(contentsOf: recording, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

@Suite("whereabouts eval")
struct EvalCommandTests {
    /// The algorithm names the help lists ("Algorithms: a, b, c.").
    private func algorithmNames() throws -> [String] {
        let help = InProcessCommand.parse(["eval", "--help"]).standardOutput
        let flat = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let start = try #require(flat.range(of: "Algorithms: ")).upperBound
        let end = try #require(flat[start...].firstIndex(of: "."))
        return flat[start..<end].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func helpHasExamples() async throws {
        let output = InProcessCommand.parse(["eval", "--help"])
        #expect(output.status == 0)
        #expect(output.standardOutput.contains("\nExamples:\n"))
        #expect(output.standardOutput.contains("whereabouts eval --venue v.json --test test.jsonl --algorithm all"))
        #expect(try algorithmNames().contains("centroid"))
    }

    @Test func jsonReportHasTheFormatsKeys() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let output = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path, "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        let text = output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!text.contains("\n"))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(report["algorithm"] as? String == "default")
        #expect(report["units"] as? String == "m")
        #expect(report["scans"] as? Int == (try room.scans().count))
        #expect((report["located"] as? Int ?? 0) > 0)
        let error = try #require(report["error"] as? [String: Double])
        #expect(Set(error.keys) == ["mean", "median", "p75", "p95", "max"])
        #expect(error.values.allSatisfy { $0.isFinite && $0 >= 0 })
        #expect((error["median"] ?? .nan) <= (error["p95"] ?? .nan))
        // The simulation has floors and the room as truth place: both are scored.
        #expect(report["floorAccuracy"] as? Double == 1)
        #expect(report["placeAccuracy"] as? Double != nil)
        #expect(report["placeLocated"] as? Int != nil)
        #expect((report["fixesPerSecond"] as? Double ?? 0) > 0)
        // Keys in the order of FORMATS.md §3.
        let order = ["\"dataset\"", "\"algorithm\"", "\"units\"", "\"scans\"", "\"located\"", "\"error\"", "\"floorAccuracy\"",
                     "\"placeAccuracy\"", "\"placeLocated\"", "\"fixesPerSecond\""]
        let positions = order.compactMap { text.range(of: $0)?.lowerBound }
        #expect(positions.count == order.count && positions == positions.sorted())
    }

    @Test func theStopAndGoPipelineIsScoredWhenAsked() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        func median(_ extra: [String]) async throws -> Double {
            let output = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path, "--json"] + extra)
            #expect(output.status == 0, "\(output.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
            let error = try #require(report["error"] as? [String: Double])
            return try #require(error["median"])
        }
        // Raw RSSI and the stop-and-go tracker: the standing stretches of the room's walk are
        // averaged over many scans instead of a few seconds of filtered RSSI.
        let filtered = try await median(["--rssi-filter", "kalman"])
        let stopAndGo = try await median(["--rssi-filter", "none", "--tracking", "stop-and-go"])
        #expect(stopAndGo < filtered * 0.9, "stop-and-go \(stopAndGo) m, filtered \(filtered) m")
        // Given neither option, the default algorithm chooses by its validation replay (here a
        // survey simulated in the room: no training data), and says what it chose when asked.
        #expect(try await median([]) == stopAndGo)
        let quiet = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path])
        #expect(quiet.status == 0 && !quiet.standardError.contains("the better of its candidates"), "\(quiet.standardError)")
        let chosen = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path, "--verbose"])
        // The error it quotes is named as what it is: a simulated survey's, not this recording's.
        #expect(chosen.standardError.contains("default: --rssi-filter none --tracking stop-and-go, the better of its candidates "
                                              + "on a simulated survey of the venue's places (mean error "), "\(chosen.standardError)")
        #expect(chosen.standardError.contains("it does not predict this recording's error"))
        let given = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path, "--rssi-filter", "kalman"])
        #expect(given.status == 0 && !given.standardError.contains("the better of its candidates"))
    }

    @Test func anUnknownTrackingIsRefused() {
        let wrong = InProcessCommand.parse(["eval", "--venue", "venue.json", "--test", "test.jsonl", "--tracking", "sideways"])
        #expect(wrong.status == 64)
        #expect(wrong.standardError.contains("Please provide one of 'none', 'constant-velocity' or 'stop-and-go'"))
    }

    @Test func smoothingIsScoredWhenAsked() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        func report(_ extra: [String]) async throws -> (error: [String: Double], located: Int?) {
            let output = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path, "--json",
                                                "--rssi-filter", "none", "--tracking", "stop-and-go"] + extra)
            #expect(output.status == 0, "\(output.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
            return (try #require(report["error"] as? [String: Double]), report["located"] as? Int)
        }
        let online = try await report([]), smoothed = try await report(["--smooth"]), late = try await report(["--lag", "1"])
        #expect(smoothed.located == online.located && late.located == online.located)
        // Offline, each fix also learns from the scans after it: the walk's lag is gone; a second
        // late, from the next scan, takes some of it away. (Means: the p95 of 102 fixes is their
        // fifth largest error, too few to order three close runs by.)
        let onlineMean = try #require(online.error["mean"]), smoothedMean = try #require(smoothed.error["mean"])
        let lateMean = try #require(late.error["mean"])
        #expect(smoothedMean < 0.8 * onlineMean, "mean: smoothed \(smoothedMean) m, online \(onlineMean) m")
        #expect(lateMean < onlineMean && lateMean >= smoothedMean, "mean: a second late \(lateMean) m")
        #expect(try #require(smoothed.error["p95"]) < #require(online.error["p95"]))
    }

    @Test("smoothing and a lag are refused together, and a negative lag", arguments: [
        (["--smooth", "--lag", "1"], "give one of them"), (["--lag=-1"], "--lag must be a number of seconds"),
    ])
    func smoothingOptionsAreChecked(arguments: [String], message: String) {
        let wrong = InProcessCommand.parse(["eval", "--venue", "venue.json", "--test", "test.jsonl"] + arguments)
        #expect(wrong.status == 64)
        #expect(wrong.standardError.contains(message), "\(wrong.standardError)")
    }

    @Test func humanReportGivesNumbersWithUnits() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let output = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("— default"))
        #expect(output.standardOutput.contains("scans      102, located 102"))
        #expect(output.standardOutput.contains(" m, median "))
        #expect(output.standardOutput.contains("fixes/s"))
    }

    @Test func allComparesEveryAlgorithm() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let names = try algorithmNames()
        let table = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path, "--algorithm", "all",
                                           "--train", room.recording.path])
        #expect(table.status == 0, "\(table.standardError)")
        let lines = table.standardOutput.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("algorithm") })
        #expect(lines[header].contains("within-radius %") && lines[header].contains("fixes/s"))
        let rows = lines[(header + 1)...].filter { line in names.contains { line.hasPrefix($0 + " ") } }
        #expect(rows.count == names.count)

        let json = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path, "--algorithm", "all",
                                          "--json", "--train", room.recording.path])
        #expect(json.status == 0, "\(json.standardError)")
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(reports.filter { $0["kind"] as? String == "positioning" }.compactMap { $0["algorithm"] as? String } == names)
    }

    /// The room's truth names its place: a rooms record joins the array of --algorithm all, and
    /// the text; a lone positioning report stays one object, with the point's figure beside.
    @Test func theRoomsRecordGivesTheDefaultsPlaceAccuracyBothWays() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let json = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path, "--algorithm", "all",
                                          "--json", "--train", room.recording.path])
        #expect(json.status == 0, "\(json.standardError)")
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        let rooms = reports.filter { $0["kind"] as? String == "rooms" }
        #expect(rooms.count == 1)
        let record = try #require(rooms.first)
        #expect(record["name"] as? String == "rooms:default" && record["algorithm"] as? String == "default")
        #expect(record["scans"] as? Int == 102)
        for key in ["placeAccuracy", "pointPlaceAccuracy"] {
            let value = try #require(record[key] as? Double)
            #expect(value >= 0 && value <= 1)
        }
        #expect(record["placeLocated"] as? Int != nil && record["pointPlaceLocated"] as? Int != nil && record["nearestPlaces"] as? Int != nil)
        #expect(record["error"] == nil && record["fixesPerSecond"] == nil)
        // Its figures are the default's positioning record's.
        let positioning = try #require(reports.first { $0["kind"] as? String == "positioning" && $0["name"] as? String == "default" })
        #expect(positioning["placeAccuracy"] as? Double == record["placeAccuracy"] as? Double)
        #expect(positioning["pointPlaceAccuracy"] as? Double == record["pointPlaceAccuracy"] as? Double)
        // Names stay unique.
        let names = reports.compactMap { $0["name"] as? String }
        #expect(Set(names).count == names.count)

        let single = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path, "--json"])
        #expect(single.status == 0, "\(single.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(single.standardOutput.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "positioning" && object["pointPlaceAccuracy"] as? Double != nil)

        let text = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path])
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("— default rooms\n  scans      102, located 102 (100 %)\n  place      "))
        #expect(text.standardOutput.contains("right by the place holding most of the fix"))
        #expect(text.standardOutput.contains("  point      ") && text.standardOutput.contains("right by the place containing the fix's point"))
        let table = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path, "--algorithm", "all"])
        #expect(table.status == 0 && table.standardOutput.contains("— default rooms\n"))
    }

    @Test func allWithoutTrainingLeavesOutTheLearnersAndSaysSo() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let output = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path,
                                            "--algorithm", "all", "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardError.contains("without --train, leaving out knn"))
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [[String: Any]])
        #expect(!reports.isEmpty)
        #expect(!reports.contains { $0["algorithm"] as? String == "knn" })
    }

    @Test func plotWritesAnSVG() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let plot = room.directory.appendingPathComponent("report.svg")
        let output = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path,
                                            "--algorithm", "all", "--train", room.recording.path, "--plot", plot.path])
        #expect(output.status == 0, "\(output.standardError)")
        let svg = try String(contentsOf: plot, encoding: .utf8)
        #expect(svg.hasPrefix("<?xml"))
        #expect(svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.components(separatedBy: "class=\"cdf\"").count - 1 == (try algorithmNames().count))
        #expect(svg.components(separatedBy: "class=\"truth\"").count - 1 == 102)
        #expect(svg.hasSuffix("</svg>\n"))
    }

    @Test func lenientSkipsBadLinesAndStrictStopsAtThem() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        var text = try String(contentsOf: room.recording, encoding: .utf8)
        text += "{\"t\": \"late\", \"readings\": []}\n"
        try Data(text.utf8).write(to: room.recording)
        let strict = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path])
        #expect(strict.status != 0)
        #expect(strict.standardError.contains("\(room.recording.path):103:7: t: expected a number, found a string"))
        let lenient = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", room.recording.path, "--lenient"])
        #expect(lenient.status == 0, "\(lenient.standardError)")
        #expect(lenient.standardError.contains("skipped 1 malformed line"))
        #expect(lenient.standardOutput.contains("scans      102,"))
    }

    @Test func aRecordingWithoutTruthIsExplained() async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let bare = room.directory.appendingPathComponent("bare.jsonl")
        try Data("""
        {"t": 1, "readings": [{"beacon": "node1", "rssi": -60}]}
        {"t": 2, "readings": [{"beacon": "node2", "rssi": -61}]}

        """.utf8).write(to: bare)
        let output = try await CommandRunner.run(["eval", "--venue", room.venue.path, "--test", bare.path])
        #expect(output.status != 0)
        #expect(output.standardError.contains("none of its 2 scans has a truth"))
    }

    @Test("eval rejects bad arguments with a message", arguments: [
        (["eval", "--venue", "venue.json", "--test", "test.jsonl", "--algorithm", "nope"], "The value 'nope' is invalid for '--algorithm <name>'. Please provide one of the following:\n  - default\n  - centroid"),
        (["eval", "--venue", "venue.json"], "Missing expected argument '--test <test.jsonl>'"),
    ])
    func rejectsArguments(arguments: [String], message: String) {
        let output = InProcessCommand.parse(arguments)
        #expect(output.status == 64)
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }

    @Test("eval names a missing file", arguments: [
        (["eval", "--venue", "/nonexistent/venue.json", "--test", "TEST"], "/nonexistent/venue.json: no such file (the venue)"),
        (["eval", "--venue", "VENUE", "--test", "/nonexistent/test.jsonl"], "/nonexistent/test.jsonl: no such file (the recording)"),
        (["eval", "--venue", "VENUE", "--test", "TEST", "--train", "/nonexistent/train.jsonl"],
         "/nonexistent/train.jsonl: no such file (the training recording)"),
    ])
    func namesAMissingFile(arguments: [String], message: String) async throws {
        let room = try await RoomFixture()
        defer { room.remove() }
        let resolved = arguments.map { $0 == "VENUE" ? room.venue.path : $0 == "TEST" ? room.recording.path : $0 }
        let output = try await CommandRunner.run(resolved)
        #expect(output.status != 0)
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }
}
