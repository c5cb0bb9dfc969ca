import Foundation
import Testing
import WhereaboutsServerTesting

/// `whereabouts fuse`, `simulate --receivers` and `eval --fuse`: fixed receivers' reports become
/// each tag's fixes and events, from a file or live from a pipe.
@Suite("whereabouts fuse")
struct FuseCommandTests {
    /// The ESPresense room with its four nodes as receivers and one named tag; the place is
    /// wide, so that a centroid fix's accuracy Gaussian lies in it.
    static let venueJSON = """
    {"name": "ESPresense room", "floors": [{"level": 0, "name": "ground", "elevation": 0}], "beacons": [],
     "receivers": [{"id": "node1", "x": 0.2, "y": 0.2, "z": 2}, {"id": "node2", "x": 5.8, "y": 0.2, "z": 2},
                   {"id": "node3", "x": 5.8, "y": 3.8, "z": 2}, {"id": "node4", "x": 0.2, "y": 3.8, "z": 2}],
     "tags": [{"id": "anna", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 1}],
     "places": [{"id": "room", "polygon": [[-20, -20], [26, -20], [26, 24], [-20, 24]], "floor": 0}]}
    """

    /// Writes `text` to the file `name` in `directory`; returns its path.
    static func write(_ text: String, to name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// The mean error of an `eval --json` report.
    static func meanError(_ json: String) throws -> Double? {
        let report = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return (report?["error"] as? [String: Any])?["mean"] as? Double
    }

    static func lines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// The preset's walk as receivers' reports, fused: fixes of the walker's tag in time order,
    /// its room entered then left, and the counts on standard error; the same reports scored by
    /// `eval --fuse` land near the ideal recording's score.
    @Test func simulatedReportsAreFusedIntoTheTagsFixesAndEvents() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = directory.appendingPathComponent("venue.json"), reports = directory.appendingPathComponent("reports.jsonl")
        let simulated = try await CommandRunner.run(["simulate", "--preset", "espresense-room", "--seed", "3", "--receivers",
                                                     "--export-venue", venue.path, "-o", reports.path])
        #expect(simulated.status == 0, "\(simulated.standardError)")
        let written = try Self.lines(String(contentsOf: reports, encoding: .utf8))
        #expect(written.count > 300)
        #expect(Set(written.compactMap { $0["device"] as? String }) == ["node1", "node2", "node3", "node4"])
        let arrivals = written.compactMap { $0["arrival"] as? Double }
        #expect(arrivals.count == written.count && arrivals == arrivals.sorted())

        let validated = try await CommandRunner.run(["validate", "--venue", venue.path, reports.path])
        #expect(validated.status == 0 && validated.standardOutput.contains("\(written.count) receivers' reports"),
                "\(validated.standardOutput)\(validated.standardError)")

        let fused = try await CommandRunner.run(["fuse", "--venue", venue.path, "--recording", reports.path])
        #expect(fused.status == 0, "\(fused.standardError)")
        let output = try Self.lines(fused.standardOutput)
        let fixes = output.filter { $0["topic"] == nil }, events = output.filter { $0["topic"] != nil }
        #expect(fixes.count > 90)
        #expect(fixes.allSatisfy { $0["device"] as? String == "phone" && ($0["x"] as? Double)?.isFinite == true })
        let times = fixes.compactMap { $0["t"] as? Double }
        #expect(times == times.sorted())
        #expect(events.map { $0["topic"] as? String } == ["enterLocation", "exitLocation"])
        #expect(fused.standardError.contains("Fused \(written.count) sightings into "))

