import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// A venue of two floors, like the example campus: on the ground floor a hall with a smaller hall
/// inside it (same centre, so their names would share a spot) and a second hall; upstairs, a
/// hall over the second one. Bearing 0: x east, y north, in metres.
let mapFloorsVenueJSON = """
    {"name": "Campus", "origin": {"latitude": 41.355, "longitude": 2.132, "bearing": 0},
     "floors": [{"level": 0, "name": "ground"}, {"level": 1, "name": "upper"}],
     "beacons": [{"id": "b1", "x": -40, "y": 0, "floor": 0}, {"id": "b2", "x": 150, "y": 0, "floor": 1}],
     "places": [
       {"id": "hall7", "x": 0, "y": 0, "radius": 50, "floor": 0},
       {"id": "hall7smaller", "x": 0, "y": 0, "radius": 40, "floor": 0},
       {"id": "hall8", "x": 150, "y": 0, "radius": 60, "floor": 0},
       {"id": "hall81", "x": 150, "y": 0, "radius": 60, "floor": 1}]}
    """

/// The map page on a venue of several floors, in the browser: the floor selector follows the
/// latest position (on the first load and as live positions arrive) until the user picks another
/// floor, which the page then keeps while saying where the newer positions are; the names of
/// nested places do not overprint each other.
@Suite("Map page floors in a browser", .serialized)
struct MapPageFloorTests {
    /// Posts one of Alice's positions at venue point (`x`, `y`) on `floor`, the floor in
    /// `clientData.whereabouts` as the tracker writes it.
    static func post(_ server: MapTestServer, id: String, time: Double, x: Double, y: Double, floor: Int) async throws {
        let venue = try VenueFile.decode(Array(mapFloorsVenueJSON.utf8), file: "campus.json")
        let c = try #require(venue.localFrame).coordinate(for: PlanarPoint(x: x, y: y))
        try await server.postEvent(token: MapTestServer.aliceToken, json: """
            {"id": "\(id)", "streamIds": ["position"], "time": \(time), "type": "position/wgs84",
             "content": {"latitude": \(c.latitude), "longitude": \(c.longitude), "horizontalAccuracy": 3},
             "clientData": {"whereabouts": {"floor": \(floor)}}}
            """)
    }

    /// The page's floor state: the floor shown, the selector's value, the floor note.
    static let floorState = """
        (() => {
          const note = document.getElementById('floor-note');
          return { floor: window.whereaboutsMap.floor, select: document.getElementById('floor').value,
                   byHand: window.whereaboutsMap.floorByHand, points: window.whereaboutsMap.points,
                   noteVisible: !note.hidden && note.getBoundingClientRect().height > 0,
                   note: document.getElementById('floor-note-text').textContent };
        })()
        """

    /// The labels drawn, and the pairs whose boxes on screen, with their 1.5 px halo, intersect.
    static let labelOverlaps = """
        (() => {
          const labels = [...document.querySelectorAll('#map .place-label')];
          const rects = labels.map(l => { const r = l.getBoundingClientRect();
            return { left: r.left - 1.5, right: r.right + 1.5, top: r.top - 1.5, bottom: r.bottom + 1.5 }; });
          const pairs = [];
          for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
            const a = rects[i], b = rects[j];
            if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) pairs.push(labels[i].textContent + '/' + labels[j].textContent);
          }
          return { labels: labels.map(l => l.textContent).sort().join(' '), overlapping: pairs.join(' ') };
        })()
        """

    @Test("the floor selector follows the latest position, on load and live, until the user picks a floor; nested places' names do not overlap",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"))
    func floorFollowsLatestPosition() async throws {
        let venue = try VenueFile.decode(Array(mapFloorsVenueJSON.utf8), file: "campus.json")
        try await MapTestServer.run(venue: venue) { server in
            let now = MapPageTests.now()
            // Three positions in hall7 on the ground floor, then two upstairs: the visit ends on
            // the upper floor.
            for (index, floor) in [0, 0, 0, 1, 1].enumerated() {
                try await Self.post(server, id: "p\(index)", time: now - 3600 + Double(index) * 60,
                                    x: floor == 0 ? Double(index) * 10 : 150, y: 5, floor: floor)
            }
            try await HeadlessChromium.withPage { page in
                try await page.setViewport(width: 1200, height: 900)
                try await page.setTimeZone("UTC")
                try await page.navigate(to: "\(server.baseURL)/map?auth=\(MapTestServer.aliceToken)")
                try await page.waitUntil("window.whereaboutsMap && window.whereaboutsMap.connected")

                // 1. On load: the upper floor, where the latest positions are, with them drawn.
                var floors = try await page.evaluate(Self.floorState)
                #expect(floors["floor"] == .number(1) && floors["select"] == .string("1"), "\(floors)")
                #expect(floors["points"] == .number(2))
                #expect(floors["noteVisible"] == .bool(false))

                // 2. Live: a position back on the ground floor brings the ground floor up.
                try await Self.post(server, id: "live0", time: now - 600, x: 5, y: -5, floor: 0)
                try await page.waitUntil("window.whereaboutsMap.floor === 0 && window.whereaboutsMap.points === 4")
                floors = try await page.evaluate(Self.floorState)
                #expect(floors["select"] == .string("0") && floors["noteVisible"] == .bool(false), "\(floors)")

                // The two halls with the same centre are named apart, as every place on the floor.
                let labels = try await page.evaluate(Self.labelOverlaps)
                #expect(labels["labels"] == .string("hall7 hall7smaller hall8"))
                #expect(labels["overlapping"] == .string(""), "\(labels)")

                // 3. The user picks the upper floor by hand: the page keeps it when a newer
                // position arrives on the ground floor, and says where it is.
                _ = try await page.evaluate(
                    "(() => { const s = document.getElementById('floor'); s.value = '1'; "
                        + "s.dispatchEvent(new Event('change')); return true; })()")
                try await Self.post(server, id: "live1", time: now - 300, x: 10, y: -5, floor: 0)
                try await page.waitUntil("document.getElementById('floor-note-text').textContent.includes('ground') && "
                    + "window.whereaboutsMap.latestFloor === 0")
                floors = try await page.evaluate(Self.floorState)
                #expect(floors["floor"] == .number(1) && floors["select"] == .string("1") && floors["byHand"] == .bool(true), "\(floors)")
                #expect(floors["noteVisible"] == .bool(true))
                #expect(floors["note"] == .string("Newer positions are on ground."))
                #expect(floors["points"] == .number(2))

                // 4. The note's button goes to the newer positions' floor, and following resumes.
                _ = try await page.evaluate("(() => { document.getElementById('floor-follow').click(); return true; })()")
                try await page.waitUntil("window.whereaboutsMap.floor === 0")
                floors = try await page.evaluate(Self.floorState)
                #expect(floors["select"] == .string("0") && floors["byHand"] == .bool(false) && floors["noteVisible"] == .bool(false), "\(floors)")
                #expect(floors["points"] == .number(5))
                try await Self.post(server, id: "live2", time: now - 60, x: 150, y: 10, floor: 1)
                try await page.waitUntil("window.whereaboutsMap.floor === 1 && window.whereaboutsMap.points === 3")
                #expect(try await page.evaluate("document.getElementById('floor').value") == .string("1"))
            }
        }
    }
}
