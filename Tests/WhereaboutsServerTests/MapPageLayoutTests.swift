import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// A venue in Barcelona: two halls side by side, a smaller hall inside the first with the same
/// centre (its label would overprint the big hall's), a café and a kiosk close together, an
/// entrance below, and a row of three rooms in the second hall, narrower than their names.
/// Bearing 0: x east, y north, in metres.
let mapLayoutVenueJSON = """
    {"name": "Fira", "origin": {"latitude": 41.3535, "longitude": 2.1291, "bearing": 0},
     "floors": [{"level": 0, "name": "Ground"}],
     "beacons": [{"id": "b1", "x": 5, "y": 5, "floor": 0}, {"id": "b2", "x": 195, "y": 75, "floor": 0}],
     "places": [
       {"id": "hall7", "polygon": [[0, 0], [120, 0], [120, 80], [0, 80]], "floor": 0},
       {"id": "hall7smaller", "polygon": [[30, 20], [90, 20], [90, 60], [30, 60]], "floor": 0},
       {"id": "hall8", "polygon": [[130, 0], [200, 0], [200, 80], [130, 80]], "floor": 0},
       {"id": "cafe", "x": 125, "y": 40, "radius": 4, "floor": 0},
       {"id": "kiosk", "x": 127, "y": 43, "radius": 2, "floor": 0},
       {"id": "entrance", "polygon": [[50, -12], [70, -12], [70, 0], [50, 0]], "floor": 0},
       {"id": "room-101", "polygon": [[135, 60], [145, 60], [145, 66], [135, 66]], "floor": 0},
       {"id": "room-102", "polygon": [[145, 60], [155, 60], [155, 66], [145, 66]], "floor": 0},
       {"id": "room-103", "polygon": [[155, 60], [165, 60], [165, 66], [155, 66]], "floor": 0}]}
    """

/// The map page's layout, measured in the browser: what the user sees, by DOM geometry.
///
/// The page fits its view to the venue (or, without one, to the bulk of the track), never to
/// every point: a position hundreds of kilometres away is an arrow at the edge with a note, and
/// the plan keeps its size. The places' names never overprint each other and are painted over
/// the track.
@Suite("Map page layout in a browser", .serialized)
struct MapPageLayoutTests {
    /// The viewport the page is laid out in.
    static let viewport = (width: 1200, height: 900)

    /// A walk through the venue (x, y in metres): through the entrance, the middle of the halls
    /// (where their names are), past the café.
    static let walk: [(x: Double, y: Double)] = [(60, -6), (60, 10), (60, 40), (90, 40), (125, 40), (165, 40), (170, 45)]

    /// Where the test posts positions: the walk, as latitude/longitude.
    static func walkCoordinates() throws -> [GeoCoordinate] {
        let frame = try #require(try VenueFile.decode(Array(mapLayoutVenueJSON.utf8), file: "fira.json").localFrame)
        return walk.map { frame.coordinate(for: PlanarPoint(x: $0.x, y: $0.y)) }
    }

    /// Posts the walk with one position in Lausanne (46.5, 6.6: some 600 km away) in the middle
    /// of it, as a phone that briefly reported its home town would; returns how many were posted.
    static func postWalkWithOutlier(_ server: MapTestServer) async throws -> Int {
        let now = MapPageTests.now()
        var coordinates = try walkCoordinates().map { (latitude: $0.latitude, longitude: $0.longitude) }
        coordinates.insert((46.5, 6.6), at: 3)
        for (index, c) in coordinates.enumerated() {
            let id = index == 3 ? "far" : "walk\(index)"
            try await server.postPosition(token: MapTestServer.aliceToken, id: id, time: now - 3600 + Double(index) * 60,
                                          latitude: c.latitude, longitude: c.longitude)
        }
        return coordinates.count
    }

