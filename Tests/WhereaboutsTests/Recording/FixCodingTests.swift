import Foundation
import Testing
@testable import Whereabouts

@Suite("Fixes (JSON Lines)")
struct FixCodingTests {
    private let full = Fix(time: 1_700_000_012.25, device: "phone", point: SpatialPoint(x: 2.91349, y: -1.84251, z: 1.2),
                           floor: 1, accuracy: 1.3456, coordinate: GeoCoordinate(latitude: 41.355016512345, longitude: 2.132034812345),
                           beacons: ["node1", "node4"], method: "centroid")

    private func keys(_ value: JSONValue) -> [String] {
        guard case .object(let members) = value else { return [] }
        return members.map(\.key)
    }

    @Test func encodesTheDocumentedKeysInOrder() {
        #expect(keys(FixCoding.encode(full)) == ["t", "device", "x", "y", "z", "floor", "accuracy", "latitude", "longitude",
                                                 "method", "beacons"])
        let bare = Fix(time: 3, point: SpatialPoint(x: 1, y: 2, z: 0), accuracy: 4, method: "m")
        #expect(keys(FixCoding.encode(bare)) == ["t", "x", "y", "z", "accuracy", "method", "beacons"])
        #expect(FixCoding.line(for: bare) == #"{"t":3,"x":1,"y":2,"z":0,"accuracy":4,"method":"m","beacons":[]}"#)
    }

    @Test func roundsLengthsAndAnglesButNeverTime() {
        let line = FixCoding.line(for: full, decimalPlaces: 3)
        #expect(line == #"{"t":1700000012.25,"device":"phone","x":2.913,"y":-1.843,"z":1.2,"floor":1,"accuracy":1.346,"#
                + #""latitude":41.35501651,"longitude":2.13203481,"method":"centroid","beacons":["node1","node4"]}"#)
    }

    @Test func roundTripsExactlyAtFullPrecision() throws {
        #expect(try FixCoding.decode(line: FixCoding.line(for: full)) == full)
        var random = SeededRandom(seed: 5)
        for i in 0..<300 {
            let hasCoordinate = random.below(2) == 0
            let fix = Fix(time: random.nextUniform() * 1e9, device: random.below(3) == 0 ? nil : "device \"\(i)\"\n",
                          point: SpatialPoint(x: random.nextGaussian() * 100, y: random.nextGaussian() * 100, z: random.nextUniform() * 3),
                          floor: random.below(2) == 0 ? nil : random.below(7) - 3, accuracy: random.nextUniform() * 10,
                          coordinate: hasCoordinate ? GeoCoordinate(latitude: random.nextUniform() * 180 - 90,
                                                                    longitude: random.nextUniform() * 360 - 180) : nil,
                          beacons: (0..<random.below(5)).map { "b\($0)" }, method: "centroid")
            #expect(try FixCoding.decode(line: FixCoding.line(for: fix)) == fix)
        }
    }

    @Test func decodingFillsDefaultsAndNamesBadKeys() throws {
        let minimal = try FixCoding.decode(line: #"{"t": 1, "x": 2, "y": 3, "accuracy": 0.5, "extra": true}"#)
        #expect(minimal == Fix(time: 1, point: SpatialPoint(x: 2, y: 3, z: 0), accuracy: 0.5, method: ""))
        #expect(throws: FormatError(key: "accuracy", message: "missing required key")) {
            try FixCoding.decode(line: #"{"t": 1, "x": 2, "y": 3}"#)
        }
        #expect(throws: FormatError(key: "x", message: "expected a number, found a string")) {
            try FixCoding.decode(line: #"{"t": 1, "x": "2", "y": 3, "accuracy": 1}"#)
        }
        #expect(throws: FormatError(key: "beacons[1]", message: "expected a string, found a number")) {
            try FixCoding.decode(line: #"{"t": 1, "x": 2, "y": 3, "accuracy": 1, "beacons": ["a", 2]}"#)
        }
        #expect(throws: FormatError.self) {
            try FixCoding.decode(line: #"{"t": 1, "x": 2, "y": 3, "accuracy": 1, "latitude": 40}"#)
        }
        #expect(throws: FormatError.self) { try FixCoding.decode(line: "{not json") }
    }

    @Test func placesOfAPosteriorRoundTripAndAreChecked() throws {
        var fix = Fix(time: 3, point: SpatialPoint(x: 1, y: 2, z: 0), accuracy: 4, method: "posterior",
                      placeProbabilities: [PlaceEstimate(place: "kitchen", probability: 0.823456), PlaceEstimate(place: "hall", probability: 0.1)])
        #expect(keys(FixCoding.encode(fix)).last == "places")
        #expect(FixCoding.line(for: fix, decimalPlaces: 3).hasSuffix(
            #""beacons":[],"places":[{"id":"kitchen","probability":0.8235},{"id":"hall","probability":0.1}]}"#))
        #expect(try FixCoding.decode(line: FixCoding.line(for: fix)) == fix)
        // In no place at all: an empty list, which is not the same as none given.
        fix.placeProbabilities = []
        #expect(try FixCoding.decode(line: FixCoding.line(for: fix)).placeProbabilities == [])
        #expect(throws: FormatError(key: "places[0].probability", message: "a probability must be between 0 and 1, not 1.5")) {
            try FixCoding.decode(line: #"{"t": 1, "x": 2, "y": 3, "accuracy": 1, "places": [{"id": "a", "probability": 1.5}]}"#)
        }
        #expect(throws: FormatError(key: "places[0].id", message: "missing required key")) {
            try FixCoding.decode(line: #"{"t": 1, "x": 2, "y": 3, "accuracy": 1, "places": [{"probability": 0.5}]}"#)
        }
    }

    @Test func writerWritesOneLineAFixAndPublishesTheFileOnFinish() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fixes-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("fixes.jsonl")
        let writer = try FixWriter(url: url, decimalPlaces: nil)
        // Enough fixes to pass the flush threshold more than once.
        let fixes = (0..<3000).map { i in
            Fix(time: Double(i), device: "d", point: SpatialPoint(x: Double(i) / 7, y: 1, z: 0), accuracy: 2,
                beacons: ["a", "b"], method: "centroid")
        }
        for fix in fixes { try writer.write(fix) }
        #expect(!FileManager.default.fileExists(atPath: url.path))
        try writer.finish()
        #expect(writer.fixesWritten == 3000)
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3000)
        #expect(try lines.map { try FixCoding.decode(line: String($0)) } == fixes)
        #expect(throws: (any Error).self) { try writer.write(fixes[0]) }
    }
}
