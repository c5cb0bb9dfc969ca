import Foundation
import Testing
@testable import Whereabouts

@Suite("Fingerprint training session")
struct FingerprintTrainingSessionTests {
    private let identity = IBeaconIdentity(uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 1, minor: 23)

    private func scan(_ t: Double, _ rssi: Double) -> Scan {
        Scan(time: t, readings: [Reading(beacon: .iBeacon(identity), rssi: rssi), Reading(beacon: .id("b2"), rssi: 0)])
    }

    @Test func startPauseResumeFinish() throws {
        var session = FingerprintTrainingSession()
        let early = session.add(scan(0, -60))
        #expect(early == false)   // not started
        session.start(place: "kitchen")
        let added = [session.add(scan(1, -61))]
        session.pause()
        #expect(session.state == .paused)
        let whilePaused = session.add(scan(2, -62))
        session.resume()
        let resumed = session.add(scan(3.5, -63))
        #expect(added == [true] && whilePaused == false && resumed)
        let finished = session.finish()
        let result = try #require(finished)
        #expect(session.state == .idle)
        #expect(result.place == "kitchen")
        #expect(result.scans.map(\.time) == [1, 3.5])
        #expect(result.scans.allSatisfy { $0.truth?.place == "kitchen" })
        // The RSSI-0 reading is dropped, as Bluenet did.
        #expect(result.scans.allSatisfy { $0.readings.count == 1 })
        #expect(result.bluenetJSON == #"[{"devices":{"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0_Maj:1_Min:23":-61},"timestamp":1},"#
                + #"{"devices":{"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0_Maj:1_Min:23":-63},"timestamp":3.5}]"#)
    }

    @Test func finishWithoutStartOrAfterAbortIsNil() {
        var session = FingerprintTrainingSession()
        let never = session.finish()
        #expect(never == nil)
        session.start(place: "hall")
        session.add(scan(0, -60))
        session.abort()
        #expect(session.scans.isEmpty)
        let aborted = session.finish()
        #expect(aborted == nil)
    }

    @Test func bothFormatsImportAgain() throws {
        let venue = Venue(beacons: [Venue.Beacon(id: "door", iBeacon: identity)], places: [Venue.Place(id: "kitchen", floor: 1)])
        var session = FingerprintTrainingSession(venue: venue)
        session.start(place: "kitchen")
        session.add(scan(10, -70))
        session.add(Scan(time: 11, readings: [Reading(beacon: .id("door"), rssi: -71.5)]))
        let finished = session.finish()
        let result = try #require(finished)
        #expect(result.scans.first?.truth == GroundTruth(floor: 1, place: "kitchen"))
        // Bluenet JSON → scans: the venue names the beacon "door" by its identity.
        let fromBluenet = try BluenetTrainingData.decode(Array(result.bluenetJSON.utf8), place: "kitchen", venue: venue)
        #expect(fromBluenet.map(\.time) == [10, 11])
        #expect(fromBluenet.map { $0.readings.map(\.rssi) } == [[-70], [-71.5]])
        #expect(fromBluenet.allSatisfy { $0.readings.first?.beacon == .id("door") && $0.truth?.place == "kitchen" && $0.truth?.floor == 1 })
        // Recording lines → scans.
        let lines = result.scans.map { ScanCoding.line(for: $0) }
        let decoded = try lines.map { try ScanCoding.decode(JSONParser.parse($0)).scan }
        #expect(decoded == result.scans)
        // By place: an object from place id to entries, which decodes to the same scans.
        let byPlace = BluenetTrainingData.encodeByPlace(result.scans, venue: venue)
        #expect(try BluenetTrainingData.decode(byPlace, venue: venue) == fromBluenet)
    }

    /// A session started without a place (Bluenet's way) fed advertisement batches: one entry
    /// per batch, a beacon heard twice in it one key with its mean RSSI.
    @Test func advertisementBatchesWithoutAPlaceMakeOneEntryEach() throws {
        let identity = IBeaconIdentity(uuid: UUID(uuidString: "01234567-89AB-CDEF-0123-456789ABCDEF")!, major: 1, minor: 2)
        var session = FingerprintTrainingSession()
        session.start()
        session.add([BeaconPacket(identity: identity, rssi: -60, referenceId: "home"),
                     BeaconPacket(identity: identity, rssi: -64, referenceId: "home")], at: 5)
        let finished = session.finish()
        let result = try #require(finished)
        #expect(result.place == nil && result.scans.first?.truth == nil)
        #expect(result.bluenetJSON == #"[{"devices":{"01234567-89AB-CDEF-0123-456789ABCDEF_Maj:1_Min:2":-62},"timestamp":5}]"#)
    }

    @Test func bluenetErrorsNameTheKey() {
        #expect(throws: FormatError(file: "t.json", line: 1, column: 21, key: "[0].devices.B1", message: "expected a number, found a string")) {
            try BluenetTrainingData.decode(Array(#"[{"devices": {"B1": "loud"}, "timestamp": 1}]"#.utf8), file: "t.json", place: "a")
        }
    }
}