    /// Measures the map in the page: everything in CSS pixels of the viewport, fractions of the
    /// map's element where it says so.
    static let measure = """
        (() => {
          const map = document.getElementById('map');
          const svg = map.getBoundingClientRect();
          const rect = (node) => node.getBoundingClientRect();
          const union = (rects) => rects.length === 0 ? null : {
            left: Math.min(...rects.map(r => r.left)), right: Math.max(...rects.map(r => r.right)),
            top: Math.min(...rects.map(r => r.top)), bottom: Math.max(...rects.map(r => r.bottom)) };
          const within = (r) => r.left >= svg.left - 0.5 && r.right <= svg.right + 0.5 && r.top >= svg.top - 0.5 && r.bottom <= svg.bottom + 0.5;
          const intersect = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

          const places = union([...map.querySelectorAll('.place')].map(rect));
          const dots = [...map.querySelectorAll('circle.point')];
          const track = union(dots.filter(d => d.getAttribute('data-id').startsWith('walk')).map(rect));
          const trackNodes = [...map.querySelectorAll('polyline.track-line, circle.point, circle.accuracy')];

          const labels = [...map.querySelectorAll('.place-label')];
          const labelRects = labels.map(rect);
          const overlapping = [];
          for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
            if (intersect(labelRects[i], labelRects[j])) overlapping.push(labels[i].textContent + '/' + labels[j].textContent);
          }
          const labelsOverDots = labelRects.filter(l => dots.some(d => intersect(l, rect(d)))).length;
          const labelsAfterTrack = labels.length > 0 && trackNodes.length > 0 && labels.every(label =>
            trackNodes.every(node => node.compareDocumentPosition(label) & Node.DOCUMENT_POSITION_FOLLOWING));

          const markers = [...map.querySelectorAll('.edge-marker')].map(node => {
            const r = rect(node);
            return { id: node.getAttribute('data-id'), newest: node.classList.contains('newest'), within: within(r),
                     // the gap to the nearest side of the map, and where it is from the map's centre
                     edgeGap: Math.min(r.left - svg.left, svg.right - r.right, r.top - svg.top, svg.bottom - r.bottom) / Math.min(svg.width, svg.height),
                     dx: (r.left + r.right) / 2 - (svg.left + svg.right) / 2, dy: (r.top + r.bottom) / 2 - (svg.top + svg.bottom) / 2 };
          }).sort((a, b) => a.id < b.id ? -1 : 1);
          const note = document.getElementById('outside-note');
          return {
            placesWidth: places ? (places.right - places.left) / svg.width : 0,
            placesHeight: places ? (places.bottom - places.top) / svg.height : 0,
            placesWithin: places ? within(places) : false,
            trackWidth: track ? (track.right - track.left) / svg.width : 0,
            trackHeight: track ? (track.bottom - track.top) / svg.height : 0,
            dots: dots.length, dotsWithin: dots.every(d => within(rect(d))),
            labels: labels.map(l => l.textContent).sort().join(' '),
            overlapping: overlapping.join(' '), labelsWithin: labelRects.every(within),
            labelsOverDots: labelsOverDots, labelsAfterTrack: labelsAfterTrack,
            markers: markers,
            noteVisible: !note.hidden && rect(note).height > 0, note: note.textContent,
            outside: window.whereaboutsMap.outside, viewBox: map.getAttribute('viewBox'),
          };
        })()
        """

    static func double(_ value: JSONValue?) -> Double {
        if case .number(let number)? = value { return number }
        return .nan
    }

    static func text(_ value: JSONValue?) -> String {
        if case .string(let text)? = value { return text }
        return ""
    }

    static func markers(_ layout: JSONValue) -> [JSONValue] {
        if case .array(let markers)? = layout["markers"] { return markers }
        return []
    }

    /// Opens alice's map at the test's viewport, in UTC, and waits until it shows `count` positions.
    static func open(_ page: DevToolsPage, on server: MapTestServer, showing count: Int) async throws {
        try await page.setViewport(width: viewport.width, height: viewport.height)
        try await page.setTimeZone("UTC")
        try await page.navigate(to: "\(server.baseURL)/map?auth=\(MapTestServer.aliceToken)")
        try await page.waitUntil("window.whereaboutsMap && window.whereaboutsMap.connected && window.whereaboutsMap.points === \(count)")
    }

