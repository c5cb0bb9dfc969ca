import Foundation
import Testing
@testable import Whereabouts

@Suite("Unknown keys and where errors are")
struct UnknownKeyTests {
    /// A venue with two misspelt defaults, the same misspelt key in two beacons and a key of
    /// provenance; line and column counted by hand from the text.
    static let venue = """
    {
      "name": "hall",
      "defaults": {"txpower": -59,
                   "pathlossExponent": 3.1},
      "beacons": [
        {"id": "a", "x": 0, "y": 0},
        {"id": "b", "x": 1, "y": 0, "flor": 0},
        {"id": "c", "x": 2, "y": 0, "flor": 0}
      ],
      "source": "survey of 2024"
    }
    """

    @Test("a venue's unknown keys are listed in file order, with line, column and the key they most likely meant")
    func venueUnknownKeys() throws {
        var unknownKeys: [UnknownKey] = []
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("venue-\(UUID()).json")
        try Data(Self.venue.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let venue = try VenueFile.read(from: url, unknownKeys: &unknownKeys)
        // The misspelt values are not taken: the defaults stay the format's.
        #expect(venue.defaults == Venue.Defaults())
        #expect(unknownKeys == [
            UnknownKey(file: url.path, line: 3, column: 16, key: "defaults.txpower", suggestion: "txPower"),
            UnknownKey(file: url.path, line: 4, column: 16, key: "defaults.pathlossExponent", suggestion: "pathLossExponent"),
            UnknownKey(file: url.path, line: 7, column: 33, key: "beacons[1].flor", suggestion: "floor", occurrences: 2),
            UnknownKey(file: url.path, line: 10, column: 3, key: "source"),
        ])
        #expect(unknownKeys[0].description == url.path + #":3:16: defaults.txpower: unknown key, ignored — did you mean "txPower"?"#)
        #expect(unknownKeys[2].description.hasSuffix(#"did you mean "floor"? (2 times)"#))
        // Read as before, the keys are ignored in silence (files from newer writers stay readable).
        #expect(try VenueFile.read(from: url) == venue)
    }

    @Test("a wrong type names the line and column of the value; a missing key the object's, with the misspelt neighbour")
    func typeErrorsCarryTheirPlace() throws {
        let wrongType = Self.venue.replacingOccurrences(of: #""id": "c", "x": 2"#, with: #""id": "c", "x": "2""#)
        #expect(throws: FormatError(file: "v.json", line: 8, column: 22, key: "beacons[2].x", message: "expected a number, found a string")) {
            try VenueFile.decode(Array(wrongType.utf8), file: "v.json")
        }
        let missing = Self.venue.replacingOccurrences(of: #"{"id": "b", "#, with: #"{"di": "b", "#)
        #expect(throws: FormatError(file: "v.json", line: 7, column: 5, key: "beacons[1].id",
                                    message: #"missing required key (is "di" it, misspelt?)"#)) {
            try VenueFile.decode(Array(missing.utf8), file: "v.json")
        }
    }

    @Test("a walk's unknown keys are reported; a model's data keys and trees are not")
    func walkAndModel() throws {
        let walk = #"{"speed": 1.2, "waypoints": [{"x": 0, "y": 0}, {"x": 4, "y": 0, "dwel": 5}]}"#
        var unknownKeys: [UnknownKey] = []
        _ = try JSONDocument.decode(Array(walk.utf8), file: "walk.json", unknownKeys: &unknownKeys, with: WalkFile.decode(root:))
        #expect(unknownKeys == [UnknownKey(file: "walk.json", line: 1, column: 65, key: "waypoints[1].dwel", suggestion: "dwell")])

        let set = PlaceTrainingSet(scans: RoomTestData.survey(means: RoomTestData.fourPlaces, count: 10, sigma: 5, seed: 5))
        for kind in PlaceClassifierKind.allCases {
            let text = JSONWriter().string(from: PlaceModelFile.encode(PlaceModel.train(kind, on: set)))
            var modelKeys: [UnknownKey] = []
            _ = try JSONDocument.decode(Array(text.utf8), file: "m.json", unknownKeys: &modelKeys, with: PlaceModelFile.decode(root:))
            #expect(modelKeys.isEmpty, "\(kind): \(modelKeys)")
        }
    }

    @Test("the names suggested: case, a prefix, a few edits, and nothing when nothing is near", arguments: [
        ("txpower", ["txPower", "pathLossExponent"], "txPower"),
        ("pathlossExponent", ["txPower", "pathLossExponent"], "pathLossExponent"),
        ("algo", ["algorithm", "lag", "lenient"], "algorithm"),
        ("flor", ["floor", "place"], "floor"),
        ("palce", ["floor", "place"], "place"),
        ("colour", ["txPower", "floor"], nil),
        ("a", ["algorithm", "all"], nil),
    ] as [(String, [String], String?)])
    func suggestions(typed: String, known: [String], expected: String?) {
        #expect(NearestName.suggestion(for: typed, among: known) == expected)
    }

    @Test("a recording's unknown keys: one entry a pattern, where first seen, counted over lines, bounded")
    func recordingUnknownKeys() throws {
        var lines = [
            #"{"t": 1, "src": 3, "readings": [{"beacon": "a", "rssi": -50}], "truth": {"x": 1, "y": 2, "plac": "p"}}"#,
            #"{"t": 2, "src": 3, "readings": [{"beacon": "a", "rssi": -50, "txpower": -59}]}"#,
            #"{"t": 3, "src": 4, "readings": [{"beacon": "a", "rssi": -50}, {"beacon": "b", "rssi": -70, "txpower": -59}]}"#,
        ]
        for index in 0..<150 { lines.append(#"{"t": \#(4 + index), "k\#(index)": 0, "readings": []}"#) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID()).jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try RecordingReader(url: url)
        var scans: [Scan] = []
        while let scan = try reader.next() { scans.append(scan) }
        #expect(scans.count == 153)
        #expect(scans[1].readings.first?.txPower == nil)
        #expect(Array(reader.unknownKeys.prefix(3)) == [
            UnknownKey(file: url.path, line: 1, column: 10, key: "src", occurrences: 3),
            UnknownKey(file: url.path, line: 1, column: 90, key: "truth.plac", suggestion: "place"),
            UnknownKey(file: url.path, line: 2, column: 62, key: "readings[0].txpower", suggestion: "txPower", occurrences: 2),
        ])
        #expect(reader.unknownKeys.count == RecordingReader.maximumUnknownKeyPatterns)
    }

    @Test("a venue, a walk or a model given as a recording is named as such")
    func documentAsRecording() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("venue-\(UUID()).json")
        try Data(Self.venue.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect {
            _ = try RecordingReader(url: url).next()
        } throws: { error in
            String(describing: error).hasPrefix(url.path + #":1: this is a venue (it lists "beacons"), a single JSON document, not a recording"#)
        }
    }
}
