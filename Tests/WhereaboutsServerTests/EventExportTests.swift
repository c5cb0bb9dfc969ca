import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// GeoJSON, GPX and CSV exports.
@Suite("Event export")
struct EventExportTests {
    private func position(_ id: String, time: Double, latitude: Double, longitude: Double, altitude: Double? = nil,
                          accuracy: Double? = nil) -> Event {
        var content: [(key: String, value: JSONValue)] = [("latitude", .number(latitude)), ("longitude", .number(longitude))]
        if let altitude { content.append(("altitude", .number(altitude))) }
        if let accuracy { content.append(("horizontalAccuracy", .number(accuracy))) }
        return Event(id: id, streamIds: ["position"], time: time, type: "position/wgs84", content: .object(content))
    }

    private var events: [Event] {
        [
            position("b", time: 1_700_000_060, latitude: 46.5, longitude: 6.6, altitude: 372, accuracy: 5),
            Event(id: "n", streamIds: ["position"], time: 1_700_000_030, type: "note/txt", content: .string("x")),
            position("a", time: 1_700_000_000, latitude: 46.25, longitude: 6.5),
        ]
    }

    @Test("Positions only, oldest first")
    func ordering() {
        #expect(EventExport.positions(in: events).map(\.event.id) == ["a", "b"])
        // 1,700,000,000 s = 2023-11-14 22:13:20 UTC.
        #expect(EventExport.isoTime(1_700_000_000) == "2023-11-14T22:13:20.000Z")
    }

    @Test("GPX: one segment of track points with elevation and time")
    func gpx() {
        let text = EventExport.Format.gpx.render(events)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\""))
        #expect(text.contains("""
                  <trkpt lat="46.25" lon="6.5"><time>2023-11-14T22:13:20.000Z</time></trkpt>
                  <trkpt lat="46.5" lon="6.6"><ele>372</ele><time>2023-11-14T22:14:20.000Z</time><desc>accuracy 5 m</desc></trkpt>
            """))
        #expect(text.hasSuffix("    </trkseg>\n  </trk>\n</gpx>\n"))
    }

    @Test("GeoJSON: a LineString track in [lon, lat(, alt)] order and one Point per position")
    func geoJSON() throws {
        let value = try JSONParser.parse(EventExport.Format.geojson.render(events))
        let features = try #require(value["features"]?.arrayValue)
        #expect(features.count == 3)
        #expect(features[0]["geometry"]?["type"]?.stringValue == "LineString")
        #expect(features[0]["geometry"]?["coordinates"] == .array([
            .array([.number(6.5), .number(46.25)]), .array([.number(6.6), .number(46.5), .number(372)]),
        ]))
        #expect(features[2]["geometry"]?["type"]?.stringValue == "Point")
        #expect(features[2]["properties"]?["id"]?.stringValue == "b")
        #expect(features[2]["properties"]?["horizontalAccuracy"]?.numberValue == 5)
    }

    @Test("CSV: a header and one quoted-where-needed line per position")
    func csv() {
        let text = EventExport.Format.csv.render(events)
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines[0] == "time,timestamp,latitude,longitude,altitude,horizontalAccuracy,verticalAccuracy,speed,bearing,id,streamIds")
        #expect(lines[1] == "2023-11-14T22:13:20.000Z,1700000000,46.25,6.5,,,,,,a,position")
        #expect(lines[2] == "2023-11-14T22:14:20.000Z,1700000060,46.5,6.6,372,5,,,,b,position")
        #expect(EventExport.csvField("a,\"b\"") == "\"a,\"\"b\"\"\"")
    }

    @Test("GET /events?format= serves the export of the token's positions", arguments: StoreKind.tested)
    func route(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (name, token) = try await server.addUser("fox")
            for (index, latitude) in [46.0, 46.1].enumerated() {
                _ = try await server.request(.POST, "/events", token: token,
                                             json: positionEvent(id: "p\(index)", time: 1_000 + Double(index), latitude: latitude, longitude: 6))
            }
            _ = try await server.request(.POST, "/events", token: token, json: object(
                ("streamIds", .array([.string("position")])), ("time", .number(1_000.5)), ("type", .string("note/txt")),
                ("content", .string("not a position"))))
            let gpx = try await server.request(.GET, "/events?fromTime=0&toTime=2000&format=gpx", token: token)
            #expect(gpx.status == 200)
            #expect(gpx.headers["Content-Type"].first == "application/gpx+xml")
            #expect(gpx.headers["Content-Disposition"].first == "attachment; filename=\"\(name).gpx\"")
            #expect(gpx.text.components(separatedBy: "<trkpt").count == 3)
            let csv = try await server.request(.GET, "/events?fromTime=0&toTime=2000&format=csv", token: token)
            #expect(csv.text.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 3)
            let bad = try await server.request(.GET, "/events?format=kml", token: token)
            #expect(bad.status == 400)
            #expect(try await server.request(.GET, "/events?format=gpx").status == 401)
        }
    }
}