    /// The distance in a note such as "…, up to 674 km away: …", in kilometres.
    static func kilometres(in note: String) -> Double? {
        guard let match = note.firstMatch(of: #/([0-9]+) km away/#) else { return nil }
        return Double(match.1)
    }

    @Test("the view fits the venue, not a position 600 km away: an arrow at the edge and a note instead; labels do not collide and are over the track",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"))
    func venueFitsDespiteFarPosition() async throws {
        let venue = try VenueFile.decode(Array(mapLayoutVenueJSON.utf8), file: "fira.json")
        try await MapTestServer.run(venue: venue) { server in
            let count = try await Self.postWalkWithOutlier(server)
            try await HeadlessChromium.withPage { page in
                try await Self.open(page, on: server, showing: count)
                let layout = try await page.evaluate(Self.measure)

                // 1. The plan fills the map along the side that limits it (it is 232 m wide with
                // its margins, 104 m high, the map about 2:1): not a blob.
                let width = Self.double(layout["placesWidth"]), height = Self.double(layout["placesHeight"])
                #expect(max(width, height) > 0.6 && min(width, height) > 0.3, "the places cover \(width) × \(height) of the map")
                #expect(layout["placesWithin"] == .bool(true))
                // The seven positions in the venue are dots on the map; the far one is not.
                #expect(layout["dots"] == .number(Double(count - 1)))
                #expect(layout["dotsWithin"] == .bool(true))

                // 2. The far position: one arrow at the edge of the map, toward the north-east
                // (Lausanne from Barcelona), and a visible note with its distance.
                #expect(layout["outside"] == .number(1))
                let markers = Self.markers(layout)
                #expect(markers.count == 1, "\(markers)")
                if let marker = markers.first {
                    #expect(marker["id"] == .string("far"))
                    #expect(marker["within"] == .bool(true))
                    #expect(Self.double(marker["edgeGap"]) < 0.05, "the arrow is \(Self.double(marker["edgeGap"])) of the map from its edge")
                    #expect(Self.double(marker["dx"]) > 0 && Self.double(marker["dy"]) < 0, "the arrow is at \(marker), not north-east")
                }
                #expect(layout["noteVisible"] == .bool(true))
                let note = Self.text(layout["note"])
                #expect(note.hasPrefix("1 position outside the plan of Fira, "), "\(note)")
                let distance = Self.kilometres(in: note)
                #expect(distance.map { $0 > 550 && $0 < 800 } == true, "\(note)")

                // 3. Every place is named, and no two names overlap, all inside the map (the
                // small hall's name and the big hall's would share a spot, the café's and the
                // kiosk's nearly, the rooms' names are wider than the rooms).
                #expect(Self.text(layout["labels"]) == "cafe entrance hall7 hall7smaller hall8 kiosk room-101 room-102 room-103")
                #expect(Self.text(layout["overlapping"]) == "", "overlapping labels: \(Self.text(layout["overlapping"]))")
                #expect(layout["labelsWithin"] == .bool(true))

                // 4. Names are painted after (over) the track: the walk passes under some of them.
                #expect(Self.double(layout["labelsOverDots"]) >= 1)
                #expect(layout["labelsAfterTrack"] == .bool(true))

                // Another far position, live (Madrid, to the south-west): a second arrow, the
                // newest, and the plan does not move.
                let viewBox = layout["viewBox"]
                try await server.postPosition(token: MapTestServer.aliceToken, id: "madrid", time: MapPageTests.now() - 60,
                                              latitude: 40.4168, longitude: -3.7038)
                try await page.waitUntil("window.whereaboutsMap.outside === 2")
                let after = try await page.evaluate(Self.measure)
                #expect(after["viewBox"] == viewBox)
                let both = Self.markers(after)
                #expect(both.map { $0["id"] } == [.string("far"), .string("madrid")], "\(both)")
                if both.count == 2 {
                    #expect(both[1]["newest"] == .bool(true) && both[0]["newest"] == .bool(false))
                    #expect(Self.double(both[1]["dx"]) < 0 && Self.double(both[1]["dy"]) > 0, "Madrid's arrow is at \(both[1])")
                }
                #expect(Self.text(after["note"]).hasPrefix("2 positions outside the plan of Fira, up to "), "\(Self.text(after["note"]))")
                #expect(Self.text(after["overlapping"]) == "")
                #expect(after["labelsAfterTrack"] == .bool(true))
            }
        }
    }

    @Test("without a venue, the view fits the bulk of the track: one position 600 km away is an arrow at the edge",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"))
    func trackFitsDespiteOutlier() async throws {
        try await MapTestServer.run(venue: nil) { server in
            let count = try await Self.postWalkWithOutlier(server)
            try await HeadlessChromium.withPage { page in
                try await Self.open(page, on: server, showing: count)
                let layout = try await page.evaluate(Self.measure)
                #expect(layout["dots"] == .number(Double(count - 1)))
                #expect(layout["dotsWithin"] == .bool(true))
                // The walk (200 m) fills the map along the side that limits it.
                let width = Self.double(layout["trackWidth"]), height = Self.double(layout["trackHeight"])
                #expect(max(width, height) > 0.6, "the walk covers \(width) × \(height) of the map")
                #expect(layout["outside"] == .number(1))
                let markers = Self.markers(layout)
                #expect(markers.count == 1 && markers.first?["id"] == .string("far"), "\(markers)")
                #expect(markers.first.map { Self.double($0["edgeGap"]) < 0.05 } == true)
                #expect(layout["noteVisible"] == .bool(true))
                #expect(Self.text(layout["note"]).hasPrefix("1 position far from the rest of the track, "), "\(Self.text(layout["note"]))")
            }
        }
    }
}