        let ideal = directory.appendingPathComponent("ideal.jsonl"), room = directory.appendingPathComponent("room.json")
        _ = try await CommandRunner.run(["simulate", "--preset", "espresense-room", "--seed", "3", "--export-venue", room.path, "-o", ideal.path])
        let fusedScore = try await CommandRunner.run(["eval", "--venue", venue.path, "--test", reports.path, "--fuse", "--json"])
        let idealScore = try await CommandRunner.run(["eval", "--venue", room.path, "--test", ideal.path, "--json"])
        #expect(fusedScore.status == 0 && idealScore.status == 0, "\(fusedScore.standardError)")
        let fusedMean = try #require(try Self.meanError(fusedScore.standardOutput))
        let idealMean = try #require(try Self.meanError(idealScore.standardOutput))
        // One seed: the noise differs between the two, so only a gross loss shows (the figure
        // over many seeds is in Documentation/Accuracy.md).
        #expect(fusedMean < 1.5 * idealMean, "fused \(fusedMean) m, ideal \(idealMean) m")
    }

    /// `--why`: the tag's room entered by three votes, with the receivers that heard the scan
    /// behind it, strongest first; left 30 s after its last fix.
    @Test func placeChangesAreExplained() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = directory.appendingPathComponent("venue.json").path, reports = directory.appendingPathComponent("reports.jsonl").path
        let simulated = try await CommandRunner.run(["simulate", "--preset", "espresense-room", "--seed", "3", "--receivers",
                                                     "--export-venue", venue, "-o", reports])
        #expect(simulated.status == 0, "\(simulated.standardError)")
        let fused = try await CommandRunner.run(["fuse", "--venue", venue, "--recording", reports, "--why"])
        #expect(fused.status == 0, "\(fused.standardError)")
        let output = try Self.lines(fused.standardOutput)
        #expect(output.allSatisfy { ($0["why"] != nil) == ($0["topic"] != nil) })
        let events = output.filter { $0["topic"] != nil }
        #expect(events.map { $0["topic"] as? String } == ["enterLocation", "exitLocation"])
        let enter = try #require(events.first?["why"] as? [String: Any])
        #expect(enter["rule"] as? String == "votes" && enter["votes"] as? Double == 3 && enter["to"] as? String == "room")
        let readings = try #require(enter["readings"] as? [[String: Any]])
        let receivers = readings.compactMap { $0["beacon"] as? String }, rssis = readings.compactMap { $0["rssi"] as? Double }
        #expect(!receivers.isEmpty && Set(receivers).isSubset(of: ["node1", "node2", "node3", "node4"]), "\(receivers)")
        #expect(rssis.count == receivers.count && rssis == rssis.sorted(by: >))
        let fixTime = try #require(output.last { $0["topic"] == nil }?["t"] as? Double)
        let exit = try #require(events.last)
        let exitWhy = try #require(exit["why"] as? [String: Any])
        #expect(exitWhy["rule"] as? String == "timeout" && exitWhy["lastObservation"] as? Double == fixTime)
        #expect(exit["t"] as? Double == fixTime + 30)
    }

    /// `--scans` writes the fused scans as a recording that `validate` accepts.
    @Test func theFusedScansAreARecording() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = directory.appendingPathComponent("venue.json")
        try Data(Self.venueJSON.utf8).write(to: venue)
        let reports = [
            #"{"t": 100.25, "device": "node1", "readings": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 1, "rssi": -60}]}"#,
            #"{"t": 100.5, "device": "node2", "readings": [{"beacon": "wristband", "rssi": -70}]}"#,
            #"{"t": 100.75, "device": "node9", "readings": [{"beacon": "wristband", "rssi": -70}]}"#,
            #"{"t": 101.25, "device": "node3", "readings": [{"beacon": "wristband", "rssi": -72}]}"#,
        ].joined(separator: "\n") + "\n"
        let fused = try await CommandRunner.run(["fuse", "--venue", venue.path, "--recording", "-", "--scans"], input: Data(reports.utf8))
        #expect(fused.status == 0, "\(fused.standardError)")
        let scans = try Self.lines(fused.standardOutput)
        #expect(scans.map { $0["device"] as? String } == ["anna", "wristband"])
        let readings = try #require(scans.last?["readings"] as? [[String: Any]])
        #expect(readings.map { $0["beacon"] as? String } == ["node2", "node3"])
        #expect(fused.standardError.contains("1 from receivers the venue does not list (node9)"))
        let recording = directory.appendingPathComponent("fused.jsonl")
        try Data(fused.standardOutput.utf8).write(to: recording)
        let validated = try await CommandRunner.run(["validate", recording.path])
        #expect(validated.status == 0, "\(validated.standardOutput)\(validated.standardError)")
    }

    /// `calibrate --receivers` on a walk whose receivers read +6, −4, 0 and 0 dB (the last with a
    /// path-loss exponent of 3) against a venue that says 0 for all: the offsets it writes have
    /// the right signs and order, and the venue it writes locates another walk better by 10 %
    /// at least.
    @Test func calibratingTheReceivers() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ text: String) throws -> String { try Self.write(text, to: name, in: directory) }
        let receivers = #"[{"id": "a", "x": 0, "y": 0, "z": 2, "rssiOffset": 6}, {"id": "b", "x": 10, "y": 0, "z": 2, "rssiOffset": -4}, {"id": "c", "x": 10, "y": 10, "z": 2}, {"id": "d", "x": 0, "y": 10, "z": 2, "pathLossExponent": 3}]"#
        let truth = try file("true.json", #"{"beacons": [], "receivers": "# + receivers + "}")
        let flat = try file("flat.json", #"{"beacons": [], "receivers": [{"id": "a", "x": 0, "y": 0, "z": 2}, {"id": "b", "x": 10, "y": 0, "z": 2}, {"id": "c", "x": 10, "y": 10, "z": 2}, {"id": "d", "x": 0, "y": 10, "z": 2}]}"#)
        let walk = try file("walk.json", #"{"device": "anna", "speed": 0.8, "start": 1700000000, "waypoints": [{"x": 1, "y": 1, "dwell": 20}, {"x": 9, "y": 1, "dwell": 20}, {"x": 9, "y": 9, "dwell": 20}, {"x": 1, "y": 9, "dwell": 20}, {"x": 5, "y": 5, "dwell": 20}, {"x": 1, "y": 1}]}"#)
        let survey = directory.appendingPathComponent("survey.jsonl").path, test = directory.appendingPathComponent("test.jsonl").path
        let fitted = directory.appendingPathComponent("fitted.json").path
        for (seed, path) in [("4", survey), ("5", test)] {
            let simulated = try await CommandRunner.run(["simulate", "--venue", truth, "--walk", walk, "--seed", seed, "--receivers", "-o", path])
            try #require(simulated.status == 0, "\(simulated.standardError)")
        }
        let calibrated = try await CommandRunner.run(["calibrate", "--venue", flat, "--recording", survey, "--receivers", "--per-beacon", "-o", fitted])
        #expect(calibrated.status == 0, "\(calibrated.standardError)")
        #expect(calibrated.standardOutput.contains("Wrote \(fitted): receivers' offsets a +"))
        let venue = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fitted))) as? [String: Any])
        let fits = try #require(venue["receivers"] as? [[String: Any]])
        let offsets = fits.map { $0["rssiOffset"] as? Double ?? .nan }, exponents = fits.map { $0["pathLossExponent"] as? Double ?? .nan }
        // A receiver's txPower and exponent trade off against each other in a fit, so only the
        // clear differences are asserted: a hot, b cold, c between; d's exponent the steepest.
        #expect(offsets[0] > 2 && offsets[1] < -1 && offsets[0] > offsets[2] && offsets[2] > offsets[1], "\(offsets)")
        #expect(exponents[3] == exponents.max(), "\(exponents)")
        let before = try #require(try Self.meanError(try await CommandRunner.run(["eval", "--venue", flat, "--test", test, "--fuse", "--json"]).standardOutput))
        let after = try #require(try Self.meanError(try await CommandRunner.run(["eval", "--venue", fitted, "--test", test, "--fuse", "--json"]).standardOutput))
        #expect(after < 0.9 * before, "mean error \(before) m with the flat venue, \(after) m calibrated")
        let noReceivers = try await CommandRunner.run(["calibrate", "--venue", "Examples/venue.json", "--recording", "Examples/visit.jsonl", "--receivers"])
        #expect(noReceivers.status == 1 && noReceivers.standardError.contains("lists no receivers, so there is nothing to fit"))
    }

    /// Receivers that advertise hear each other at known distances: fitted from two minutes of
    /// that alone (no walk, no truth in the reports), the venue locates a walked tag nearly as
    /// well as the true one.
    @Test func receiversHearingEachOtherAreCalibratedWithoutAWalk() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ text: String) throws -> String { try Self.write(text, to: name, in: directory) }
        let corners: [(id: String, x: Double, y: Double, offset: Double)] = [("a", 0, 0, 6), ("b", 10, 0, -4), ("c", 10, 10, 0), ("d", 0, 10, 0)]
        let truth = try file("true.json", #"{"beacons": [], "receivers": ["# + corners.map {
            #"{"id": "\#($0.id)", "x": \#($0.x), "y": \#($0.y), "z": 2, "rssiOffset": \#($0.offset)}"#
        }.joined(separator: ", ") + "]}")
        let flat = try file("flat.json", #"{"beacons": [], "receivers": ["# + corners.map {
            #"{"id": "\#($0.id)", "x": \#($0.x), "y": \#($0.y), "z": 2}"#
        }.joined(separator: ", ") + "]}")
        // Each receiver hears the other three once a second: −59 dBm at 1 m, n = 2, its own
        // offset, and a spread of ±2 dB.
        var lines: [String] = []
        for second in 0..<120 {
            for (index, hearer) in corners.enumerated() {
                let readings = corners.enumerated().filter { $0.offset != index }.map { other, heard in
                    let distance = ((hearer.x - heard.x) * (hearer.x - heard.x) + (hearer.y - heard.y) * (hearer.y - heard.y)).squareRoot()
                    let spread = Double((second * 7 + index * 13 + other * 29) % 41) / 10 - 2
                    return #"{"beacon": "\#(heard.id)", "rssi": \#(-59 + hearer.offset - 20 * log10(distance) + spread)}"#
                }
                lines.append(#"{"t": \#(1_700_000_000 + Double(second) + Double(index) / 10), "device": "\#(hearer.id)", "readings": [\#(readings.joined(separator: ", "))]}"#)
            }
        }
        let heard = try file("heard.jsonl", lines.joined(separator: "\n") + "\n")
        let walk = try file("walk.json", #"{"device": "anna", "speed": 0.8, "start": 1700000000, "waypoints": [{"x": 1, "y": 1, "dwell": 20}, {"x": 9, "y": 1, "dwell": 20}, {"x": 9, "y": 9, "dwell": 20}, {"x": 1, "y": 9, "dwell": 20}, {"x": 5, "y": 5, "dwell": 20}, {"x": 1, "y": 1}]}"#)
        let test = directory.appendingPathComponent("test.jsonl").path, fitted = directory.appendingPathComponent("fitted.json").path
        let simulated = try await CommandRunner.run(["simulate", "--venue", truth, "--walk", walk, "--seed", "5", "--receivers", "-o", test])
        try #require(simulated.status == 0, "\(simulated.standardError)")
        let calibrated = try await CommandRunner.run(["calibrate", "--venue", flat, "--recording", heard, "--receivers", "--per-beacon", "-o", fitted])
        #expect(calibrated.status == 0, "\(calibrated.standardError)")
        #expect(calibrated.standardOutput.contains("1440 samples"), "\(calibrated.standardOutput)")
        func mean(_ venue: String) async throws -> Double {
            try #require(try Self.meanError(try await CommandRunner.run(["eval", "--venue", venue, "--test", test, "--fuse", "--json"]).standardOutput))
        }
        let before = try await mean(flat), after = try await mean(fitted), ideal = try await mean(truth)
        #expect(after < 0.85 * before, "mean error \(before) m with the flat venue, \(after) m calibrated (true venue \(ideal) m)")
        #expect(after < 1.1 * ideal, "mean error \(after) m calibrated, \(ideal) m with the true venue")
    }

    /// A venue without receivers is refused with what to do.
    @Test func badInputIsRefused() async throws {
        let noReceivers = try await CommandRunner.run(["fuse", "--venue", "Examples/venue.json", "--recording", "Examples/visit.jsonl"])
        #expect(noReceivers.status == 1)
        #expect(noReceivers.standardError.contains("Examples/venue.json lists no receivers"))
        let evalFuse = try await CommandRunner.run(["eval", "--venue", "Examples/venue.json", "--test", "Examples/visit.jsonl", "--fuse"])
        #expect(evalFuse.status == 1 && evalFuse.standardError.contains("lists no receivers, so there is nothing to fuse"))
    }

    /// Options out of range, or without the option they go with, are refused before anything runs.
    @Test func badOptionsAreRefused() {
        let window = InProcessCommand.parse(["fuse", "--venue", "Examples/venue.json", "--recording", "-", "--window", "0.5"])
        #expect(window.status == 64 && window.standardError.contains("--window must be at least --interval"))
        let averaging = InProcessCommand.parse(["fuse", "--venue", "Examples/venue.json", "--recording", "-", "--averaging", "5"])
        #expect(averaging.status == 64 && averaging.standardError.contains("--averaging must lie between --interval (0.75) and --window (3.0) seconds, found 5.0."))
        for leftOut in ["--no-events", "--scans"] {
            let why = InProcessCommand.parse(["fuse", "--venue", "Examples/venue.json", "--recording", "-", "--why", leftOut])
            #expect(why.status == 64 && why.standardError.contains("--why explains the places entered and left, which \(leftOut) leaves out."),
                    "\(why.standardError)")
        }
        let loss = InProcessCommand.parse(["simulate", "--preset", "espresense-room", "--report-loss", "0.5"])
        #expect(loss.status == 64 && loss.standardError.contains("go with --receivers"))
    }

    /// Live, on a pipe that stays open: a tag's first fix comes within the window + 0.5 s of its
    /// first report, and its place is left within the exit timeout + 1 s of its last, before the
    /// input ends.
    @Test func livePipeGivesFixesAndExitsOnTime() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = directory.appendingPathComponent("venue.json")
        try Data(Self.venueJSON.utf8).write(to: venue)
        let fuse = try LiveCommandTests.LiveProcess(["fuse", "--venue", venue.path, "--recording", "-", "--exit-timeout", "2",
                                                     "--algorithm", "centroid"])
        defer { if fuse.process.isRunning { fuse.process.terminate() } }
        @Sendable func report(_ receiver: String, _ tag: String) -> String {
            "{\"t\": \(String(format: "%.3f", Date().timeIntervalSince1970)), \"device\": \"\(receiver)\", \"readings\": [{\"beacon\": \"\(tag)\", \"rssi\": -65}]}"
        }
        // A first tag, until the command answers (a debug build takes a while to start). Then
        // anna, heard by all four nodes a quarter of a second apart, for four seconds. All from a
        // thread of its own: the test's task can wait seconds for a thread of the concurrency
        // pool while the rest of the suite keeps it busy, which would stretch the quarters.
        let (warm, first, last) = await DedicatedThread.run { () -> (Bool, ContinuousClock.Instant, ContinuousClock.Instant) in
            fuse.send(report("node1", "warm-up"))
            guard fuse.blockingWaitForLine(containing: "\"warm-up\"", limit: LiveCommandTests.startup) != nil else {
                return (false, .now, .now)
            }
            let first = ContinuousClock.now
            var last = first
            for _ in 0..<4 {
                for node in 1...4 {
                    last = ContinuousClock.now
                    fuse.send(report("node\(node)", "anna"))
                    Thread.sleep(forTimeInterval: 0.25)
                }
            }
            return (true, first, last)
        }
        try #require(warm, "no fix of the warm-up tag")
        let firstFix = try #require(fuse.lines.first { $0.line.contains("\"anna\"") }?.at, "no fix of anna")
        #expect(firstFix - first <= .milliseconds(3_500), "anna's first fix \(firstFix - first) after her first report")
        // Due the exit timeout after her last located scan, dated the mean time of its reports.
        let left = try #require(await fuse.waitForLine(containing: "\"exitLocation\"", limit: .seconds(10)), "anna never left")
        #expect(left - last <= .seconds(3), "exitLocation \(left - last) after her last report (timeout 2 s)")
        #expect(left - last >= .seconds(1), "exitLocation \(left - last) after her last report (timeout 2 s)")
        #expect(fuse.lines.contains { $0.line.contains("\"enterLocation\"") && $0.line.contains("\"anna\"") })
        #expect(await fuse.close() == 0)
    }
}
