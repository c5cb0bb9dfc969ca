import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Moving in from OwnTracks Recorder, GPX and Google's location history: every position becomes
/// a position event once, however often imported; other records are passed over; bad ones are
/// named by file and line and skipped.
@Suite("Location history import")
struct LocationHistoryImportTests {
    /// A Recorder store: `rec/jane/phone/2024-05.rec` and `rec/jane/tablet/2024-06.rec`.
    static func makeStore() throws -> String {
        let root = NSTemporaryDirectory() + "whereabouts-owntracks-" + UUID().uuidString
        let phone = """
            2024-05-01T08:00:00Z\t*                 \t{"_type":"location","tid":"jp","lat":46.5191,"lon":6.6323,"tst":1714550400,"acc":12,"alt":380,"vel":18,"cog":90,"batt":81}
            2024-05-01T08:05:00Z\t*                 \t{"_type":"transition","event":"enter","desc":"home","tst":1714550700}
            2024-05-01T08:10:00Z\t*                 \t{"_type":"location","tid":"jp","lat":46.5200,"lon":6.6400,"tst":1714551000,"acc":8}
            this is not a Recorder line
            2024-05-01T08:20:00Z\t*                 \t{"_type":"location","tid":"jp","lon":6.6400,"tst":1714551600}
            2024-05-01T08:30:00Z\t*                 \t{"_type":"location", "lat":
            """
        let tablet = """
            2024-06-02T10:00:00Z\t*                 \t{"_type":"location","tid":"jt","lat":47.3769,"lon":8.5417,"tst":1717322400,"acc":30}

            """
        for (folder, name, text) in [("phone", "2024-05.rec", phone), ("tablet", "2024-06.rec", tablet)] {
            let directory = root + "/rec/jane/" + folder
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        return root
    }

    @Test(arguments: StoreKind.tested)
    func eachLocationOnceOtherMessagesPassedOverBadLinesNamed(kind: StoreKind) async throws {
        let root = try Self.makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let jane = try await harness.addUser("jane", to: store)
            let report = try await LocationHistoryImport.run(at: root + "/rec/jane", into: store, user: jane, stream: "owntracks")
            #expect(report.files == 2 && report.imported == 3 && report.existing == 0 && report.passedOver == 1)
            let phoneFile = root + "/rec/jane/phone/2024-05.rec"
            #expect(report.refused == 3)
            #expect(report.refusals.map(\.line) == [4, 5, 6] && report.refusals.allSatisfy { $0.file == phoneFile })
            #expect(report.refusals[0].reason.contains("TIME<tab>TOPIC<tab>JSON"))
            #expect(report.refusals[1].reason.contains("`lat` and `lon`"), "\(report.refusals[1])")
            #expect(report.refusals[2].reason.contains("does not parse"))

            let events = try await store.events(matching: EventQuery(sortAscending: true), for: jane)
            #expect(events.map(\.time) == [1_714_550_400, 1_714_551_000, 1_717_322_400])
            #expect(events.allSatisfy { $0.streamIds == ["owntracks"] && $0.type == "position/wgs84" })
            let first = try #require(events.first)
            #expect(first.content?["horizontalAccuracy"] == .number(12) && first.content?["altitude"] == .number(380))
            #expect(first.content?["speed"] == .number(5) && first.content?["bearing"] == .number(90))
            #expect(first.clientData?["owntracks"]?["device"] == .string("phone"))
            #expect(events.last?.clientData?["owntracks"]?["device"] == .string("tablet"))
            #expect(try await store.streams(of: jane).contains { $0.id == "owntracks" })

            // Again: nothing new.
            let again = try await LocationHistoryImport.run(at: root + "/rec/jane", into: store, user: jane, stream: "owntracks")
            #expect(again.imported == 0 && again.existing == 3)
            #expect(try await store.events(matching: EventQuery(), for: jane).count == 3)
            // One file alone: its location is the same event (same device, time and fix), there already.
            let one = try await LocationHistoryImport.run(at: root + "/rec/jane/tablet/2024-06.rec", into: store, user: jane)
            #expect(one.files == 1 && one.imported == 0 && one.existing == 1)
            await #expect(throws: StoreError.notFound("user", id: harness.name("nobody"))) {
                _ = try await LocationHistoryImport.run(at: root, into: store, user: harness.name("nobody"))
            }
            // One position a batch: each stored while the next is read, every one counted once,
            // the progress heard after each.
            let joe = try await harness.addUser("joe", to: store)
            let heard = LockedValue<[Int]>([])
            let small = try await LocationHistoryImport.run(at: root + "/rec/jane", into: store, user: joe, batchSize: 1) { report in
                heard.withValue { $0.append(report.positions) }
            }
            #expect(small.imported == 3 && small.existing == 0 && small.refused == 3)
            #expect(heard.value == [1, 2, 3])
            #expect(try await store.events(matching: EventQuery(sortAscending: true), for: joe).map(\.time) == events.map(\.time))
            // The same location posted live by OwnTracks' HTTP mode is the same event.
            let live = try #require(try OwnTracksMessage.event(
                from: JSONParser.parse(#"{"_type":"location","tid":"jt","lat":47.3769,"lon":8.5417,"tst":1717322400,"acc":30}"#),
                device: "tablet", now: 0, accessId: "a"))
            #expect(live["id"] == .string(try #require(events.last?.id)))
        }
    }

    /// Writes `files` (name → text) into a new folder; returns it.
    static func folder(_ files: [String: String]) throws -> String {
        let root = NSTemporaryDirectory() + "whereabouts-history-" + UUID().uuidString
        for (name, text) in files {
            let path = root + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        return root
    }

    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"
             xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
          <metadata><name>Not the track</name></metadata>
          <wpt lat="46.0" lon="6.0"><time>2024-05-01T07:00:00Z</time><name>Start</name></wpt>
          <trk>
            <name>Morning &amp; lake</name>
            <trkseg>
              <trkpt lat="46.5191" lon="6.6323"><ele>380.5</ele><time>2024-05-01T08:00:00Z</time>
                <extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>2.5</gpxtpx:speed><gpxtpx:course>45</gpxtpx:course></gpxtpx:TrackPointExtension></extensions>
              </trkpt>
              <trkpt lat="46.5200" lon="6.6400"><time>2024-05-01T10:00:01.5+02:00</time></trkpt>
              <trkpt lat="46.5300" lon="6.6500"></trkpt>
              <trkpt lat="146.5" lon="6.65"><time>2024-05-01T08:00:05Z</time></trkpt>
              <trkpt lat="46.54" lon="6.66"><time>yesterday</time></trkpt>
            </trkseg>
          </trk>
          <rte><rtept lat="46.6" lon="6.7"/></rte>
        </gpx>
        """

    @Test(arguments: StoreKind.tested)
    func gpxTrackPointsWithTheirTimesOthersPassedOverBadOnesNamed(kind: StoreKind) async throws {
        let root = try Self.folder(["rides/2024-05-01.gpx": Self.gpx, "rides/broken.gpx": "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\">",
                                    "rides/bad.gpx": "<gpx>\n<trk></gpx>", "rides/other.gpx": "<kml/>",
                                    "rides/notes.txt": "not read"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(LocationHistoryImport.Format.of(path: root + "/rides") == .gpx)
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let jane = try await harness.addUser("jane", to: store)
            let report = try await LocationHistoryImport.run(at: root + "/rides", into: store, user: jane)
            #expect(report.files == 4 && report.imported == 2 && report.passedOver == 2)
            let file = root + "/rides/2024-05-01.gpx"
            #expect(report.refusals.prefix(3).map(\.line) == [13, 14, 15] && report.refusals.prefix(3).allSatisfy { $0.file == file },
                    "\(report.refusals)")
            #expect(report.refusals[0].reason.contains("without a <time>"))
            #expect(report.refusals[1].reason.contains("latitude"))
            #expect(report.refusals[2].reason.contains("\"yesterday\""))
            // In name order: bad.gpx (a tag closed out of order), broken.gpx (cut short), other.gpx (not GPX).
            #expect(report.refusals.dropFirst(3).map { ($0.file as NSString).lastPathComponent } == ["bad.gpx", "broken.gpx", "other.gpx"])
            #expect(report.refusals.dropFirst(3).map(\.line) == [2, 1, 0], "\(report.refusals)")
            #expect(report.refusals[3].reason.contains("not well-formed") && report.refusals[4].reason.contains("cut short")
                    && report.refusals[5].reason.contains("not a GPX file"), "\(report.refusals)")
            let events = try await store.events(matching: EventQuery(sortAscending: true), for: jane)
            #expect(events.map(\.time) == [1_714_550_400, 1_714_550_401.5])
            let first = try #require(events.first)
            #expect(first.content == .object([("latitude", .number(46.5191)), ("longitude", .number(6.6323)), ("altitude", .number(380.5)),
                                              ("speed", .number(2.5)), ("bearing", .number(45))]))
            #expect(first.clientData == .object([("gpx", .object([("track", .string("Morning & lake"))]))]))
            #expect(first.id.hasPrefix("gpx-1714550400-") && first.streamIds == ["position"])
            let again = try await LocationHistoryImport.run(at: file, into: store, user: jane)
            #expect(again.imported == 0 && again.existing == 2)
        }
    }

    static let records = """
        {
          "locations": [{
            "latitudeE7": 465191000,
            "longitudeE7": 66323000,
            "accuracy": 20,
            "altitude": 380,
            "verticalAccuracy": 3,
            "velocity": 4,
            "heading": 270,
            "source": "WIFI",
            "deviceTag": 12345,
            "activity": [{"activity": [{"type": "STILL", "confidence": 100}], "timestamp": "2024-05-01T08:00:00Z"}],
            "timestamp": "2024-05-01T08:00:00.250Z"
          }, {
            "latitudeE7": 4294067296,
            "longitudeE7": 66400000,
            "timestampMs": "1714551000000"
          }, {
            "longitudeE7": 66400000,
            "timestamp": "2024-05-01T08:20:00Z"
          }],
          "other": {"locations": [1, 2]}
        }
        """

    static let semantic = """
        {"timelineObjects": [
          {"activitySegment": {"startLocation": {"latitudeE7": 465000000, "longitudeE7": 66000000},
                               "endLocation": {"latitudeE7": 466000000, "longitudeE7": 67000000},
                               "duration": {"startTimestamp": "2019-01-05T10:00:00Z", "endTimestamp": "2019-01-05T10:30:00Z"},
                               "simplifiedRawPath": {"points": [{"latE7": 465500000, "lngE7": 66500000, "timestamp": "2019-01-05T10:15:00Z", "accuracyMeters": 10}]},
                               "activityType": "CYCLING"}},
          {"placeVisit": {"location": {"latitudeE7": 466000000, "longitudeE7": 67000000, "name": "Café", "placeId": "ChIJ1"},
                          "duration": {"startTimestampMs": "1546684200000", "endTimestampMs": "1546687800000"}}},
          {"placeVisit": {"location": {"name": "nowhere"}}}
        ]}
        """

    static let androidTimeline = """
        {"semanticSegments": [
          {"startTime": "2024-06-01T10:00:00.000+02:00", "endTime": "2024-06-01T11:00:00.000+02:00",
           "timelinePath": [{"point": "48.1000000°, 11.5000000°", "time": "2024-06-01T10:02:00.000+02:00"}]},
          {"startTime": "2024-06-01T11:00:00.000+02:00", "endTime": "2024-06-01T12:00:00.000+02:00",
           "visit": {"topCandidate": {"placeId": "ChIJ2", "semanticType": "HOME", "placeLocation": {"latLng": "48.2°, 11.6°"}}}},
          {"startTime": "2024-06-01T12:00:00.000+02:00", "endTime": "2024-06-01T12:00:00.000+02:00", "timelineMemory": {}}
         ],
         "rawSignals": [{"position": {"LatLng": "48.3°, 11.7°", "accuracyMeters": 13, "altitudeMeters": 520.5, "source": "GPS",
                                      "timestamp": "2024-06-01T12:30:00.000+02:00", "speedMetersPerSecond": 1.5}},
                        {"wifiScan": {"deliveryTime": "2024-06-01T12:31:00.000+02:00"}}],
         "userLocationProfile": {"frequentPlaces": []}}
        """

    static let iosTimeline = """
        [{"startTime": "2024-07-01T09:00:00.000+01:00", "endTime": "2024-07-01T10:00:00.000+01:00",
          "timelinePath": [{"point": "geo:51.5,-0.12", "durationMinutesOffsetFromStartTime": "15"}]},
         {"startTime": "2024-07-01T10:00:00.000+01:00", "endTime": "2024-07-01T10:30:00.000+01:00",
          "activity": {"start": "geo:51.5,-0.12", "end": "geo:51.6,-0.13", "topCandidate": {"type": "walking"}}}]
        """

    @Test(arguments: StoreKind.tested)
    func googleLocationHistoryInEachOfItsShapes(kind: StoreKind) async throws {
        let root = try Self.folder(["Takeout/Location History/Records.json": Self.records,
                                    "Takeout/Location History/Semantic Location History/2019/2019_JANUARY.json": Self.semantic,
                                    "Timeline.json": Self.androidTimeline, "ios/location-history.json": Self.iosTimeline])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(LocationHistoryImport.Format.of(path: root + "/Takeout") == .googleTakeout)
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let jane = try await harness.addUser("jane", to: store)
            let takeout = try await LocationHistoryImport.run(at: root + "/Takeout", into: store, user: jane, stream: "google")
            // Records: 2 fixes (the third lacks a latitude); semantic: start, path point, end, one visit.
            #expect(takeout.files == 2 && takeout.imported == 6 && takeout.refused == 2, "\(takeout)")
            #expect(takeout.refusals.map(\.line) == [18, 9], "\(takeout.refusals)")   // files in name order: Records.json, then Semantic…
            #expect(takeout.refusals[0].reason.contains("latitudeE7") && takeout.refusals[0].file.hasSuffix("Records.json"))
            #expect(takeout.refusals[1].reason.contains("placeVisit") && takeout.refusals[1].file.hasSuffix("2019_JANUARY.json"))
            let events = try await store.events(matching: EventQuery(sortAscending: true), for: jane)
            #expect(events.map(\.time) == [1_546_682_400, 1_546_683_300, 1_546_684_200, 1_546_684_200, 1_714_550_400.25, 1_714_551_000])
            let fix = try #require(events.first { $0.time == 1_714_550_400.25 })
            #expect(fix.content == .object([("latitude", .number(46.5191)), ("longitude", .number(6.6323)), ("altitude", .number(380)),
                                            ("horizontalAccuracy", .number(20)), ("verticalAccuracy", .number(3)),
                                            ("speed", .number(4)), ("bearing", .number(270))]))
            #expect(fix.clientData == .object([("takeout", .object([("source", .string("WIFI")), ("deviceTag", .number(12_345))]))]))
            // latitudeE7 written past 2³¹ is wrapped back: 4294067296 − 2³² = −900000.
            #expect(events.first { $0.time == 1_714_551_000 }?.content?["latitude"] == .number(-0.09))
            let visit = try #require(events.first { $0.duration == 3_600 })
            #expect(visit.time == 1_546_684_200 && visit.content?["latitude"] == .number(46.6))
            #expect(visit.clientData?["takeout"]?["visit"]?["name"] == .string("Café"))
            #expect(events.allSatisfy { $0.streamIds == ["google"] && $0.id.hasPrefix("gt-") })

            let android = try await LocationHistoryImport.run(at: root + "/Timeline.json", into: store, user: jane, stream: "google")
            // A path point, a visit, a raw position; the memory and the Wi-Fi scan passed over.
            #expect(android.imported == 3 && android.passedOver == 2 && android.refused == 0, "\(android)")
            let june = try await store.events(matching: EventQuery(fromTime: 1_717_000_000, toTime: 1_718_000_000, sortAscending: true), for: jane)
            #expect(june.map(\.time) == [1_717_228_920, 1_717_232_400, 1_717_237_800])
            #expect(june[1].duration == 3_600 && june[1].content?["latitude"] == .number(48.2)
                    && june[1].clientData?["takeout"]?["visit"]?["semanticType"] == .string("HOME"))
            #expect(june[2].content == .object([("latitude", .number(48.3)), ("longitude", .number(11.7)), ("altitude", .number(520.5)),
                                                ("horizontalAccuracy", .number(13)), ("speed", .number(1.5))]))

            let ios = try await LocationHistoryImport.run(at: root + "/ios", into: store, user: jane, stream: "google")
            // The path point 15 minutes after its segment's start, the walk's start and end.
            #expect(ios.imported == 3 && ios.refused == 0, "\(ios)")
            let july = try await store.events(matching: EventQuery(fromTime: 1_719_000_000, toTime: 1_720_000_000, sortAscending: true), for: jane)
            #expect(july.map(\.time) == [1_719_821_700, 1_719_824_400, 1_719_826_200])
            #expect(july[0].content?["longitude"] == .number(-0.12))

            let again = try await LocationHistoryImport.run(at: root, format: .googleTakeout, into: store, user: jane, stream: "google")
            #expect(again.imported == 0 && again.existing == 12, "\(again)")
        }
    }

    @Test func aFolderWithoutHistoryIsRefusedByName() async throws {
        let root = try Self.folder(["notes.txt": "nothing"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(LocationHistoryImport.Format.of(path: root) == nil)
        let store = try await StoreHarness(.sqlite).open()
        await #expect(throws: LocationHistoryImport.ImportError.nothingToRead(root)) {
            _ = try await LocationHistoryImport.run(at: root, into: store, user: "jane")
        }
        try await store.close()
    }

    @Test func iso8601TimesWithTheirZonesAndFractions() {
        #expect(ISO8601Time.seconds(in: "1970-01-02T00:00:01.5Z") == 86_401.5)
        #expect(ISO8601Time.seconds(in: "2024-05-01T14:00:00+02:00") == 1_714_564_800)
        #expect(ISO8601Time.seconds(in: "2024-05-01T14:00:00+0200") == 1_714_564_800)
        #expect(ISO8601Time.seconds(in: "2024-05-01 07:30:00-04:30") == 1_714_564_800)
        #expect(ISO8601Time.seconds(in: "2024-02-29T00:00:00Z") == 1_709_164_800)
        for bad in ["2023-02-29T00:00:00Z", "2024-05-01T14:00:00", "2024-05-01", "2024-13-01T00:00:00Z", "2024-05-01T14:00:00Zjunk", ""] {
            #expect(ISO8601Time.seconds(in: bad) == nil, "\(bad)")
        }
    }

    @Test func arrayElementsAreFoundWithoutParsingTheWhole() throws {
        let text = #"{"skip": {"locations": [9]}, "s": "a \"]\" b", "locations": [ {"a": "}]"}, [1, [2]], 3 , "x"], "n": null}"#
        let data = Data(text.utf8)
        let elements = try data.withUnsafeBytes { try JSONArrayElements.elements(of: $0, in: ["locations"]) }
        #expect(elements.map { String(decoding: data[$0.range], as: UTF8.self) } == [#"{"a": "}]"}"#, "[1, [2]]", "3", #""x""#])
        #expect(elements.allSatisfy { $0.key == "locations" })
        let array = Data("[1, {}]".utf8)
        #expect(try array.withUnsafeBytes { try JSONArrayElements.elements(of: $0, in: []) }.map(\.key) == ["", ""])
        for bad in [#"{"locations": [1, 2"#, #"{"locations": "#, "", #"{"a" 1}"#] {
            #expect(throws: JSONArrayElements.Malformed.self) { try Data(bad.utf8).withUnsafeBytes { try JSONArrayElements.elements(of: $0, in: ["locations"]) } }
        }
    }
}
