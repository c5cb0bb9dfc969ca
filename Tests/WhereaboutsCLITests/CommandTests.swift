import Foundation
import Testing
import WhereaboutsServerTesting

@Suite("whereabouts command line")
struct CommandTests {
    @Test("every command's help has an example", arguments: ["demo", "simulate", "validate", "calibrate", "version"])
    func helpHasAnExample(command: String) {
        let output = InProcessCommand.parse([command, "--help"])
        #expect(output.status == 0)
        // The heading of the examples, on a line of its own (not a path under Examples/).
        #expect(output.standardOutput.contains("\nExample:\n") || output.standardOutput.contains("\nExamples:\n"))
        #expect(output.standardOutput.contains("whereabouts \(command)"))
    }

    /// The help of `command`, as `whereabouts COMMAND --help` prints it.
    static func help(of command: [String]) -> String {
        InProcessCommand.parse(command + ["--help"]).standardOutput
    }

    /// The subcommands `help` lists (the names under SUBCOMMANDS:, not the closing "See
    /// 'whereabouts help <subcommand>'" line), without `help` itself.
    static func subcommands(in help: String) -> [String] {
        guard let start = help.range(of: "SUBCOMMANDS:") else { return [] }
        return help[start.upperBound...].split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), !line.hasPrefix("  See '"),
                  let name = line.split(separator: " ").first, name != "help" else { return nil }
            return String(name)
        }
    }

    @Test("every help's examples fit in 80 columns, long ones as shell continuation lines, so they can be copied")
    func examplesFitEightyColumns() {
        // Every command and subcommand with its help (wrapped to 80 columns, as in an 80-column
        // terminal), each help made once.
        var helps: [(command: [String], text: String)] = []
        for name in Self.subcommands(in: Self.help(of: [])) {
            let text = Self.help(of: [name])
            helps.append(([name], text))
            for child in Self.subcommands(in: text) { helps.append(([name, child], Self.help(of: [name, child]))) }
        }
        #expect(helps.count > 20, "\(helps.map(\.command))")
        var examples = 0
        for (command, text) in helps {
            var inExamples = false
            var previous = ""
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                if line == "Examples:" || line == "Example:" { inExamples = true; continue }
                if line.isEmpty || line.hasPrefix("USAGE") || line.hasPrefix("OPTIONS") { inExamples = false }
                guard inExamples else { continue }
                examples += 1
                #expect(line.count <= 80, "\(command.joined(separator: " ")): \(line)")
                // A line of an example starts indented; one that does not was cut by the wrapping.
                #expect(line.hasPrefix("  "), "\(command.joined(separator: " ")): cut after \"\(previous)\": \(line)")
                // A continuation line follows a line ending in a backslash (or inside a quote).
                if line.hasPrefix("      "), !previous.hasSuffix(" \\"), !previous.hasSuffix("'{"), !previous.hasSuffix(",") {
                    Issue.record("\(command.joined(separator: " ")): a continuation without a backslash before it: \(line)")
                }
                previous = line
            }
        }
        #expect(examples > 40)
    }

    @Test func versionPrintsTheVersion() async throws {
        let output = try await CommandRunner.run(["version"])
        #expect(output.status == 0)
        #expect(output.standardOutput.hasPrefix("whereabouts "))
    }

    @Test func simulateReproducesTheBundledRecording() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("visit.jsonl")
        let output = try await CommandRunner.run(["simulate", "--preset", "example", "--seed", "42", "-o", out.path])
        #expect(output.status == 0, "\(output.standardError)")
        let bundled = try Data(contentsOf: CommandRunner.packageRoot.appendingPathComponent("Examples/visit.jsonl"))
        #expect(try Data(contentsOf: out) == bundled)
        #expect(output.standardError.contains("625 scans"))
    }

    @Test func simulateWritesToStandardOutputAndHonoursRadioOptions() async throws {
        let quiet = try await CommandRunner.run(["simulate", "--preset", "espresense-room", "--seed", "3", "--shadowing", "0",
                                           "--multipath-share", "0", "--fractional-rssi"])
        #expect(quiet.status == 0)
        let lines = quiet.standardOutput.split(separator: "\n")
        #expect(lines.count > 10)
        #expect(lines.first?.hasPrefix(#"{"t":"#) == true)
        let noisy = try await CommandRunner.run(["simulate", "--preset", "espresense-room", "--seed", "3"])
        #expect(noisy.standardOutput != quiet.standardOutput)
    }

    @Test func simulateSharesAPersistentShadowingFieldBetweenSeeds() async throws {
        // No per-sample noise: the RSSI is the model's plus the persistent field, which a field
        // seed makes the same for walks of other seeds, and which each seed otherwise makes its own.
        func run(seed: Int, field: Int?) async throws -> String {
            let output = try await CommandRunner.run(["simulate", "--preset", "espresense-room", "--seed", "\(seed)", "--shadowing", "0",
                                                "--multipath-share", "0", "--fractional-rssi", "--persistent-shadowing", "4",
                                                "--shadowing-distance", "1.5"] + (field.map { ["--field-seed", "\($0)"] } ?? []))
            #expect(output.status == 0, "\(output.standardError)")
            return output.standardOutput
        }
        let flat = try await CommandRunner.run(["simulate", "--preset", "espresense-room", "--seed", "3", "--shadowing", "0",
                                          "--multipath-share", "0", "--fractional-rssi"]).standardOutput
        #expect(try await run(seed: 3, field: 8) == run(seed: 4, field: 8))
        #expect(try await run(seed: 3, field: 8) != flat)
        #expect(try await run(seed: 3, field: nil) != run(seed: 4, field: nil))
    }

    @Test func simulateWritesAFamilyMemberThatValidatesAndIsTheSameForItsSeed() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func member(_ seed: Int, _ name: String) async throws -> (output: CommandRunner.Output, files: [Data]) {
            let folder = directory.appendingPathComponent(name)
            let output = try await CommandRunner.run(["simulate", "--family", "--seed", "\(seed)", "--directory", folder.path])
            #expect(output.status == 0, "\(output.standardError)")
            let files = try ["venue.json", "train.jsonl", "test.jsonl"].map { try Data(contentsOf: folder.appendingPathComponent($0)) }
            return (output, files)
        }
        let first = try await member(3, "a"), again = try await member(3, "b"), other = try await member(4, "c")
        #expect(first.files == again.files)
        #expect(first.files != other.files)
        #expect(first.output.standardError.contains("family seed 3"))
        let folder = directory.appendingPathComponent("a")
        let validation = try await CommandRunner.run(["validate", "--venue", folder.appendingPathComponent("venue.json").path,
                                                folder.appendingPathComponent("train.jsonl").path,
                                                folder.appendingPathComponent("test.jsonl").path])
        #expect(validation.status == 0, "\(validation.standardError)")
        // The survey is one phone's, the visits two others'; every scan has its true position and place.
        #expect(validation.standardOutput.contains("1 device, 1 track"))
        #expect(validation.standardOutput.contains("2 devices, 2 tracks"))
        #expect(!validation.standardOutput.contains(" 0 with true place"))
    }

    @Test("simulate rejects bad arguments with a message", arguments: [
        (["simulate", "--preset", "nope"], "The value 'nope' is invalid for '--preset <name>'"),
        (["simulate", "--seed", "1"], "Give --preset NAME, or --venue and --walk"),
        (["simulate", "--preset", "example", "--packet-loss", "2"], "--packet-loss must lie between 0 and 1"),
        (["simulate", "--preset", "example", "--persistent-shadowing=-1"], "--persistent-shadowing must be 0 or more"),
        (["simulate", "--preset", "example", "--shadowing-distance", "0"], "--shadowing-distance must be positive"),
        (["simulate", "--preset", "example", "--venue", "v.json", "--walk", "w.json"], "not both"),
        (["simulate", "--family", "--seed", "1"], "--family needs --directory"),
        (["simulate", "--family", "--preset", "example", "--directory", "d"], "give it only --seed and --directory"),
        (["simulate", "--family", "--directory", "d", "--shadowing", "2"], "leave out the radio options"),
        (["simulate", "--family", "--directory", "d", "--device-gain", "1.1"], "leave out the radio options"),
        (["simulate", "--preset", "example", "--device-gain", "3"], "--device-gain must lie between 0.5 and 2"),
        (["simulate", "--preset", "example", "--directory", "d"], "--directory goes with --family"),
    ])
    func simulateRejects(arguments: [String], message: String) {
        let output = InProcessCommand.parse(arguments)
        #expect(output.status == 64)
        #expect(output.standardError.contains(message))
    }

    @Test func validateAcceptsTheBundledExample() async throws {
        let output = try await CommandRunner.run(["validate", "--venue", "Examples/venue.json", "Examples/visit.jsonl", "Examples/venue.json"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("Examples/visit.jsonl: recording: 625 scans"))
        #expect(output.standardOutput.contains("— valid"))
    }

    @Test func validateNamesFileLineAndKeyAndFails() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = directory.appendingPathComponent("venue.json")
        try Data(#"{"beacons": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 1, "y": 0}]}"#.utf8).write(to: venue)
        let recording = directory.appendingPathComponent("walk.jsonl")
        try Data("""
        {"t": 1, "readings": [{"beacon": "a", "rssi": -60}]}
        {"t": 2, "readings": [{"beacon": "a", "rssi": "loud"}]}
        {"t": 3, "readings": [{"beacon": "zz", "rssi": -70}]}
        {"t": 2.5, "readings": [{"beacon": "b", "rssi": 0}]}

        """.utf8).write(to: recording)
        let output = try await CommandRunner.run(["validate", "--venue", venue.path, recording.path])
        #expect(output.status == 1)
        #expect(output.standardOutput.contains("3 scans"))
        #expect(output.standardOutput.contains("1 invalid reading (rssi ≥ 0) skipped"))
        #expect(output.standardError.contains("\(recording.path):2:47: readings[0].rssi: expected a number, found a string"))
        #expect(output.standardError.contains("\(recording.path):3: readings[0]: the venue has no beacon \"zz\""))
        #expect(output.standardError.contains("\(recording.path):4: t: time goes back from 3.0 to 2.5"))
    }

    /// A misspelt optional key is ignored, as the formats say, but never in silence: every
    /// command that reads the file warns with its line, column and the key it most likely meant,
    /// and `validate --strict` fails the file.
    @Test func misspeltKeysAreReportedWhereTheyAre() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = directory.appendingPathComponent("venue.json")
        let text = try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent("Examples/venue.json"), encoding: .utf8)
        // Line 21 of the example's venue is `    "txPower": -59,`, in "defaults".
        try Data(text.replacingOccurrences(of: "\"txPower\": -59,\n    \"pathLossExponent\": 2",
                                           with: "\"txPower\": -59,\n    \"pathlossExponent\": 2").utf8).write(to: venue)
        let warning = "warning: \(venue.path):22:5: defaults.pathlossExponent: unknown key, ignored — did you mean \"pathLossExponent\"?"

        let lax = try await CommandRunner.run(["validate", venue.path])
        #expect(lax.status == 0, "\(lax.standardError)")
        #expect(lax.standardOutput.contains("— valid, 1 unknown key ignored (below)"))
        #expect(lax.standardError.contains(warning), "\(lax.standardError)")
        let strict = try await CommandRunner.run(["validate", "--strict", venue.path])
        #expect(strict.status == 1)
        #expect(strict.standardOutput.contains("not valid with --strict"))
        #expect(strict.standardError.contains(warning))
        let located = try await CommandRunner.run(["locate", "--venue", venue.path, "--recording", "Examples/visit.jsonl", "--quiet",
                                             "-o", directory.appendingPathComponent("fixes.jsonl").path])
        #expect(located.status == 0, "\(located.standardError)")
        #expect(located.standardError.contains(warning), "\(located.standardError)")

        // The venue given as the recording is named as what it is.
        let swapped = try await CommandRunner.run(["locate", "--venue", "Examples/venue.json", "--recording", "Examples/venue.json"])
        #expect(swapped.status == 1)
        #expect(swapped.standardError.contains(#"this is a venue (it lists "beacons"), a single JSON document, not a recording"#),
                "\(swapped.standardError)")
    }

    /// `locate`, `rank` and `watch` refuse what `validate` refuses, with the same words: a scan
    /// whose time goes back for its device.
    @Test("the commands agree with validate on a recording whose time goes back", arguments: ["locate", "rank", "watch"])
    func timeGoingBackIsRefusedAsValidateRefusesIt(command: String) async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recording = directory.appendingPathComponent("back.jsonl")
        try Data("""
        {"t": 1, "device": "p", "readings": [{"beacon": "h1-1", "rssi": -60}]}
        {"t": 3, "device": "p", "readings": [{"beacon": "h1-1", "rssi": -61}]}
        {"t": 2, "device": "p", "readings": [{"beacon": "h1-1", "rssi": -62}]}

        """.utf8).write(to: recording)
        let problem = "\(recording.path):3: t: time goes back from 3.0 to 2.0 for device \"p\""
        let validated = try await CommandRunner.run(["validate", recording.path])
        #expect(validated.status == 1)
        #expect(validated.standardError.contains("error: " + problem))
        let output = try await CommandRunner.run([command, "--venue", "Examples/venue.json", "--recording", recording.path])
        #expect(output.status == 1)
        #expect(output.standardError.contains("error: " + problem), "\(output.standardError)")
    }

    /// A mistyped option is answered with the option of the command it most likely meant — a
    /// prefix, a case, a few edits — or with no guess at all, never a far one.
    @Test("a mistyped option suggests the command's nearest option", arguments: [
        (["locate", "--venue", "Examples/venue.json", "--algo", "knn"], "Unknown option '--algo'. Did you mean '--algorithm'?"),
        (["locate", "--venue", "Examples/venue.json", "--recordnig", "x"], "Unknown option '--recordnig'. Did you mean '--recording'?"),
        (["users", "add", "ann", "--data-dirr", "d"], "Unknown option '--data-dirr'. Did you mean '--data-dir'?"),
        (["locate", "--venue", "Examples/venue.json", "--colour", "red"], "Unknown option '--colour'.\n"),
        // A misspelt required option: ArgumentParser would only say that --venue is missing.
        (["locate", "--venu", "Examples/venue.json", "--recording", "x"], "Unknown option '--venu'. Did you mean '--venue'?"),
        (["eval", "--venue", "Examples/venue.json", "--tset=x"], "Unknown option '--tset'. Did you mean '--test'?"),
        (["locate", "--recording", "x"], "Missing expected argument '--venue"),
    ])
    func optionTypos(arguments: [String], message: String) {
        let output = InProcessCommand.parse(arguments)
        #expect(output.status == 64)
        #expect(output.standardError.hasPrefix("error: " + message), "\(output.standardError)")
    }

    /// One style for every failure, ArgumentParser's usage errors included: `error: …`, then the
    /// command's own usage.
    @Test func usageErrorsReadLikeTheToolsOwnErrors() {
        let output = InProcessCommand.parse(["locate", "--venue", "Examples/venue.json", "--algorithm", "nope"])
        #expect(output.status == 64)
        #expect(output.standardError.hasPrefix("error: The value 'nope' is invalid for '--algorithm <name>'"), "\(output.standardError)")
        #expect(output.standardError.contains("Usage: whereabouts locate"))
        #expect(!output.standardError.contains("Error:"))
        let help = InProcessCommand.parse(["eval", "--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("--quiet"))
    }

    /// A failure while a command runs is written as a usage error is: `error: …`.
    @Test func failuresWhileRunningReadLikeUsageErrors() async throws {
        let missing = try await CommandRunner.run(["eval", "--venue", "nothere.json", "--test", "Examples/visit.jsonl", "--quiet"])
        #expect(missing.status == 1)
        #expect(missing.standardError.hasPrefix("error: nothere.json: no such file (the venue)"), "\(missing.standardError)")
    }

    @Test func validateReportsABadVenue() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = directory.appendingPathComponent("venue.json")
        try Data(#"{"beacons": [{"id": "a"}, {"id": "a"}]}"#.utf8).write(to: venue)
        let output = try await CommandRunner.run(["validate", venue.path, "/nonexistent.jsonl"])
        #expect(output.status == 1)
        #expect(output.standardError.contains(#"\#(venue.path):1:34: beacons[1].id: duplicate beacon id "a" (also beacons[0])"#))
        #expect(output.standardError.contains("/nonexistent.jsonl: no such file"))
        #expect(output.standardError.contains("2 of 2 files failed validation"))
    }

    @Test func calibrateRecoversTheSimulatedRoomAndWritesTheVenue() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venueText = """
        {"defaults": {"txPower": -70, "pathLossExponent": 3},
         "beacons": [{"id": "a", "x": 0, "y": 0, "txPower": -59, "pathLossExponent": 2}, {"id": "b", "x": 10, "y": 0, "txPower": -59, "pathLossExponent": 2},
                     {"id": "c", "x": 0, "y": 10, "txPower": -59, "pathLossExponent": 2}, {"id": "d", "x": 10, "y": 10, "txPower": -59, "pathLossExponent": 2}]}
        """
        let venue = directory.appendingPathComponent("venue.json")
        try Data(venueText.utf8).write(to: venue)
        let walk = directory.appendingPathComponent("walk.json")
        try Data(#"{"device": "phone", "speed": 1, "waypoints": [{"x": 1, "y": 1}, {"x": 9, "y": 1}, {"x": 9, "y": 9}, {"x": 1, "y": 9}, {"x": 1, "y": 1}]}"#.utf8).write(to: walk)
        let recording = directory.appendingPathComponent("walk.jsonl")
        let simulated = try await CommandRunner.run(["simulate", "--venue", venue.path, "--walk", walk.path, "--seed", "5",
                                               "--multipath-share", "0", "--packet-loss", "0", "--shadowing", "1", "-o", recording.path])
        #expect(simulated.status == 0, "\(simulated.standardError)")
        let out = directory.appendingPathComponent("calibrated.json")
        let output = try await CommandRunner.run(["calibrate", "--venue", venue.path, "--recording", recording.path, "-o", out.path])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("Venue fit"))
        let calibrated = try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any]
        let defaults = try #require(calibrated?["defaults"] as? [String: Any])
        // The simulated beacons are at −59 dBm and n = 2; 1 dB shadowing leaves the fit within a few tenths.
        let txPower = try #require(defaults["txPower"] as? Double), exponent = try #require(defaults["pathLossExponent"] as? Double)
        #expect(abs(txPower - -59) < 1)
        #expect(abs(exponent - 2) < 0.15)
        // The recording's one receiver reads like the fit: listed with offset 0.
        let devices = try #require(calibrated?["devices"] as? [[String: Any]])
        #expect(devices.count == 1)
        #expect(devices.first?["id"] as? String == "phone")
        #expect(devices.first?["rssiOffset"] as? Double == 0)
        #expect(output.standardOutput.contains("1 device)"))
    }

    @Test func calibrateWithoutTruthExplainsWhy() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = directory.appendingPathComponent("venue.json")
        try Data(#"{"beacons": [{"id": "a", "x": 0, "y": 0}]}"#.utf8).write(to: venue)
        let recording = directory.appendingPathComponent("r.jsonl")
        try Data(#"{"t": 1, "readings": [{"beacon": "a", "rssi": -60}]}"#.utf8).write(to: recording)
        let output = try await CommandRunner.run(["calibrate", "--venue", venue.path, "--recording", recording.path])
        #expect(output.status != 0)
        #expect(output.standardError.contains("truth"))
    }

    @Test func demoRunsTheBundledExample() async throws {
        let output = try await CommandRunner.run(["demo"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("the visitor went through hall3 → hall4 → hall6 → hall8 → hall81"))
        #expect(output.standardOutput.contains("625 scans"))
        // Built by `swift run`, not installed yet: the hints run it as it was run.
        #expect(output.standardOutput.contains("Next: swift run whereabouts eval --venue Examples/venue.json"))
        // The server hint is the README's: a data folder with a user, then the server on it.
        #expect(output.standardOutput.contains("swift run whereabouts users add alice --data-dir data"))
        #expect(output.standardOutput.contains("swift run whereabouts serve --data-dir data --venue Examples/venue.json"))
        #expect(output.standardOutput.contains("58–78 % is the band"))
    }

    /// The demo says what it does before the seconds of survey and set-up, not all at the end:
    /// its first lines reach a pipe while the rest is still being worked out.
    @Test func demoSpeaksBeforeItWorks() async throws {
        let process = Process()
        process.executableURL = CommandRunner.productsDirectory.appendingPathComponent("whereabouts")
        process.arguments = ["demo"]
        process.currentDirectoryURL = CommandRunner.packageRoot
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = out.fileHandleForReading
        let first = await DedicatedThread.run {
            var early = Data()
            while !String(decoding: early, as: UTF8.self).contains("Survey   simulating") {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                early += chunk
            }
            _ = reader.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: early, as: UTF8.self)
        }
        #expect(first.hasPrefix("Whereabouts demo: the bundled example (Examples/)"))
        #expect(first.contains("Survey   simulating"))
        #expect(!first.contains("Timeline"), "the first lines came with the timeline, at the end")
    }
}
