import Foundation
import Testing
@testable import Whereabouts

@Suite struct SimulationWalkTests {
    // MARK: Timing

    /// (0, 0) dwell 10 s, then 12 m east to (12, 0) on floor 1 at 1.2 m/s: 10 s + 12/1.2 = 20 s.
    let stairs = Walk(waypoints: [Walk.Waypoint(x: 0, y: 0, dwell: 10), Walk.Waypoint(x: 12, y: 0, floor: 1)],
                      speed: 1.2, start: 1000)

    @Test func durationIsWalkingPlusDwells() {
        #expect(stairs.duration == 20)
        // 3-4-5: (0,0) → (3,4) is 5 m, dwell 5 s, → (3,10) is 6 m; at 1 m/s: 5 + 5 + 6 = 16 s.
        let walk = Walk(waypoints: [Walk.Waypoint(x: 0, y: 0), Walk.Waypoint(x: 3, y: 4, dwell: 5),
                                    Walk.Waypoint(x: 3, y: 10)], speed: 1)
        #expect(walk.duration == 16)
        #expect(Walk(waypoints: [Walk.Waypoint(x: 1, y: 1, dwell: 7)]).duration == 7)
    }

    @Test func dwellIsHonoured() {
        for offset in [0.0, 2.5, 9.999, 10] {
            #expect(stairs.position(atOffset: offset) == Walk.Position(x: 0, y: 0, floor: 0))
        }
    }

    @Test func positionAlongASegmentIsLinear() {
        // Leaves at 10 s at 1.2 m/s: at 15 s it is 5 × 1.2 = 6 m along.
        #expect(stairs.position(atOffset: 15) == Walk.Position(x: 6, y: 0, floor: 0))
        // At 12.5 s: 2.5 × 1.2 = 3 m.
        #expect(abs(stairs.position(atOffset: 12.5).x - 3) < 1e-12)
        let walk = Walk(waypoints: [Walk.Waypoint(x: 0, y: 0), Walk.Waypoint(x: 3, y: 4, dwell: 5),
                                    Walk.Waypoint(x: 3, y: 10)], speed: 1)
        // At 2 s: 2/5 of the way to (3, 4) = (1.2, 1.6).
        let p = walk.position(atOffset: 2)
        #expect(abs(p.x - 1.2) < 1e-12 && abs(p.y - 1.6) < 1e-12)
        // 5…10 s standing at (3, 4); at 13 s, 3 m north of it.
        #expect(walk.position(atOffset: 7.5) == Walk.Position(x: 3, y: 4, floor: 0))
        #expect(walk.position(atOffset: 13) == Walk.Position(x: 3, y: 7, floor: 0))
    }

    @Test func floorChangesOnArrivalAtTheSecondWaypoint() {
        #expect(stairs.position(atOffset: 19.9).floor == 0)
        #expect(stairs.position(atOffset: 20) == Walk.Position(x: 12, y: 0, floor: 1))
        // Stairs straight up: the same spot on two floors.
        let lift = Walk(waypoints: [Walk.Waypoint(x: 5, y: 5), Walk.Waypoint(x: 5, y: 5, floor: 1, dwell: 3)])
        #expect(lift.duration == 3)
        #expect(lift.position(atOffset: 0).floor == 0)
        #expect(lift.position(atOffset: 0.5).floor == 1)
    }

    @Test func beforeTheStartAndAfterTheEndTheWalkerStands() {
        #expect(stairs.position(atOffset: -5) == Walk.Position(x: 0, y: 0, floor: 0))
        #expect(stairs.position(atOffset: 500) == Walk.Position(x: 12, y: 0, floor: 1))
        #expect(Walk(waypoints: []).position(atOffset: 3) == Walk.Position(x: 0, y: 0, floor: 0))
    }

    @Test func simulatorFollowsTheWalk() {
        // The simulator's moving cursor must agree with the walk's own look-up at every scan.
        var walk = SimulationPreset.espresenseRoom.walk
        walk.start = 0   // so that a scan's time is exactly its offset
        let simulator = Simulator(venue: Venue(), walk: walk, radio: RadioModel(scanInterval: 0.7))
        var count = 0
        for scan in simulator {
            let offset = scan.time - walk.start
            let expected = walk.position(atOffset: offset)
            #expect(scan.truth?.x == expected.x && scan.truth?.y == expected.y && scan.truth?.floor == expected.floor)
            count += 1
        }
        #expect(count == simulator.scanCount)
        #expect(count == Int(walk.duration / 0.7) + 1)
    }

    // MARK: walk.json

