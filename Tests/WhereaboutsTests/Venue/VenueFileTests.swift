import Foundation
import Testing
@testable import Whereabouts

private let sample = """
{
  "name": "UJI library, zone 1",
  "origin": {"latitude": 41.3550, "longitude": 2.1320, "bearing": 0},
  "floors": [{"level": 0, "name": "ground", "elevation": 0.0}, {"level": 1, "name": "first", "elevation": 4.5}],
  "defaults": {"txPower": -61, "pathLossExponent": 2.5, "z": 2.5},
  "beacons": [
    {"id": "23", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 23,
     "x": 30.50, "y": 14.25, "z": 2.0, "floor": 0, "txPower": -59, "pathLossExponent": 2.0},
    {"id": "24", "namespace": "EDD1EBEAC04E5DEFA017", "instance": "0BDB87539B67", "latitude": 41.3551, "longitude": 2.1321, "floor": 1},
    {"id": "25", "unknownKey": [1, 2, 3]}
  ],
  "places": [
    {"id": "hall1", "latitude": 41.353485, "longitude": 2.129052, "radius": 64, "floor": 0},
    {"id": "desk", "x": 12.0, "y": 3.5, "radius": 2.5, "floor": 0},
    {"id": "room-a", "polygon": [[0, 0], [6, 0], [6, 4], [0, 4]], "floor": 1},
    {"id": "label-only", "floor": 1}
  ]
}
"""

@Suite("venue.json")
struct VenueFileTests {
    @Test func readsEveryPart() throws {
        let venue = try VenueFile.decode(Array(sample.utf8), file: "venue.json")
        #expect(venue.name == "UJI library, zone 1")
        #expect(venue.units == .metre)
        #expect(venue.floors.map(\.level) == [0, 1])
        #expect(venue.defaults == Venue.Defaults(txPower: -61, pathLossExponent: 2.5, z: 2.5))
        #expect(venue.beacons.count == 3)
        let b23 = venue.beacons[0]
        #expect(b23.iBeacon == IBeaconIdentity(uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 1, minor: 23))
        #expect(b23.position(defaults: venue.defaults) == SpatialPoint(x: 30.5, y: 14.25, z: 2))
        // 0.0001° north ≈ 11.10 m, 0.0001° east ≈ 8.36 m at 41.355°N.
        let b24 = venue.beacons[1]
        #expect(b24.eddystone?.namespace == "edd1ebeac04e5defa017")
        #expect(abs((b24.y ?? 0) - 11.10) < 0.01)
        #expect(abs((b24.x ?? 0) - 8.36) < 0.01)
        #expect(b24.position(defaults: venue.defaults)?.z == 2.5)
        #expect(venue.beacons[2].position(defaults: venue.defaults) == nil)
        #expect(venue.places.map(\.id) == ["hall1", "desk", "room-a", "label-only"])
        guard case .circle(let center, let radius, let coordinate) = venue.places[0].shape else {
            Issue.record("hall1 is not a circle"); return
        }
        #expect(radius == 64)
        #expect(coordinate == GeoCoordinate(latitude: 41.353485, longitude: 2.129052))
        #expect(abs(center.x - (-246.70)) < 0.01)
        #expect(venue.places[3].shape == .label)
    }

    @Test func roundTrip() throws {
        let venue = try VenueFile.decode(Array(sample.utf8))
        let text = JSONWriter(indent: 2).string(from: VenueFile.encode(venue))
        #expect(try VenueFile.decode(Array(text.utf8)) == venue)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("venue-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try VenueFile.write(venue, to: url)
        #expect(try VenueFile.read(from: url) == venue)
    }

