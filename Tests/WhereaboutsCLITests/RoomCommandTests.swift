import Foundation
import Testing

/// `train`, `classify` and `eval --classifier` on a small hand-made survey: two rooms on two
/// floors, three beacons, and a test walk that stays in each room.
@Suite("whereabouts train, classify, eval --classifier")
struct RoomCommandTests {
    private static let venue = """
    {"floors": [{"level": 0}, {"level": 1}],
     "beacons": [{"id": "b1", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1}, {"id": "b2"}, {"id": "b3"}],
     "places": [{"id": "kitchen", "floor": 0}, {"id": "study", "floor": 1}]}
    """

    /// Scans of a room with RSSI that wobble by a few dB around the room's levels.
    private static func lines(_ place: String?, _ levels: [Double], count: Int, start: Int) -> [String] {
        (0..<count).map { i in
            let wobble = Double([0, 2, -3, 1, -1, 3, -2][i % 7])
            let readings = levels.enumerated().map { #"{"beacon":"b\#($0.offset + 1)","rssi":\#(Int($0.element + wobble * Double($0.offset % 2 == 0 ? 1 : -1)))}"# }
            let truth = place.map { #","truth":{"place":"\#($0)","floor":\#($0 == "kitchen" ? 0 : 1)}"# } ?? ""
            return #"{"t":\#(start + i),"device":"phone","readings":[\#(readings.joined(separator: ","))]\#(truth)}"#
        }
    }

    private func files() throws -> (URL, URL, URL, URL) {
        let directory = try CommandRunner.temporaryDirectory()
        let venue = directory.appendingPathComponent("venue.json")
        let train = directory.appendingPathComponent("train.jsonl")
        let test = directory.appendingPathComponent("test.jsonl")
        try Data(Self.venue.utf8).write(to: venue)
        let kitchen = [-60.0, -75, -85], study = [-82.0, -70, -62]
        try Data((Self.lines("kitchen", kitchen, count: 20, start: 0) + Self.lines("study", study, count: 20, start: 20))
            .joined(separator: "\n").utf8).write(to: train)
        try Data((Self.lines("kitchen", kitchen, count: 5, start: 100) + Self.lines("study", study, count: 5, start: 105))
            .joined(separator: "\n").utf8).write(to: test)
        return (directory, venue, train, test)
    }

    @Test("help has an example", arguments: ["train", "classify"])
    func helpHasAnExample(command: String) {
        let output = InProcessCommand.parse([command, "--help"])
        #expect(output.status == 0)
        #expect(output.standardOutput.contains("\nExamples:\n"))
        #expect(output.standardOutput.contains("whereabouts \(command)"))
    }

    @Test func trainThenClassify() async throws {
        let (directory, venue, train, test) = try files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appendingPathComponent("model.json")
        let trained = try await CommandRunner.run(["train", "--venue", venue.path, "--recording", train.path, "-o", model.path])
        #expect(trained.status == 0, "\(trained.standardError)")
        #expect(trained.standardError.contains("default classifier of 2 places and 40 scans"))
        // It says which model it chose and what each scored held out.
        #expect(trained.standardError.contains("; chose the "))
        #expect(trained.standardError.contains("forest ") && trained.standardError.contains("naive-bayes "), "\(trained.standardError)")
        let text = try String(contentsOf: model, encoding: .utf8)
        #expect(text.hasPrefix(#"{"format":"whereabouts-place-model","version":1,"kind":"default""#))

        let out = directory.appendingPathComponent("places.jsonl")
        // The output file's extension says the format: JSON Lines without --json.
        let classified = try await CommandRunner.run(["classify", "--model", model.path, "--recording", test.path, "-o", out.path])
        #expect(classified.status == 0, "\(classified.standardError)")
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 10)
        #expect(lines.first?.hasPrefix(#"{"t":100,"device":"phone","place":"kitchen","probability":"#) == true)
        #expect(lines.last?.contains(#""place":"study""#) == true)
        #expect(lines.last?.hasSuffix(#""floor":1}"#) == true)

        // The survey's own phone learns no offset.
        #expect(!classified.standardError.contains("Learnt"), "\(classified.standardError)")
        // A visitor's phone reading 6 dB low does, and the command says what it learnt.
        let visitor = directory.appendingPathComponent("visitor.jsonl")
        let kitchen = [-66.0, -81, -91], study = [-88.0, -76, -68]
        try Data((Self.lines("kitchen", kitchen, count: 5, start: 100) + Self.lines("study", study, count: 5, start: 105))
            .joined(separator: "\n").replacingOccurrences(of: #""device":"phone""#, with: #""device":"visitor""#).utf8).write(to: visitor)
        let learnt = try await CommandRunner.run(["classify", "--model", model.path, "--recording", visitor.path, "-o", out.path])
        #expect(learnt.status == 0)
        #expect(learnt.standardError.contains("Learnt the RSSI offsets of phones the survey did not use: visitor -"), "\(learnt.standardError)")
        #expect(learnt.standardError.contains(" dB (10 scans)."), "\(learnt.standardError)")

        let table = try await CommandRunner.run(["classify", "--model", model.path, "--recording", test.path])
        #expect(table.standardOutput.hasPrefix("t\tdevice\tplace\tprobability\tfloor\n100\tphone\tkitchen\t"))
        let tsv = directory.appendingPathComponent("places.tsv")
        let named = try await CommandRunner.run(["classify", "--model", model.path, "--recording", test.path, "-o", tsv.path])
        #expect(named.status == 0)
        #expect(try String(contentsOf: tsv, encoding: .utf8).hasPrefix("t\tdevice\tplace\tprobability\tfloor\n100\tphone\tkitchen\t"))
    }

    @Test func aFormatAtOddsWithTheOutputFileIsRefused() {
        let mismatch = InProcessCommand.parse(["classify", "--model", "model.json", "--recording", "test.jsonl", "--json", "-o", "places.tsv"])
        #expect(mismatch.status == 64)
        #expect(mismatch.standardError.contains("--json asks for JSON Lines, but places.tsv is named as a tab-separated table"),
                "\(mismatch.standardError)")
    }

    /// The venue's beacons have no positions, so only a room classifier can name the places:
    /// `watch --model` enters the kitchen, then leaves it before entering the study.
    @Test func watchNamesPlacesWithAModel() async throws {
        let (directory, venue, train, test) = try files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appendingPathComponent("model.json")
        let trained = try await CommandRunner.run(["train", "--venue", venue.path, "--recording", train.path, "-o", model.path])
        #expect(trained.status == 0, "\(trained.standardError)")
        let output = try await CommandRunner.run(["watch", "--venue", venue.path, "--recording", test.path, "--model", model.path])
        #expect(output.status == 0, "\(output.standardError)")
        let places = output.standardOutput.split(separator: "\n").filter { $0.contains("Location") }.map {
            $0.split(separator: " ").dropFirst(2).prefix(2).joined(separator: " ")
        }
        #expect(places == ["enterLocation kitchen", "exitLocation kitchen", "enterLocation study", "exitLocation study"])
        let missing = try await CommandRunner.run(["watch", "--venue", venue.path, "--recording", test.path, "--model", "nothing.json"])
        #expect(missing.status != 0 && missing.standardError.contains("nothing.json"))
    }

    @Test func bluenetExportTrainsTheSameModel() async throws {
        let (directory, venue, train, _) = try files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bluenet = directory.appendingPathComponent("training.json")
        let exported = try await CommandRunner.run(["train", "--venue", venue.path, "--recording", train.path, "--format", "bluenet", "-o", bluenet.path])
        #expect(exported.status == 0, "\(exported.standardError)")
        let text = try String(contentsOf: bluenet, encoding: .utf8)
        #expect(text.hasPrefix(#"{"kitchen":[{"devices":{"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0_Maj:1_Min:1":-60,"b2":-75,"b3":-85},"timestamp":0}"#))
        let fromRecording = directory.appendingPathComponent("a.json"), fromBluenet = directory.appendingPathComponent("b.json")
        _ = try await CommandRunner.run(["train", "--venue", venue.path, "--recording", train.path, "--classifier", "naive-bayes", "-o", fromRecording.path])
        let again = try await CommandRunner.run(["train", "--venue", venue.path, "--recording", bluenet.path, "--classifier", "naive-bayes", "-o", fromBluenet.path])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(try Data(contentsOf: fromRecording) == Data(contentsOf: fromBluenet))
    }

    @Test func evalScoresTheClassifierWhenTheTrainingHasPlaces() async throws {
        let (directory, venue, train, test) = try files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try await CommandRunner.run(["eval", "--venue", venue.path, "--test", test.path, "--train", train.path, "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains(#""algorithm":"default","units":"m","scans":10,"located":10,"floorAccuracy":1,"placeAccuracy":1,"placeLocated":10"#))
        let all = try await CommandRunner.run(["eval", "--venue", venue.path, "--test", test.path, "--train", train.path,
                                         "--classifier", "all", "--json"])
        for name in ["default", "naive-bayes", "basic", "knn"] { #expect(all.standardOutput.contains(#""algorithm":"\#(name)""#)) }
        // Every record says it scores a classifier, under a name no other record has.
        let records = try #require(try JSONSerialization.jsonObject(with: Data(all.standardOutput.utf8)) as? [[String: Any]])
        #expect(records.allSatisfy { $0["kind"] as? String == "classifier" })
        let names = records.compactMap { $0["name"] as? String }
        #expect(names.count == records.count && Set(names).count == names.count)
        #expect(names.contains("classifier:knn"))
    }

    @Test func anUnknownClassifierIsRefused() {
        let unknown = InProcessCommand.parse(["eval", "--venue", "venue.json", "--test", "test.jsonl", "--train", "train.jsonl",
                                              "--classifier", "svm"])
        #expect(unknown.status == 64)
        #expect(unknown.standardError.contains("The value 'svm' is invalid for '--classifier <name>'"))
    }

    @Test func modelErrorsNameTheFile() async throws {
        let (directory, _, _, test) = try files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appendingPathComponent("model.json")
        try Data(#"{"format":"whereabouts-place-model","version":1,"kind":"default","places":[],"beacons":[{"id":3}]}"#.utf8).write(to: model)
        let output = try await CommandRunner.run(["classify", "--model", model.path, "--recording", test.path])
        #expect(output.status != 0)
        #expect(output.standardError.contains("model.json:1:95: beacons[0].id: expected a string, found a number"))
    }
}