    @Test func decodesTheDocumentedExample() throws {
        let text = """
        {"device": "visitor", "speed": 1.2, "start": 1700000000,
         "waypoints": [{"x": 1, "y": 2, "floor": 0, "dwell": 10}, {"x": 20, "y": 2}, {"x": 21, "y": 3, "floor": 1, "dwell": 30}],
         "comment": "unknown keys are ignored"}
        """
        let walk = try WalkFile.decode(Array(text.utf8), file: "walk.json")
        #expect(walk == Walk(waypoints: [Walk.Waypoint(x: 1, y: 2, floor: 0, dwell: 10), Walk.Waypoint(x: 20, y: 2),
                                         Walk.Waypoint(x: 21, y: 3, floor: 1, dwell: 30)],
                             speed: 1.2, start: 1_700_000_000, device: "visitor"))
    }

    @Test func defaultsWhenKeysAreLeftOut() throws {
        let walk = try WalkFile.decode(Array(#"{"waypoints": [{"x": 1, "y": 2}]}"#.utf8))
        #expect(walk == Walk(waypoints: [Walk.Waypoint(x: 1, y: 2)], speed: 1.2, start: 0))
    }

    @Test func roundTripsThroughText() throws {
        let walk = Walk(waypoints: [Walk.Waypoint(x: 1.5, y: -2, dwell: 10), Walk.Waypoint(x: 20, y: 2.25, floor: -1)],
                        speed: 0.8, start: 1_700_000_000.5, device: "tag \"7\"", track: "morning")
        let text = WalkFile.text(walk)
        #expect(text == """
        {
          "device": "tag \\"7\\"",
          "track": "morning",
          "speed": 0.8,
          "start": 1700000000.5,
          "waypoints": [
            {"x": 1.5, "y": -2, "dwell": 10},
            {"x": 20, "y": 2.25, "floor": -1}
          ]
        }

        """)
        #expect(try WalkFile.decode(Array(text.utf8)) == walk)
        #expect(try WalkFile.decode(WalkFile.encode(walk)) == walk)
    }

    @Test func writesAndReadsAFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try WalkFile.write(stairs, to: url)
        #expect(try WalkFile.read(from: url) == stairs)
    }

    private func error(_ text: String) -> FormatError? {
        do {
            _ = try WalkFile.decode(Array(text.utf8), file: "walk.json")
            return nil
        } catch {
            return error
        }
    }

    @Test func missingKeysAreNamed() {
        let noWaypoints = error(#"{"speed": 1}"#)
        #expect(noWaypoints?.description == "walk.json: waypoints: missing required key")
        let noY = error(#"{"waypoints": [{"x": 1, "y": 2}, {"x": 3}]}"#)
        #expect(noY?.description == "walk.json:1:34: waypoints[1].y: missing required key")
    }

    @Test func wrongTypesAreNamed() {
        #expect(error(#"{"waypoints": [{"x": "1", "y": 2}]}"#)?.description
                == "walk.json:1:22: waypoints[0].x: expected a number, found a string")
        #expect(error(#"{"waypoints": {"x": 1}}"#)?.description == "walk.json:1:15: waypoints: expected an array, found an object")
        #expect(error(#"{"device": 7, "waypoints": []}"#)?.key == "device")
        #expect(error(#"{"waypoints": [{"x": 1, "y": 2, "floor": 1.5}]}"#)?.description
                == "walk.json:1:42: waypoints[0].floor: expected an integer, found 1.5")
        #expect(error(#"[1, 2]"#)?.description == "walk.json: expected an object, found an array")
    }

    @Test func badValuesAreNamed() {
        #expect(error(#"{"speed": 0, "waypoints": [{"x": 1, "y": 2}]}"#)?.description
                == "walk.json:1:11: speed: speed must be positive, found 0.0")
        #expect(error(#"{"waypoints": [{"x": 1, "y": 2, "dwell": -3}]}"#)?.key == "waypoints[0].dwell")
        #expect(error(#"{"waypoints": []}"#)?.description == "walk.json:1:15: waypoints: a walk needs at least one waypoint")
        #expect(error(#"{"waypoints": [}"#)?.message.hasPrefix("not valid JSON") == true)
    }

    @Test func unreadableFileIsNamed() {
        let url = URL(fileURLWithPath: "/nonexistent/walk.json")
        #expect(throws: FormatError.self) { try WalkFile.read(from: url) }
        do {
            _ = try WalkFile.read(from: url)
        } catch {
            #expect(error.file == "/nonexistent/walk.json")
        }
    }
}
