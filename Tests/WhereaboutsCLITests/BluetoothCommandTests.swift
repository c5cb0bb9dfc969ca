import Foundation
import Testing

/// A venue of three iBeacons in a 6 × 4 m room and a btsnoop capture (H4, as Android writes
/// it) of their advertising reports, both written by hand.
private struct CaptureFixture {
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    let directory: URL
    let venue: URL
    let capture: URL
    /// Events in the capture that hold a beacon.
    let beaconEvents: Int

    init() throws {
        directory = try CommandRunner.temporaryDirectory()
        venue = directory.appendingPathComponent("venue.json")
        try Data("""
        {"name": "room", "floors": [{"level": 0}],
         "beacons": [{"id": "door", "uuid": "\(Self.uuid)", "major": 1, "minor": 1, "x": 0, "y": 0, "z": 1, "txPower": -59},
                     {"id": "desk", "uuid": "\(Self.uuid)", "major": 1, "minor": 2, "x": 6, "y": 0, "z": 1, "txPower": -59},
                     {"id": "sofa", "uuid": "\(Self.uuid)", "major": 1, "minor": 3, "x": 3, "y": 4, "z": 1, "txPower": -59}]}
        """.utf8).write(to: venue)
        capture = directory.appendingPathComponent("btsnoop_hci.log")
        var bytes = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]   // version 1, datalink 1002
        var events = 0
        func record(_ packet: [UInt8], flags: UInt32, time: Double) {
            let timestamp = UInt64(0x00DC_DDB3_0F2F_8000) + UInt64(time * 1_000_000)
            for value in [UInt32(packet.count), UInt32(packet.count), flags, 0, UInt32(timestamp >> 32), UInt32(timestamp & 0xFFFF_FFFF)] {
                bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            }
            bytes += packet
        }
        // The scan's commands, as a capture of a real scan holds them.
        record([0x01, 0x0C, 0x20, 0x02, 0x01, 0x00], flags: 0b10, time: 1_700_000_000)
        let uuidBytes: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
        // Ten rounds a tenth of a second apart: door loud (−55), desk −70, sofa −80.
        for round in 0..<10 {
            for (minor, rssi) in [(UInt8(1), Int8(-55)), (2, -70), (3, -80)] {
                let data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuidBytes + [0x00, 0x01, 0x00, minor, 0xC5]
                let parameters: [UInt8] = [0x02, 0x01, 0x03, 0x01, minor, 0x00, 0x00, 0xEE, 0xFF, 0xC0, UInt8(data.count)] + data
                    + [UInt8(bitPattern: rssi)]
                record([0x04, 0x3E, UInt8(parameters.count)] + parameters, flags: 0b11,
                       time: 1_700_000_000.1 + Double(round) * 0.1 + Double(minor) * 0.01)
                events += 1
            }
        }
        try Data(bytes).write(to: capture)
        beaconEvents = events
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

@Suite("whereabouts scan, record, locate --btsnoop")
struct BluetoothCommandTests {
    @Test func helpHasExamples() {
        for command in ["scan", "record"] {
            let output = InProcessCommand.parse([command, "--help"])
            #expect(output.status == 0)
            #expect(output.standardOutput.contains("\nExamples:\n"))
            #expect(output.standardOutput.contains("whereabouts \(command) --btsnoop"))
            #expect(output.standardOutput.contains("--adapter"))
        }
    }

    @Test func recordsACaptureNamingTheVenuesBeacons() async throws {
        let fixture = try CaptureFixture()
        defer { fixture.remove() }
        let out = fixture.directory.appendingPathComponent("rec.jsonl")
        let output = try await CommandRunner.run(["record", "--btsnoop", fixture.capture.path, "--venue", fixture.venue.path, "-o", out.path])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == fixture.beaconEvents)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(abs((first["t"] as? Double ?? 0) - 1_700_000_000.11) < 1e-6)
        let readings = try #require(first["readings"] as? [[String: Any]])
        #expect(readings.count == 1)
        #expect(readings[0]["beacon"] as? String == "door")
        #expect(readings[0]["rssi"] as? Double == -55)
        #expect(output.standardError.contains("Wrote \(out.path): 30 scans, 30 readings (30 of the venue's beacons)"))
        // The recording is valid against the venue.
        let validated = try await CommandRunner.run(["validate", "--venue", fixture.venue.path, out.path])
        #expect(validated.status == 0, "\(validated.standardOutput)\(validated.standardError)")

