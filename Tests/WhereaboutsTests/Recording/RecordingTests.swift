import Foundation
import Testing
@testable import Whereabouts

private func temporaryFile(_ contents: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID()).jsonl")
    try Data(contents.utf8).write(to: url)
    return url
}

private func readAll(_ reader: RecordingReader) throws -> [Scan] {
    var scans: [Scan] = []
    while let scan = try reader.next() { scans.append(scan) }
    return scans
}

@Suite("Recordings (JSON Lines)")
struct RecordingTests {
    @Test func readsTheFormatsExamples() throws {
        let url = try temporaryFile("""
        {"t": 1539878121.25, "device": "A5", "readings": [{"beacon": "23", "rssi": -67}, {"beacon": "24", "rssi": -80}], "truth": {"x": 29.22, "y": 12.91, "floor": 0, "place": "O02"}}
        {"t": 1539878122.25, "readings": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 24, "rssi": -79, "txPower": -59}]}

        {"t": 1539878123, "track": "walk-1", "readings": [{"namespace": "EDD1EBEAC04E5DEFA017", "instance": "0bdb87539b67", "rssi": -70.5}], "src": 17}
        {"t": 1539878124, "readings": []}
        """)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try RecordingReader(url: url)
        let scans = try readAll(reader)
        #expect(scans.count == 4)
        #expect(scans[0] == Scan(time: 1539878121.25, device: "A5",
                                 readings: [Reading(beacon: .id("23"), rssi: -67), Reading(beacon: .id("24"), rssi: -80)],
                                 truth: GroundTruth(x: 29.22, y: 12.91, floor: 0, place: "O02")))
        let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        #expect(scans[1].readings == [Reading(beacon: .iBeacon(IBeaconIdentity(uuid: uuid, major: 1, minor: 24)), rssi: -79, txPower: -59)])
        #expect(scans[2].track == "walk-1")
        #expect(scans[2].readings.first?.beacon == .eddystone(EddystoneIdentity(namespace: "edd1ebeac04e5defa017", instance: "0bdb87539b67")!))
        #expect(scans[3].readings.isEmpty)
        #expect(reader.lineNumber == 5)
        #expect(reader.readingsRead == 4)
    }

    /// FORMATS.md §2: each device's (and track's) clock never goes back. A strict reader stops
    /// at the scan that breaks it, as `validate` reports it; a lenient one skips that scan only.
    @Test func aScanWhoseTimeGoesBackForItsDeviceIsABadLine() throws {
        let text = """
        {"t": 10, "device": "a", "readings": []}
        {"t": 5, "device": "b", "readings": []}
        {"t": 10, "device": "a", "track": "2", "readings": []}
        {"t": 9, "device": "a", "track": "2", "readings": []}
        {"t": 11, "device": "a", "readings": []}
        {"t": 9.5, "device": "a", "readings": []}
        {"t": 6, "device": "b", "readings": []}
        """
        let url = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(at: url) }
        let strict = try RecordingReader(url: url)
        #expect(try strict.next()?.time == 10)
        #expect(try strict.next()?.time == 5)
        #expect(try strict.next()?.time == 10)
        #expect {
            try strict.next()
        } throws: { error in
            String(describing: error).hasPrefix(#"\#(url.path):4: t: time goes back from 10.0 to 9.0 for device "a", track "2""#)
        }
        let lenient = try RecordingReader(url: url, options: .lenient)
        #expect(try readAll(lenient).map(\.time) == [10, 5, 10, 11, 6])
        #expect(lenient.skippedLines == 2)
        #expect(lenient.problems.map(\.line) == [4, 6])
    }

    @Test func invalidReadingsAreSkippedAndCounted() throws {
        let url = try temporaryFile("""
        {"t": 1, "readings": [{"beacon": "a", "rssi": 0}, {"beacon": "b", "rssi": -60}, {"beacon": "c", "rssi": 12}]}
        {"t": 2, "readings": [{"beacon": "a", "rssi": -61}]}
        """)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try RecordingReader(url: url)
        let scans = try readAll(reader)
        #expect(scans.map(\.readings.count) == [1, 1])
        #expect(scans[0].readings[0].beacon == .id("b"))
        #expect(reader.skippedReadings == 2)
    }

    @Test("bad lines name the file, the line and the key", arguments: [
        (#"{"readings": []}"#, ":2: t: missing required key"),
        (#"{"t": "1", "readings": []}"#, ":2:7: t: expected a number, found a string"),
        (#"{"t": 1, "readings": [{"beacon": "a"}]}"#, ":2:23: readings[0].rssi: missing required key"),
        (#"{"t": 1, "readings": [{"rssi": -50}]}"#, #":2:23: readings[0]: a reading names its beacon by "beacon""#),
        (#"{"t": 1, "readings": [{"beacon": "a", "rssi": -50}], "truth": {"x": 1}}"#, #":2:63: truth: "x" and "y" must be given together"#),
        (#"{"t": 1, "readings": [{"beacon": "a", "rssi": -50}], "truth": {"floor": 0.5}}"#, ":2:73: truth.floor: expected an integer, found 0.5"),
        (#"{"t": 1, "readings": {}}"#, ":2:22: readings: expected an array, found an object"),
        (#"{"t": 1, "readings": [}"#, ":2:23: not valid JSON: expected a value, found '}' — each line of a recording is one scan"),
        ("[1, 2]", ":2: expected an object, found an array"),
    ])
    func strictErrors(line: String, message: String) throws {
        let url = try temporaryFile(#"{"t": 0, "readings": []}"# + "\n" + line + "\n" + #"{"t": 3, "readings": []}"#)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try RecordingReader(url: url)
        #expect(try reader.next()?.time == 0)
        #expect {
            try reader.next()
        } throws: { error in
            let description = String(describing: error)
            return description.hasPrefix(url.path + message)
        }
    }

    @Test func lenientModeSkipsAndCountsBadLinesAndLosesNothingElse() throws {
        let url = try temporaryFile("""
        {"t": 0, "readings": [{"beacon": "a", "rssi": -50}]}
        not json at all
        {"t": 1, "readings": [{"beacon": "a", "rssi": -51}]}
        {"t": "x", "readings": []}
        {"t": 2, "readings": [{"beacon": "a", "rssi": -52}]}
        """)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try RecordingReader(url: url, options: .lenient)
        let scans = try readAll(reader)
        #expect(scans.map(\.time) == [0, 1, 2])
        #expect(reader.skippedLines == 2)
        #expect(reader.problems.map(\.line) == [2, 4])
        #expect(reader.problems[1].key == "t")
    }

    @Test func linesSpanningReadChunksAndCRLFAndNoFinalNewline() throws {
        // 1 MiB chunks: 30 000 lines of ~60 bytes cross the chunk boundary at least once.
        var text = ""
        for i in 0..<30_000 {
            text += #"{"t": \#(i), "readings": [{"beacon": "b\#(i % 7)", "rssi": -\#(40 + i % 50)}]}"#
            text += i % 3 == 0 ? "\r\n" : "\n"
        }
        text += #"{"t": 30000, "readings": []}"#
        let url = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try RecordingReader(url: url)
        var count = 0
        while let scan = try reader.next() {
            #expect(scan.time == Double(count))
            if count < 30_000 {
                #expect(scan.readings == [Reading(beacon: .id("b\(count % 7)"), rssi: -Double(40 + count % 50))])
            }
            count += 1
        }
        #expect(count == 30_001)
        #expect(reader.bytesRead == text.utf8.count)
    }

    @Test func overlongLineIsAnError() throws {
        let url = try temporaryFile(String(repeating: " ", count: 5000) + "\n")
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try RecordingReader(url: url, options: .init(maximumLineLength: 1000))
        #expect(throws: FormatError.self) { try reader.next() }
    }

    @Test func writerRoundTripsEveryKindOfScan() async throws {
        let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        let scans = [
            Scan(time: 1539878121.25, device: "A5", track: "t1",
                 readings: [Reading(beacon: .id("23"), rssi: -67.5, txPower: -59)],
                 truth: GroundTruth(x: 1.5, y: -2, z: 1.2, floor: 1, place: "room \"a\"")),
            Scan(time: 2, readings: [Reading(beacon: .iBeacon(IBeaconIdentity(uuid: uuid, major: 65535, minor: 0)), rssi: -80)]),
            Scan(time: 3, readings: [Reading(beacon: .eddystone(EddystoneIdentity(namespace: "00112233445566778899", instance: "aabbccddeeff")!), rssi: -90)]),
            Scan(time: 4, readings: [], truth: GroundTruth(place: "hall1")),
        ]
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("roundtrip-\(UUID()).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try RecordingWriter(url: url)
        for scan in scans { try writer.write(scan) }
        #expect(!FileManager.default.fileExists(atPath: url.path))   // not under its name until finished
        try writer.finish()
        var read: [Scan] = []
        for try await scan in try RecordingReader(url: url) { read.append(scan) }
        #expect(read == scans)
        #expect(ScanCoding.line(for: scans[3]) == #"{"t":4,"readings":[],"truth":{"place":"hall1"}}"#)
    }

    @Test func writerReplacesAnExistingFileOnlyWhenFinished() throws {
        let url = try temporaryFile("old contents\n")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try RecordingWriter(url: url)
        try writer.write(Scan(time: 1, readings: []))
        #expect(try String(contentsOf: url, encoding: .utf8) == "old contents\n")
        try writer.finish()
        #expect(try String(contentsOf: url, encoding: .utf8) == #"{"t":1,"readings":[]}"# + "\n")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
            .filter { $0.contains(url.lastPathComponent) && $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty)
    }

    @Test func withScansRethrowsTheFirstErrorAfterTheBody() throws {
        let url = try temporaryFile(#"{"t": 0, "readings": []}"# + "\n{oops}\n" + #"{"t": 2, "readings": []}"#)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try RecordingReader(url: url)
        var seen = 0
        #expect(throws: FormatError.self) {
            try reader.withScans { scans in for _ in scans { seen += 1 } }
        }
        #expect(seen == 1)
    }
}

@Suite("Scan decoding paths")
struct ScanDecodingPathTests {
    @Test("the quick path decodes exactly as the checked path", arguments: [
        #"{"t": 1, "readings": []}"#,
        #"{"t": 1.5, "device": "A5", "track": "w", "readings": [{"beacon": "23", "rssi": -67}, {"rssi": -80.5, "beacon": "24"}]}"#,
        #"{"t": 2, "readings": [{"beacon": "a", "rssi": 0}, {"beacon": "b", "rssi": -1}], "truth": {"x": 1, "y": 2, "z": 3, "floor": -1, "place": "p"}}"#,
        #"{"t": 3, "readings": [{"beacon": "a", "rssi": -50}], "truth": {"place": "p", "other": [1]}, "src": 9}"#,
        #"{"t": 4, "t": 5, "readings": [{"beacon": "a", "rssi": -50}]}"#,
    ])
    func pathsAgree(line: String) throws {
        let value = try JSONParser.parse(line)
        let quick = try #require(ScanCoding.quickDecode(value))
        let checked = try ScanCoding.checkedDecode(value)
        #expect(quick.scan == checked.scan)
        #expect(quick.skippedReadings == checked.skippedReadings)
        #expect(quick.unknownKeys == checked.unknownKeys)
    }

    @Test("forms the quick path leaves to the checked path", arguments: [
        #"{"t": 1, "readings": [{"beacon": "a", "rssi": -50, "txPower": -59}]}"#,
        #"{"t": 1, "device": null, "readings": []}"#,
        #"{"t": 1, "readings": [], "truth": {"floor": 0.5}}"#,
    ])
    func quickPathDefers(line: String) throws {
        #expect(ScanCoding.quickDecode(try JSONParser.parse(line)) == nil)
    }
}
