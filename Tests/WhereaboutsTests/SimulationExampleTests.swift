import Foundation
import Testing
@testable import Whereabouts

/// The committed files of `Examples/` are exactly what `SimulationPreset.example` builds.
///
/// After changing the preset on purpose, regenerate them with
/// `WHEREABOUTS_WRITE_EXAMPLES=1 swift test --filter SimulationExampleTests`, then run the tests
/// again without the variable.
@Suite struct SimulationExampleTests {
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples")

    static let exampleSeed: UInt64 = 42

    static var expectedFiles: [(name: String, text: String)] {
        let preset = SimulationPreset.example
        return [
            ("venue.json", JSONWriter(indent: 2).string(from: VenueFile.encode(preset.venue)) + "\n"),
            ("walk.json", WalkFile.text(preset.walk)),
            ("visit.jsonl", recordingText(preset.simulator(seed: exampleSeed))),
        ]
    }

    @Test func committedFilesMatchThePreset() throws {
        let write = ProcessInfo.processInfo.environment["WHEREABOUTS_WRITE_EXAMPLES"] == "1"
        for file in Self.expectedFiles {
            let url = Self.examples.appendingPathComponent(file.name)
            if write {
                try FileManager.default.createDirectory(at: Self.examples, withIntermediateDirectories: true)
                try Data(file.text.utf8).write(to: url, options: .atomic)
            }
            let committed = try String(contentsOf: url, encoding: .utf8)
            #expect(committed == file.text, "Examples/\(file.name) differs from SimulationPreset.example")
        }
    }

    @Test func committedVenueIsValidAndEqualsThePreset() throws {
        let venue = try VenueFile.read(from: Self.examples.appendingPathComponent("venue.json"))
        #expect(venue == SimulationPreset.example.venue)
        #expect(venue.places.map(\.id) == ["hall1", "hall2", "hall3", "hall4", "hall5", "hall6", "hall7",
                                            "hall7smaller", "hall8", "hall81"])
        // The seed's geofences, unchanged.
        guard case .circle(_, let radius, let coordinate) = venue.places[8].shape else {
            Issue.record("hall8 is not a circle")
            return
        }
        #expect(radius == 105)
        #expect(coordinate == GeoCoordinate(latitude: 41.3559, longitude: 2.136817))
        #expect(venue.places[9].floor == 1)
        // Every beacon lies inside its hall, at 3 m, with an iBeacon identity that resolves to it.
        let directory = BeaconDirectory(venue)
        for (index, beacon) in venue.beacons.enumerated() {
            let identity = try #require(beacon.iBeacon)
            #expect(directory.index(for: .iBeacon(identity)) == index)
            #expect(beacon.z == 3 && beacon.txPower == -59)
            let hall = try #require(venue.places.first { $0.id == "hall\(identity.major)" + (beacon.floor == 1 ? "1" : "") })
            guard case .circle(let center, let radius, _) = hall.shape else { continue }
            #expect(center.distance(to: PlanarPoint(x: beacon.x ?? .nan, y: beacon.y ?? .nan)) < radius)
        }
        #expect(venue.beacons.filter { $0.floor == 1 }.count == 4)
    }

    @Test func committedWalkReadsBackAsThePreset() throws {
        let walk = try WalkFile.read(from: Self.examples.appendingPathComponent("walk.json"))
        #expect(walk == SimulationPreset.example.walk)
        // About ten minutes.
        #expect((540...720).contains(walk.duration))
    }

    @Test func exampleVisitVisitsTheHallsAndGoesUpstairs() {
        let scans = Array(SimulationPreset.example.simulator(seed: Self.exampleSeed))
        var visited: [String] = []
        for place in scans.compactMap(\.truth?.place) where visited.last != place { visited.append(place) }
        #expect(visited == ["hall3", "hall4", "hall6", "hall8", "hall81"])
        #expect(scans.first?.truth?.floor == 0 && scans.last?.truth?.floor == 1)
        // Inside a hall, some beacon is heard nearly always; on the way between halls 3 and 4, at
        // times nothing is.
        let inHalls = scans.filter { $0.truth?.place != nil }
        #expect(inHalls.filter { !$0.readings.isEmpty }.count * 10 >= inHalls.count * 9)
        #expect(scans.contains { $0.truth?.place == nil && $0.readings.isEmpty })
    }
}