        // Without a venue, the advertised identity.
        let raw = try await CommandRunner.run(["record", "--btsnoop", fixture.capture.path, "--uuid", CaptureFixture.uuid, "-o", out.path])
        #expect(raw.status == 0, "\(raw.standardError)")
        let rawFirst = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").first.map(String.init) ?? ""
        #expect(rawFirst.contains("\"uuid\"") && rawFirst.contains("\"minor\":1"))
        // A UUID filter that matches nothing records nothing.
        let none = try await CommandRunner.run(["record", "--btsnoop", fixture.capture.path, "--uuid",
                                          "F7826DA6-4FA2-4E98-8024-BC5B71E0893E", "-o", out.path])
        #expect(none.status == 0)
        #expect(try String(contentsOf: out, encoding: .utf8).isEmpty)
    }

    @Test("record --at-place and --at give every scan the truth of where the surveyor stood; a wrong place or floor is refused")
    func recordsASurveySpot() async throws {
        let fixture = try CaptureFixture()
        defer { fixture.remove() }
        let venue = fixture.directory.appendingPathComponent("rooms.json")
        try Data("""
        {"name": "room", "floors": [{"level": 0}, {"level": 1}],
         "beacons": [{"id": "door", "uuid": "\(CaptureFixture.uuid)", "major": 1, "minor": 1, "x": 0, "y": 0, "z": 1, "txPower": -59},
                     {"id": "desk", "uuid": "\(CaptureFixture.uuid)", "major": 1, "minor": 2, "x": 6, "y": 0, "z": 1, "txPower": -59},
                     {"id": "sofa", "uuid": "\(CaptureFixture.uuid)", "major": 1, "minor": 3, "x": 3, "y": 4, "z": 1, "txPower": -59}],
         "places": [{"id": "kitchen", "x": 3, "y": 2, "radius": 2, "floor": 0}, {"id": "attic", "x": 3, "y": 2, "radius": 2, "floor": 1}]}
        """.utf8).write(to: venue)
        let out = fixture.directory.appendingPathComponent("survey-kitchen.jsonl")
        let recorded = try await CommandRunner.run(["record", "--btsnoop", fixture.capture.path, "--venue", venue.path,
                                              "--at-place", "kitchen", "--at", "3.5,2", "-o", out.path])
        #expect(recorded.status == 0, "\(recorded.standardError)")
        #expect(recorded.standardError.contains("each with its truth (place kitchen, x 3.5, y 2, floor 0)"), "\(recorded.standardError)")
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == fixture.beaconEvents)
        for line in lines {
            let scan = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let truth = try #require(scan["truth"] as? [String: Any])
            #expect(truth["place"] as? String == "kitchen")
            #expect(truth["x"] as? Double == 3.5 && truth["y"] as? Double == 2 && truth["floor"] as? Int == 0)
        }
        let validated = try await CommandRunner.run(["validate", "--venue", venue.path, out.path])
        #expect(validated.status == 0, "\(validated.standardOutput)\(validated.standardError)")

