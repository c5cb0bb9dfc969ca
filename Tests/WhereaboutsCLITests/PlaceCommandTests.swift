import Foundation
import Testing

/// `whereabouts rank` and `whereabouts watch` on the bundled example, whose visitor walks through
/// halls 3, 4, 6 and 8, going upstairs in hall 8 (hall81).
@Suite("whereabouts rank and watch")
struct PlaceCommandTests {
    private let venue = "Examples/venue.json"
    private let visit = "Examples/visit.jsonl"

    private func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func helpHasExamples() {
        for command in ["rank", "watch"] {
            let output = InProcessCommand.parse([command, "--help"])
            #expect(output.status == 0)
            #expect(output.standardOutput.contains("\nExamples:\n"))
            #expect(output.standardOutput.contains("whereabouts \(command) --venue"))
        }
    }

    @Test func rankPrintsTheOrderEachTimeItChanges() async throws {
        let output = try await CommandRunner.run(["rank", "--venue", venue, "--recording", visit, "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = try objects(output.standardOutput)
        #expect(lines.count > 5)
        var previous: [String]?
        for line in lines {
            let places = try #require(line["places"] as? [[String: Any]])
            let ids = places.compactMap { $0["id"] as? String }
            #expect(ids.count == 10 && Set(ids).count == 10)   // every place of the venue, once
            #expect(ids != previous)                            // a line only when the order changed
            previous = ids
            // Distances rise along the order, except inside places (smaller first) and on ties.
            let distances = places.compactMap { $0["distance"] as? Double }
            let outside = distances.filter { $0 > 0 }
            #expect(outside == outside.sorted())
            #expect(distances.firstIndex { $0 > 0 }.map { distances[..<$0].allSatisfy { $0 <= 0 } } ?? true)
        }
        // The visitor starts in hall 3 and ends upstairs in hall 8: hall81 before hall8 then.
        let first = try #require(lines.first?["places"] as? [[String: Any]])
        let last = try #require(lines.last?["places"] as? [[String: Any]])
        #expect(first.first?["id"] as? String == "hall3")
        #expect(last.prefix(2).compactMap { $0["id"] as? String } == ["hall81", "hall8"])
        #expect(lines.last?["floor"] as? Int == 1)
    }

    @Test func rankTopPrintsTheFirstPlacesAsText() async throws {
        let output = try await CommandRunner.run(["rank", "--venue", venue, "--recording", visit, "--top", "2"])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = output.standardOutput.split(separator: "\n")
        #expect(lines.first?.hasPrefix("1700000000 visitor (") == true)
        #expect(lines.first?.contains("floor 0: hall3 -") == true)
        #expect(lines.allSatisfy { $0.split(separator: ",").count >= 2 })
    }

    @Test("out-of-range options are refused", arguments: [
        (["rank", "--venue", "Examples/venue.json", "--recording", "Examples/visit.jsonl", "--top", "0"], "--top"),
        (["watch", "--venue", "Examples/venue.json", "--recording", "Examples/visit.jsonl", "--exit-timeout", "0"], "--exit-timeout"),
        (["watch", "--venue", "rooms.json", "--recording", "walk.jsonl", "--place-vote", "1.5"],
         "--place-vote must be a share between 0 and 1"),
    ])
    func outOfRangeOptionsAreRefused(arguments: [String], message: String) {
        let bad = InProcessCommand.parse(arguments)
        #expect(bad.status == 64 && bad.standardError.contains(message), "\(bad.standardError)")
    }

    /// A scan the solver cannot locate (PowerCenter needs three beacons) but that hears a beacon
    /// with a known place is ranked from that beacon, as Hekaerge did, and the line says so.
    @Test func rankFallsBackToTheNearestBeaconWhenNoFixIsPossible() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recording = directory.appendingPathComponent("scans.jsonl")
        try Data("""
        {"t": 1, "device": "p", "readings": [{"beacon": "h1-1", "rssi": -70}, {"beacon": "h2-1", "rssi": -80}]}
        {"t": 2, "device": "p", "readings": [{"beacon": "h3-1", "rssi": -60}, {"beacon": "h3-2", "rssi": -70}, {"beacon": "h3-3", "rssi": -75}]}
        {"t": 3, "device": "p", "readings": [{"beacon": "nowhere", "rssi": -50}]}

        """.utf8).write(to: recording)
        let output = try await CommandRunner.run(["rank", "--venue", venue, "--recording", recording.path, "--algorithm", "powercenter",
                                            "--json", "--top", "2"])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = try objects(output.standardOutput)
        #expect(lines.count == 2)   // the third scan hears no beacon of the venue: nothing to rank from
        // The first scan: no fix from two beacons; the stronger, h1-1 (at -246.7, -136.3), in hall 1.
        #expect(lines.first?["source"] as? String == "nearest-beacon" && lines.first?["beacon"] as? String == "h1-1")
        #expect(lines.first?["x"] as? Double == -246.7 && lines.first?["y"] as? Double == -136.3 && lines.first?["floor"] as? Int == 0)
        let places = try #require(lines.first?["places"] as? [[String: Any]])
        #expect(places.first?["id"] as? String == "hall1")
        #expect(lines.last?["source"] as? String == "fix" && lines.last?["beacon"] == nil)
        let text = try await CommandRunner.run(["rank", "--venue", venue, "--recording", recording.path, "--algorithm", "powercenter", "--top", "2"])
        #expect(text.standardOutput.hasPrefix("1 p (-246.7, -136.3) floor 0 nearest beacon h1-1: hall1 -"), "\(text.standardOutput)")
    }

    @Test func watchReportsRegionsAndHallsInOrder() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A second walk of the example (another seed) to train on.
        let train = directory.appendingPathComponent("train.jsonl").path
        let simulated = try await CommandRunner.run(["simulate", "--preset", "example", "--seed", "7", "-o", train])
        #expect(simulated.status == 0, "\(simulated.standardError)")
        let output = try await CommandRunner.run(["watch", "--venue", venue, "--recording", visit, "--train", train, "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        let events = try objects(output.standardOutput)
        let topics = events.compactMap { $0["topic"] as? String }
        // The campus region (the venue's one UUID) is entered first and left last, 30 s after the
        // last scan (t = 1700000624).
        let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        #expect(topics.first == "enterRegion" && events.first?["data"] as? String == uuid)
        #expect(topics.filter { $0.hasSuffix("Region") } == ["enterRegion", "exitRegion"])
        #expect(events.first { $0["topic"] as? String == "exitRegion" }?["t"] as? Double == 1_700_000_654)
        // Places alternate enter/exit, each exit naming the place entered before it.
        let places = events.filter { ($0["topic"] as? String)?.hasSuffix("Location") == true }
        var inside: String?
        var visited: [String] = []
        for event in places {
            let data = try #require(event["data"] as? [String: Any])
            #expect(data["region"] as? String == uuid)
            let place = try #require(data["location"] as? String)
            if event["topic"] as? String == "enterLocation" {
                #expect(inside == nil)
                inside = place
                if visited.last != place { visited.append(place) }
            } else {
                #expect(event["topic"] as? String == "exitLocation" && inside == place)
                inside = nil
            }
        }
        #expect(inside == nil)   // left at the end
        #expect(visited == ["hall3", "hall4", "hall6", "hall8", "hall81"])
        // Neither batches nor current-location events without --all.
        #expect(!topics.contains("iBeaconAdvertisement") && !topics.contains("currentLocation"))
    }

    /// `--why` says under each change of hall which rule made it and what the scan heard; with
    /// `--json`, each enter and exit carries it.
    @Test func watchSaysWhyEachPlaceChanged() async throws {
        let text = try await CommandRunner.run(["watch", "--venue", venue, "--recording", visit, "--why"])
        #expect(text.status == 0, "\(text.standardError)")
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        // One line a change, under its last event: the enter (an exit and an enter share it), or
        // the lone exit at the end.
        for (index, line) in lines.enumerated() where line.hasPrefix("  why: ") {
            #expect(index > 0 && (lines[index - 1].contains(" enterLocation ") || lines[index - 1].contains(" exitLocation ")))
        }
        let whys = lines.filter { $0.hasPrefix("  why: ") }
        #expect(whys.count == lines.filter { $0.contains(" enterLocation ") }.count + 1)
        // Hall 3: three votes (the default) a second apart; the scan at t = 1700000002 heard h3-1
        // at -88, h3-2 at -87 and h3-3 at -94 dBm, strongest first.
        let first = try #require(whys.first)
        #expect(first.hasPrefix("  why: 3 votes for hall3 over 2 s (the last: hall3 0."), "\(first)")
        #expect(first.contains("; fix ") && first.contains(" floor 0; "), "\(first)")
        #expect(first.hasSuffix("; heard h3-2 -87, h3-1 -88, h3-3 -94 dBm"), "\(first)")
        // The last located scan is at 1700000624: the hall is left 30 s later.
        #expect(whys.last == "  why: nothing located for 30 s after 1700000624")
        let plain = try await CommandRunner.run(["watch", "--venue", venue, "--recording", visit])
        #expect(!plain.standardOutput.contains("why"))
        #expect(plain.standardOutput.split(separator: "\n").map(String.init) == lines.filter { !$0.hasPrefix("  why: ") })

        let json = try await CommandRunner.run(["watch", "--venue", venue, "--recording", visit, "--why", "--json"])
        #expect(json.status == 0, "\(json.standardError)")
        let events = try objects(json.standardOutput)
        for event in events {
            let topic = try #require(event["topic"] as? String)
            #expect((event["why"] != nil) == (topic == "enterLocation" || topic == "exitLocation"), "\(event)")
        }
        let changes = events.filter { $0["why"] != nil }
        let enter = try #require(changes.first { ($0["data"] as? [String: Any])?["location"] as? String == "hall4" })
        let why = try #require(enter["why"] as? [String: Any])
        #expect(why["rule"] as? String == "votes" && why["votes"] as? Double == 3)
        #expect(why["from"] as? String == "hall3" && why["to"] as? String == "hall4")
        #expect((why["estimate"] as? [String: Any])?["place"] as? String == "hall4")
        let rssis = try #require(why["readings"] as? [[String: Any]]).compactMap { $0["rssi"] as? Double }
        #expect(!rssis.isEmpty && rssis == rssis.sorted(by: >))
        // The exit of hall 3 and the enter of hall 4 are one change, with one explanation.
        let exit = try #require(changes.last { ($0["data"] as? [String: Any])?["location"] as? String == "hall3" })
        #expect(NSDictionary(dictionary: try #require(exit["why"] as? [String: Any])).isEqual(to: why))
        let last = try #require(changes.last?["why"] as? [String: Any])
        #expect(last["rule"] as? String == "timeout" && last["lastObservation"] as? Double == 1_700_000_624)
        #expect(last["to"] is NSNull && last["estimate"] == nil && (last["readings"] as? [Any])?.isEmpty == true)
    }

    /// ESPresense's room cut into three 2 × 4 m rooms: each fix's radius spans two or three of
    /// them, so no room holds the default 60 % a scan needs to vote, and the monitor never enters
    /// one; `--place-vote 0.4` lets it follow the walk, and `eval` scores both.
    @Test func placeVoteLetsTheMonitorFollowSmallRooms() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = directory.appendingPathComponent("rooms.json"), walk = directory.appendingPathComponent("walk.json")
        let recording = directory.appendingPathComponent("walk.jsonl")
        let beacons = [(0.2, 0.2), (5.8, 0.2), (5.8, 3.8), (0.2, 3.8)].enumerated().map { index, position in
            #"{"id": "node\#(index + 1)", "x": \#(position.0), "y": \#(position.1), "z": 2, "txPower": -59}"#
        }
        let rooms = [("west", 0), ("mid", 2), ("east", 4)].map { name, x in
            #"{"id": "\#(name)", "polygon": [[\#(x), 0], [\#(x + 2), 0], [\#(x + 2), 4], [\#(x), 4]]}"#
        }
        try Data(#"{"beacons": [\#(beacons.joined(separator: ", "))], "places": [\#(rooms.joined(separator: ", "))]}"#.utf8).write(to: venue)
        try Data(#"{"waypoints": [{"x": 3, "y": 0.5}, {"x": 1, "y": 1, "dwell": 15}, {"x": 5, "y": 1, "dwell": 15}, {"x": 3, "y": 2, "dwell": 30}]}"#.utf8)
            .write(to: walk)
        let simulated = try await CommandRunner.run(["simulate", "--venue", venue.path, "--walk", walk.path, "--seed", "1", "--shadowing", "2.5",
                                               "-o", recording.path])
        #expect(simulated.status == 0, "\(simulated.standardError)")
        let strict = try await CommandRunner.run(["watch", "--venue", venue.path, "--recording", recording.path])
        #expect(strict.status == 0 && !strict.standardOutput.contains("Location"), "\(strict.standardOutput)")
        let lenient = try await CommandRunner.run(["watch", "--venue", venue.path, "--recording", recording.path, "--place-vote", "0.4"])
        let entered = lenient.standardOutput.split(separator: "\n").filter { $0.contains("enterLocation") }.map { $0.split(separator: " ").last ?? "" }
        #expect(entered == ["west", "east", "mid"], "\(lenient.standardOutput)")
        func monitored(_ extra: [String]) async throws -> Double? {
            let output = try await CommandRunner.run(["eval", "--venue", venue.path, "--test", recording.path, "--algorithm", "all", "--json"] + extra)
            let records = try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [[String: Any]] ?? []
            return records.first { $0["kind"] as? String == "rooms" }?["monitoredPlaceAccuracy"] as? Double
        }
        #expect(try await monitored([]) == 0)
        #expect(try await (monitored(["--place-vote", "0.4"]) ?? 0) > 0.5)
    }

    /// The committed three-room venue (Fixtures/three-rooms): eval counts the walk's six room
    /// changes and the place monitor's against them — none by default (it never enters a 2 m
    /// room), some with `--place-vote 0.4`, about six with a room belief or the posterior's.
    @Test func evalCountsRoomChangesOnTheThreeRoomFixture() async throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venue = "Fixtures/three-rooms/venue.json", recording = directory.appendingPathComponent("rooms.jsonl").path
        let simulated = try await CommandRunner.run(["simulate", "--venue", venue, "--walk", "Fixtures/three-rooms/walk.json", "--seed", "1",
                                               "--shadowing", "2.5", "--multipath-share", "0.1", "--multipath-loss", "6", "-o", recording])
        #expect(simulated.status == 0, "\(simulated.standardError)")
        func rooms(_ extra: [String]) async throws -> [String: Any] {
            let output = try await CommandRunner.run(["eval", "--venue", venue, "--test", recording, "--algorithm", "all", "--json"] + extra)
            let records = try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [[String: Any]] ?? []
            return records.first { $0["kind"] as? String == "rooms" } ?? [:]
        }
        let strict = try await rooms([])
        #expect(strict["trueRoomChanges"] as? Int == 6 && strict["monitoredRoomChanges"] as? Int == 0, "\(strict)")
        let lenient = try await rooms(["--place-vote", "0.4"])
        #expect(lenient["trueRoomChanges"] as? Int == 6 && (lenient["monitoredRoomChanges"] as? Int ?? 0) > 0, "\(lenient)")
        // A room belief carried from scan to scan follows the walk: most scans right, about the
        // walk's six changes (seed 1: 87 %, 6).
        let belief = try await rooms(["--room-belief"])
        #expect((belief["monitoredPlaceAccuracy"] as? Double ?? 0) >= 0.85, "\(belief)")
        #expect((5...7).contains(belief["monitoredRoomChanges"] as? Int ?? 0), "\(belief)")
        // The probabilistic tracker's fixes carry its posterior's mass in each room, a belief the
        // monitor follows from half of it without votes (seed 1: 92 %, the walk's 6 changes; by
        // votes 78 %, 3). A single positioning report's rooms record is in the text.
        let posterior = try await CommandRunner.run(["eval", "--venue", venue, "--test", recording, "--algorithm", "posterior"])
        let roomsText = posterior.standardOutput.components(separatedBy: "posterior rooms").last ?? ""
        func figure(after label: String) -> Double? {
            roomsText.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }?
                .split(separator: " ").dropFirst().first.flatMap { Double($0) }
        }
        #expect(posterior.status == 0 && (figure(after: "monitored") ?? 0) >= 85, "\(posterior.standardOutput)")
        #expect((5...7).contains(Int(figure(after: "changes") ?? 0)), "\(posterior.standardOutput)")
        for extra in [["--room-belief"], ["--algorithm", "posterior"]] {
            // The walk's first room and its 6 changes (the posterior: 7 enters on seed 1).
            let watched = try await CommandRunner.run(["watch", "--venue", venue, "--recording", recording] + extra)
            let entered = watched.standardOutput.split(separator: "\n").filter { $0.contains("enterLocation") }.count
            #expect(watched.status == 0 && (6...8).contains(entered), "\(extra): \(watched.standardOutput)")
        }
        for refused in [["eval", "--venue", venue, "--test", recording, "--room-belief", "--place-vote", "0.4"],
                        ["watch", "--venue", venue, "--recording", recording, "--room-belief", "--model", "model.json"]] {
            let parsed = InProcessCommand.parse(refused)
            #expect(parsed.status == 64, "\(refused): \(parsed.standardError)")
        }
    }

    @Test func watchPrintsTextAndEverythingWithAll() async throws {
        let output = try await CommandRunner.run(["watch", "--venue", venue, "--recording", visit, "--all", "--exit-timeout", "5"])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "1700000000 visitor enterRegion E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        #expect(lines.contains { $0.contains(" iBeaconAdvertisement 3 packets") })
        // The last scan is at 1700000624: the region is left 5 s later.
        #expect(lines.contains("1700000629 visitor exitRegion E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
    }
}

/// `whereabouts anchors` on a venue of its own: two beacons, a device that comes right up to one.
@Suite("whereabouts anchors")
struct AnchorsCommandTests {
    @Test func anAnchorFiresAtImmediateAndReArmsAfterNearRounds() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        let venue = folder.appendingPathComponent("venue.json").path
        let recording = folder.appendingPathComponent("walk.jsonl").path
        try Data("""
        {"origin": {"latitude": 41.3551, "longitude": 2.1322}, "floors": [{"level": 0}, {"level": 1}],
         "beacons": [{"id": "desk", "x": 2, "y": 3, "floor": 1}, {"id": "door", "x": 20, "y": 0}]}
        """.utf8).write(to: URL(fileURLWithPath: venue))
        // One scan a second: desk immediate (−50 dBm: 0.35 m), immediate again (disarmed), five
        // near rounds (−65 dBm: 2 m) with a far one (−80 dBm) between, immediate again (fires).
        let rssis: [Double] = [-50, -50, -65, -65, -80, -65, -65, -65, -50]
        let lines = rssis.enumerated().map { #"{"t": \#($0.offset), "device": "phone", "readings": [{"beacon": "desk", "rssi": \#($0.element)}]}"# }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: recording))

        let output = try await CommandRunner.run(["anchors", "--venue", venue, "--recording", recording, "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        let events = try output.standardOutput.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(events.map { $0["t"] as? Double } == [0, 8])
        #expect(events.allSatisfy { $0["anchor"] as? String == "desk" && $0["floor"] as? Int == 1 && $0["x"] as? Double == 2 })
        #expect(events.allSatisfy { abs(($0["latitude"] as? Double ?? 0) - 41.3551) < 0.001 })
        #expect(output.standardError.contains("phone: last set by desk, floor 1"))
    }

    @Test func anAnchorThatNeverReArmsIsRefused() {
        let none = InProcessCommand.parse(["anchors", "--venue", "venue.json", "--recording", "walk.jsonl", "--rearm", "0"])
        #expect(none.status == 64 && none.standardError.contains("--rearm"))
    }
}