    /// Fixed receivers and named tags (FORMATS.md §1), read and written back.
    @Test func receiversAndTagsRoundTrip() throws {
        let text = #"""
        {"origin": {"latitude": 41.355, "longitude": 2.132}, "beacons": [],
         "receivers": [{"id": "kitchen", "x": 1, "y": 2, "z": 2.2, "floor": 0, "rssiOffset": -3, "pathLossExponent": 2.4},
                       {"id": "hall", "latitude": 41.3551, "longitude": 2.1321}],
         "tags": [{"id": "anna", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 1}]}
        """#
        let venue = try VenueFile.decode(Array(text.utf8))
        #expect(venue.receivers.first == Venue.Receiver(id: "kitchen", x: 1, y: 2, z: 2.2, floor: 0, rssiOffset: -3, pathLossExponent: 2.4))
        #expect(abs((venue.receivers.last?.y ?? 0) - 11.10) < 0.01 && venue.receivers.last?.rssiOffset == 0)
        #expect(venue.tags == [Venue.Tag(id: "anna", iBeacon: IBeaconIdentity(uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 7, minor: 1))])
        let again = try VenueFile.decode(Array(JSONWriter(indent: 2).string(from: VenueFile.encode(venue)).utf8))
        #expect(again == venue)
        var unknown: [UnknownKey] = []
        _ = try JSONDocument.decode(Array(text.utf8), file: "venue.json", unknownKeys: &unknown, with: VenueFile.decode(root:))
        #expect(unknown.isEmpty)
    }

    @Test func devicesAndTheirOffsetsRoundTrip() throws {
        let text = #"{"beacons": [], "devices": [{"id": "Pixel 7", "rssiOffset": 3.5}, {"id": "iPhone", "rssiOffset": -2}]}"#
        let venue = try VenueFile.decode(Array(text.utf8))
        #expect(venue.devices == [Venue.Device(id: "Pixel 7", rssiOffset: 3.5), Venue.Device(id: "iPhone", rssiOffset: -2)])
        #expect(venue.deviceOffsets == ["Pixel 7": 3.5, "iPhone": -2])
        let again = try VenueFile.decode(Array(JSONWriter(indent: 2).string(from: VenueFile.encode(venue)).utf8))
        #expect(again == venue)
        // Without devices the key is not written.
        #expect(!JSONWriter(indent: 2).string(from: VenueFile.encode(Venue())).contains("devices"))
    }

    @Test func beaconDirectoryResolvesEveryKindOfReference() throws {
        let venue = try VenueFile.decode(Array(sample.utf8))
        let directory = BeaconDirectory(venue)
        #expect(directory.index(for: .id("25")) == 2)
        #expect(directory.index(for: .iBeacon(venue.beacons[0].iBeacon!)) == 0)
        #expect(directory.index(for: .eddystone(EddystoneIdentity(namespace: "edd1ebeac04e5defa017", instance: "0bdb87539b67")!)) == 1)
        #expect(directory.index(for: .id("nope")) == nil)
        #expect(venue.beaconIndex(for: .id("24")) == 1)
    }

    @Test("invalid venues name the file and the key", arguments: [
        (#"{"beacons": [{"id": "a"}, {"id": "a"}]}"#, #"venue.json:1:34: beacons[1].id: duplicate beacon id "a" (also beacons[0])"#),
        (#"{"beacons": [{"id": "a", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}, {"id": "b", "uuid": "e2c56db5-dffb-48d2-b060-d0f5a71096e0", "major": 1, "minor": 2}]}"#,
         "venue.json:1:119: beacons[1].uuid: duplicate uuid/major/minor"),
        (#"{"beacons": [{"id": "a", "latitude": 41.3, "longitude": 2.1}]}"#, #"venue.json:1:38: beacons[0].latitude: latitude/longitude need the venue's "origin""#),
        (#"{"beacons": [], "places": [{"id": "p", "polygon": [[0, 0], [1, 1]], "floor": 0}]}"#, "venue.json:1:51: places[0].polygon: a polygon needs at least 3 vertices, found 2"),
        (#"{"floors": [{"level": 0}], "beacons": [{"id": "a", "floor": 2}]}"#, #"venue.json:1:61: beacons[0].floor: floor 2 is not defined in "floors" (levels: 0)"#),
        (#"{"beacons": [], "places": [{"id": "p", "floor": 1}]}"#, "venue.json:1:49: places[0].floor: floor 1 is not defined"),
        (#"{"units": "yards", "beacons": []}"#, #"venue.json:1:11: units: unknown unit "yards""#),
        (#"{"name": "x"}"#, "venue.json: beacons: missing required key"),
        (#"{"beacons": [{"id": 7}]}"#, "venue.json:1:21: beacons[0].id: expected a string, found a number"),
        (#"{"beacons": [{"id": "a", "x": "1", "y": 2}]}"#, "venue.json:1:31: beacons[0].x: expected a number, found a string"),
        (#"{"beacons": [{"id": "a", "x": 1}]}"#, #"venue.json:1:14: beacons[0]: "x" and "y" must be given together"#),
        (#"{"beacons": [{"id": "a", "uuid": "not-a-uuid", "major": 1, "minor": 2}]}"#, #"venue.json:1:34: beacons[0].uuid: "not-a-uuid" is not a UUID"#),
        (#"{"beacons": [{"id": "a", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 70000, "minor": 2}]}"#, "venue.json:1:83: beacons[0].major: must lie in 0...65535"),
        (#"{"beacons": [{"id": "a", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"}]}"#, "must be given together"),
        (#"{"beacons": [], "places": [{"id": "p", "x": 1, "y": 1, "radius": -3}]}"#, "venue.json:1:66: places[0].radius: radius must be positive"),
        (#"{"units": "cell", "origin": {"latitude": 1, "longitude": 2}, "beacons": []}"#, "venue.json:1:29: origin: a venue measured in grid cells cannot be anchored"),
        (#"{"floors": [{"level": 0}, {"level": 0}], "beacons": []}"#, "venue.json:1:27: floors[1]: duplicate floor level 0"),
        (#"{"beacons": [{"id": "a"}"#, "venue.json:1:25: not valid JSON: expected ',' or ']' in array, found end of input"),
        ("[]", "venue.json: expected an object, found an array"),
        (#"{"beacons": [], "devices": [{"id": "p", "rssiOffset": 1}, {"id": "p", "rssiOffset": 2}]}"#,
         #"venue.json:1:66: devices[1].id: duplicate device id "p" (also devices[0])"#),
        (#"{"beacons": [], "devices": [{"id": "p", "rssiOffset": 55}]}"#, "venue.json:1:55: devices[0].rssiOffset: an RSSI offset lies within ±40 dB, found 55"),
        (#"{"beacons": [], "devices": [{"id": "p"}]}"#, "venue.json:1:29: devices[0].rssiOffset: missing required key"),
        (#"{"beacons": [], "receivers": [{"id": "r"}, {"id": "r"}]}"#, #"receivers[1].id: duplicate receiver id "r" (also receivers[0])"#),
        (#"{"beacons": [{"id": "r"}], "receivers": [{"id": "r"}]}"#, #"receivers[0].id: receiver id "r" is also a beacon's (beacons[0])"#),
        (#"{"beacons": [], "receivers": [{"id": "r", "rssiOffset": -41}]}"#, "receivers[0].rssiOffset: an RSSI offset lies within ±40 dB, found -41"),
        (#"{"beacons": [], "receivers": [{"id": "r", "pathLossExponent": 0}]}"#, "receivers[0].pathLossExponent: must be positive"),
        (#"{"beacons": [], "receivers": [{"id": "r", "floor": 3}]}"#, "receivers[0].floor: floor 3 is not defined"),
        (#"{"beacons": [], "tags": [{"id": "t"}]}"#, "tags[0]: a tag needs the identity it advertises"),
        (#"{"beacons": [], "tags": [{"id": "t", "namespace": "EDD1EBEAC04E5DEFA017", "instance": "0BDB87539B67"}, {"id": "u", "namespace": "edd1ebeac04e5defa017", "instance": "0bdb87539b67"}]}"#,
         "tags[1].namespace: duplicate namespace/instance"),
    ])
    func invalid(text: String, message: String) {
        #expect {
            try VenueFile.decode(Array(text.utf8), file: "venue.json")
        } throws: { error in
            let description = String(describing: error)
            if !description.contains(message) { print("got: \(description)") }
            return description.contains(message)
        }
    }

    @Test func missingFileSaysSo() {
        #expect {
            try VenueFile.read(from: URL(fileURLWithPath: "/nonexistent/venue.json"))
        } throws: { error in
            String(describing: error).hasPrefix("/nonexistent/venue.json: cannot read the file")
        }
    }
}