        // A spot alone, with its floor; refusals name what is wrong before anything is written
        // (an --at-place without a venue and a spot that is not one as the command line is
        // read: `aSurveySpotIsCheckedAsTheCommandLineIsRead`).
        let spot = try await CommandRunner.run(["record", "--btsnoop", fixture.capture.path, "--at", "1,1,1", "-o", out.path])
        #expect(spot.status == 0, "\(spot.standardError)")
        #expect(try String(contentsOf: out, encoding: .utf8).contains(#""truth":{"x":1,"y":1,"floor":1}"#))
        for (arguments, message) in [
            (["--venue", venue.path, "--at-place", "kitchn"], #"the venue has no place "kitchn". Did you mean "kitchen"?"#),
            (["--venue", venue.path, "--at-place", "attic", "--at", "1,1,0"], #"the place "attic" is on floor 1"#),
            (["--venue", venue.path, "--at", "1,1,7"], "the venue has no floor 7"),
        ] {
            let refused = try await CommandRunner.run(["record", "--btsnoop", fixture.capture.path, "-o", out.path + ".x"] + arguments)
            #expect(refused.status != 0)
            #expect(refused.standardError.contains(message), "\(arguments): \(refused.standardError)")
            #expect(!FileManager.default.fileExists(atPath: out.path + ".x"))
        }
    }

    @Test("record --at-place needs a venue, and --at a spot", arguments: [
        (["--at-place", "kitchen"], "give --venue too"),
        (["--at", "1;1"], "--at takes X,Y or X,Y,FLOOR"),
    ])
    func aSurveySpotIsCheckedAsTheCommandLineIsRead(arguments: [String], message: String) {
        let refused = InProcessCommand.parse(["record", "--btsnoop", "btsnoop_hci.log", "-o", "survey.jsonl"] + arguments)
        #expect(refused.status == 64)
        #expect(refused.standardError.contains(message), "\(arguments): \(refused.standardError)")
    }

    @Test func scanShowsATable() async throws {
        let fixture = try CaptureFixture()
        defer { fixture.remove() }
        let output = try await CommandRunner.run(["scan", "--btsnoop", fixture.capture.path, "--pace", "fast", "--venue", fixture.venue.path])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("beacon") && lines[0].contains("proximity"))
        // Closest first. door: −55 dBm against −59 at 1 m: d = 10^((−59 + 55)/20) = 0.63 m, near.
        #expect(lines[1].hasPrefix("door") && lines[1].contains("near") && lines[1].contains("0.63"))
        // desk: 10^((−59 + 70)/20) = 3.55 m, far; sofa: 10^(21/20) = 11.22 m, far.
        #expect(lines[2].hasPrefix("desk") && lines[2].contains("3.55") && lines[2].contains("far"))
        #expect(lines[3].hasPrefix("sofa") && lines[3].contains("11.22"))
        #expect(lines[1].split(separator: " ", omittingEmptySubsequences: true)[1] == "10")   // heard 10 times
        #expect(output.standardError.contains("30 scans, 30 readings, 3 beacons"))
        #expect(output.standardError.contains("31 records, 30 events, 30 advertising reports"))
    }

    @Test func locatesACapture() async throws {
        let fixture = try CaptureFixture()
        defer { fixture.remove() }
        let output = try await CommandRunner.run(["locate", "--venue", fixture.venue.path, "--btsnoop", fixture.capture.path])
        #expect(output.status == 0, "\(output.standardError)")
        let fixes = output.standardOutput.split(separator: "\n")
        #expect(!fixes.isEmpty && fixes.count <= fixture.beaconEvents)
        let last = try #require(try JSONSerialization.jsonObject(with: Data(fixes[fixes.count - 1].utf8)) as? [String: Any])
        // The door is loudest: the fix lies in the room's half nearer the door (0, 0).
        let x = try #require(last["x"] as? Double), y = try #require(last["y"] as? Double)
        #expect(x < 3 && y < 2, "\(x), \(y)")
    }

    /// No Bluetooth here: a clear error, exit status 1, never a crash.
    @Test func liveScanningWithoutAnAdapterFailsClearly() async throws {
        let fixture = try CaptureFixture()
        defer { fixture.remove() }
        for arguments in [["scan"], ["scan", "--adapter", "hci0"], ["record", "--adapter", "hci0", "-o", fixture.directory.appendingPathComponent("r.jsonl").path],
                          ["locate", "--venue", fixture.venue.path, "--adapter", "hci0"],
                          ["locate", "--venue", fixture.venue.path, "--adapter", "hci0", "--tracking", "stop-and-go", "--lag", "1"]] {
            let output = try await CommandRunner.run(arguments)
            #expect(output.status == 1, "\(arguments)")
            #expect(output.standardError.contains("No Bluetooth adapter hci0"), "\(output.standardError)")
        }
        let both = try await CommandRunner.run(["record", "--adapter", "hci0", "--btsnoop", fixture.capture.path, "-o", "x.jsonl"])
        #expect(both.status != 0 && both.standardError.contains("only one source"))
        let recording = try await CommandRunner.run(["record", "--recording", "x.jsonl", "-o", "y.jsonl"])
        #expect(recording.status != 0 && recording.standardError.contains("not a recording"))
        let notCapture = try await CommandRunner.run(["scan", "--btsnoop", fixture.venue.path])
        #expect(notCapture.status == 1 && notCapture.standardError.contains("not a btsnoop capture"))
        let badUUID = try await CommandRunner.run(["scan", "--btsnoop", fixture.capture.path, "--uuid", "nope"])
        #expect(badUUID.status != 0 && badUUID.standardError.contains("is not a UUID"))
    }
}
