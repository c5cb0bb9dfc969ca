import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdWSClient
import HummingbirdWebSocket
import Logging
import NIOHTTP1
import ServiceLifecycle
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// A server on loopback with the map page, the live feed and the venue, over an in-memory store.
struct MapTestServer {
    let port: Int
    let store: any EventStore
    let feed: LiveFeed

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var webSocketURL: String { "ws://127.0.0.1:\(port)" }

    /// The test users: Alice (full token, a notes-only token), Bob, and a token with no grant.
    static let aliceToken = "alicetokenalicetokenalicetoken00"
    static let aliceNotesToken = "alicenotesalicenotesalicenotes00"
    static let bobToken = "bobtokenbobtokenbobtokenbobtoken"
    static let emptyToken = "emptytokenemptytokenemptytoken00"

    /// Adds the users and their tokens to `store`.
    static func seedUsers(in store: any EventStore) async throws {
        for name in ["alice", "bob"] {
            try await store.addUser(User(name: name, created: 0), streams: EventStream.defaults(at: 0) + [
                EventStream(id: "notes", name: "Notes"),
            ])
        }
        let grants: [(token: String, user: String, permissions: [Permission])] = [
            (aliceToken, "alice", [Permission(streamId: Permission.allStreams, level: .manage)]),
            (aliceNotesToken, "alice", [Permission(streamId: "notes", level: .read)]),
            (bobToken, "bob", [Permission(streamId: Permission.allStreams, level: .manage)]),
            (emptyToken, "alice", []),
        ]
        for (index, grant) in grants.enumerated() {
            try await store.addAccess(Access(
                id: "access\(index)", userName: grant.user, name: "test", tokenHash: AccessToken.hash(grant.token),
                permissions: grant.permissions, created: 0))
        }
    }

    /// Builds the real server's application over `store` and `feed`.
    static func application(
        store: any EventStore, feed: LiveFeed, venue: Venue?, retention: ServerConfiguration.Retention = .init(),
        onServerRunning: @escaping @Sendable (Int) async -> Void
    ) throws -> some ApplicationProtocol {
        var logger = Logger(label: "whereabouts.tests.map")
        logger.logLevel = .error
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, rateLimit: nil, venue: venue)
        configuration.retention = retention
        return try makeServerApplication(
            configuration: configuration, store: store, liveFeed: feed, logger: logger, onServerRunning: onServerRunning)
    }

    /// Starts the server on a free loopback port, runs `body`, then shuts the server down.
    static func run<T: Sendable>(
        venue: Venue? = nil, retention: ServerConfiguration.Retention = .init(), _ body: (MapTestServer) async throws -> T
    ) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("whereabouts-map-\(AccessToken.generateIdentifier())").path
        let store = try SQLiteEventStore(directory: directory)
        try await store.migrate()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await seedUsers(in: store)
        let feed = LiveFeed()
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = try application(store: store, feed: feed, venue: venue, retention: retention) { port in
            portContinuation.yield(port)
            portContinuation.finish()
        }
        var logger = Logger(label: "whereabouts.tests.map.services")
        logger.logLevel = .error
        let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            do {
                var iterator = ports.makeAsyncIterator()
                guard let port = await iterator.next(), port > 0 else {
                    throw HeadlessChromium.Failure.didNotStart("the test server reported no port")
                }
                let result = try await body(MapTestServer(port: port, store: store, feed: feed))
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return result
            } catch {
                await services.triggerGracefulShutdown()
                try? await group.waitForAll()
                throw error
            }
        }
    }

    /// Stores a position for the token's user through `POST /events`, as a client would.
    func postPosition(
        token: String, id: String, time: Double, latitude: Double, longitude: Double, accuracy: Double = 3
    ) async throws {
        var request = HTTPClientRequest(url: "\(baseURL)/events")
        request.method = .POST
        request.headers.add(name: "Authorization", value: token)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: JSONWriter().string(from: .object([
            ("id", .string(id)), ("streamIds", .array([.string("position")])), ("time", .number(time)),
            ("type", .string("position/wgs84")),
            ("content", .object([("latitude", .number(latitude)), ("longitude", .number(longitude)),
                                 ("horizontalAccuracy", .number(accuracy))])),
        ]))))
        let response = try await HTTPClient.shared.execute(request, timeout: TestDeadline.answerTime)
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .created else {
            throw HeadlessChromium.Failure.protocolError(
                "POST /events answered \(response.status.code): \(String(buffer: body))")
        }
    }

    /// Stores any event for the token's user through `POST /events`.
    func postEvent(token: String, json: String) async throws {
        var request = HTTPClientRequest(url: "\(baseURL)/events")
        request.method = .POST
        request.headers.add(name: "Authorization", value: token)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
        let response = try await HTTPClient.shared.execute(request, timeout: TestDeadline.answerTime)
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .created else {
            throw HeadlessChromium.Failure.protocolError(
                "POST /events answered \(response.status.code): \(String(buffer: body))")
        }
    }

    /// A GET on the server: status, headers and body text.
    func get(_ path: String, token: String? = nil) async throws -> (status: Int, contentType: String, body: String) {
        let answer = try await getWithHeaders(path, token: token)
        return (answer.status, answer.headers.first(name: "Content-Type") ?? "", answer.body)
    }

    /// `GET path`, with the answer's headers.
    func getWithHeaders(_ path: String, token: String? = nil) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: baseURL + path)
        if let token { request.headers.add(name: "Authorization", value: token) }
        let response = try await HTTPClient.shared.execute(request, timeout: TestDeadline.answerTime)
        let body = try await response.body.collect(upTo: 1 << 22)
        return (Int(response.status.code), response.headers, String(buffer: body))
    }
}

/// The test venue: two floors, beacons given as x/y and as latitude/longitude, a polygon and a
/// circle, rotated 30° from north.
let mapTestVenueJSON = """
    {"name": "Test hall", "origin": {"latitude": 46.5191, "longitude": 6.5668, "bearing": 30},
     "floors": [{"level": 0, "name": "Ground"}, {"level": 1, "name": "First"}],
     "beacons": [
       {"id": "b1", "x": 0, "y": 0, "floor": 0},
       {"id": "b2", "x": 20, "y": 0, "floor": 0},
       {"id": "b3", "x": 0, "y": 15, "floor": 0},
       {"id": "b4", "latitude": 46.51925, "longitude": 6.56695, "floor": 1}],
     "places": [
       {"id": "lobby", "polygon": [[0, 0], [10, 0], [10, 8], [0, 8]], "floor": 0},
       {"id": "lab", "latitude": 46.51915, "longitude": 6.56690, "radius": 4, "floor": 1},
       {"id": "somewhere", "floor": 0}]}
    """

func mapTestVenue() throws -> Venue {
    try VenueFile.decode(Array(mapTestVenueJSON.utf8), file: "venue.json")
}

@Suite("Map page and live feed over HTTP", .serialized)
struct MapPageTests {
    /// Seconds since 1970, whole, for readable times.
    static func now() -> Double { Date().timeIntervalSince1970.rounded(.down) }

    /// "YYYY-MM-DD HH:MM:SS" in UTC, the way the page writes times in a UTC browser.
    static func utcText(_ time: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: time))
    }

    @Test("the page loads, shows the track and appends a position posted while it watches",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"),
          arguments: [false, true])
    func pageShowsLiveTrack(withVenue: Bool) async throws {
        let venue = withVenue ? try mapTestVenue() : nil
        try await MapTestServer.run(venue: venue) { server in
            let now = Self.now()
            // Three of Alice's positions in the last 24 h, one older (outside the default
            // range), one of Bob's (never hers to see).
            let token = MapTestServer.aliceToken
            for (index, hoursAgo) in [3.0, 2.0, 1.0, 30.0].enumerated() {
                try await server.postPosition(
                    token: token, id: "old\(index)", time: now - hoursAgo * 3600,
                    latitude: 46.5191 + Double(index) * 0.0001, longitude: 6.5668 + Double(index) * 0.0001)
            }
            try await server.postPosition(token: MapTestServer.bobToken, id: "bob1", time: now - 600,
                                          latitude: 46.6, longitude: 6.7)

            try await HeadlessChromium.withPage { page in
                try await page.setTimeZone("UTC")
                try await page.navigate(to: "\(server.baseURL)/map?auth=\(token)")
                try await page.waitUntil("window.whereaboutsMap && window.whereaboutsMap.connected")
                let svgPoints = "document.getElementById('map').getAttribute('data-points')"
                #expect(try await page.evaluate(svgPoints) == .string("3"))
                #expect(try await page.evaluate("window.whereaboutsMap.points") == .number(3))
                #expect(try await page.evaluate("window.whereaboutsMap.mode") == .string(withVenue ? "venue" : "plain"))
                // The token moved from the address bar to local storage.
                #expect(try await page.evaluate("location.search") == .string(""))
                #expect(try await page.evaluate("localStorage.getItem('whereabouts.token')") == .string(token))

                // A new position, one minute old, arrives over the live feed.
                let newTime = now - 60
                try await server.postPosition(token: token, id: "live1", time: newTime,
                                              latitude: 46.51935, longitude: 6.56705, accuracy: 4)
                try await page.waitUntil("\(svgPoints) === '4'")
                #expect(try await page.evaluate("window.whereaboutsMap.points") == .number(4))
                let newest = try await page.evaluate(
                    "document.querySelector('#map circle.newest').getAttribute('data-id') + ' | ' + "
                        + "document.querySelector('#map circle.newest title').textContent")
                // 46.51935 and 6.56705 are written with six decimals.
                #expect(newest == .string("live1 | \(Self.utcText(newTime)) (±4 m) — 46.519350, 6.567050"))
                #expect(try await page.evaluate("document.querySelectorAll('#map circle.point').length") == .number(4))
                #expect(try await page.evaluate("document.querySelectorAll('#map circle.newest').length") == .number(1))
                #expect(try await page.evaluate("document.querySelectorAll('#map polyline.track-line').length") == .number(1))

                // A position a kilometre north, far outside the view (the plan, or the bulk of
                // the track): the map is redrawn, not rescaled; the position, the newest, is an
                // arrow at the map's edge, with a note.
                let viewBox = try await page.evaluate("document.getElementById('map').getAttribute('viewBox')")
                let farTime = now - 30
                try await server.postPosition(token: token, id: "live2", time: farTime,
                                              latitude: 46.5281, longitude: 6.5668, accuracy: 10)
                try await page.waitUntil("\(svgPoints) === '5'")
                if withVenue {   // (the plain canvas is drawn around the track's median, which moved)
                    #expect(try await page.evaluate("document.getElementById('map').getAttribute('viewBox')") == viewBox)
                }
                #expect(try await page.evaluate("window.whereaboutsMap.outside") == .number(1))
                #expect(try await page.evaluate("document.querySelectorAll('#map .newest').length") == .number(1))
                #expect(try await page.evaluate("document.querySelector('#map .edge-marker.newest').getAttribute('data-id')")
                    == .string("live2"))
                #expect(try await page.evaluate("document.querySelectorAll('#map circle.point').length") == .number(4))
                #expect(try await page.evaluate("document.getElementById('outside-note').hidden") == .bool(false))
                let caption = try await page.evaluate("document.getElementById('map-caption').textContent")
                #expect(caption == .string("5 positions from \(Self.utcText(now - 3 * 3600)) to \(Self.utcText(farTime))"
                    + (withVenue ? " on Test hall" : "") + "; the newest is highlighted."))

                if withVenue {
                    // Ground floor: b1, b2, b3 and the lobby polygon; the label-only place is not drawn.
                    #expect(try await page.evaluate("document.querySelectorAll('#map rect.beacon').length") == .number(3))
                    #expect(try await page.evaluate("document.querySelectorAll('#map .place').length") == .number(1))
                    #expect(try await page.evaluate("document.getElementById('floor-field').hidden") == .bool(false))
                    // First floor: b4 and the lab circle, and still the whole track.
                    _ = try await page.evaluate(
                        "(() => { const s = document.getElementById('floor'); s.value = '1'; "
                            + "s.dispatchEvent(new Event('change')); return true; })()")
                    #expect(try await page.evaluate("document.querySelectorAll('#map rect.beacon').length") == .number(1))
                    #expect(try await page.evaluate("document.querySelectorAll('#map circle.place').length") == .number(1))
                    #expect(try await page.evaluate(svgPoints) == .string("5"))
                }

                // A token the server does not know: the page says so.
                try await page.navigate(to: "\(server.baseURL)/map?auth=not-a-token")
                try await page.waitUntil("window.whereaboutsMap && window.whereaboutsMap.error")
                let error = try await page.evaluate("document.getElementById('error').textContent")
                guard case .string(let text) = error else { Issue.record("no error text"); return }
                #expect(text.hasPrefix("The server refused the token"))
                #expect(try await page.evaluate("document.getElementById('error').hidden") == .bool(false))
                #expect(try await page.evaluate(svgPoints) == .string("0"))

                // A token with no grant at all: the page shows the server's refusal, whether it
                // comes from /events or (refused WebSocket, then the reason from plain GET /live)
                // from the live feed.
                try await page.navigate(to: "\(server.baseURL)/map?auth=\(MapTestServer.emptyToken)")
                try await page.waitUntil("window.whereaboutsMap && window.whereaboutsMap.error")
                guard case .string(let refusal) = try await page.evaluate("window.whereaboutsMap.error") else {
                    Issue.record("no error for a token with no grant")
                    return
                }
                #expect(refusal.hasPrefix("Live updates refused: The token may read none of alice's streams")
                    || refusal.hasPrefix("This token may not read positions"), "\(refusal)")
                #expect(try await page.evaluate("window.whereaboutsMap.connected") == .bool(false))
            }
        }
    }

    @Test("with nothing in the last 24 hours, the page starts a day before the newest position (a replayed recording), still live",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"))
    func pageJumpsToNewestPositions() async throws {
        try await MapTestServer.run { server in
            let token = MapTestServer.aliceToken
            // Three positions of November 2023 and one a week earlier, outside the day shown.
            for (index, time) in [1_700_000_000.0, 1_700_000_060, 1_700_000_120, 1_699_300_000].enumerated() {
                try await server.postPosition(token: token, id: "replayed\(index)", time: time,
                                              latitude: 46.5191 + Double(index) * 0.0001, longitude: 6.5668)
            }
            try await HeadlessChromium.withPage { page in
                try await page.setTimeZone("UTC")
                try await page.navigate(to: "\(server.baseURL)/map?auth=\(token)")
                try await page.waitUntil("window.whereaboutsMap && window.whereaboutsMap.connected")
                #expect(try await page.evaluate("window.whereaboutsMap.points") == .number(3))
                #expect(try await page.evaluate("document.getElementById('from').value") == .string("2023-11-13T22:15:20"))
                #expect(try await page.evaluate("document.getElementById('to').value") == .string(""))
                #expect(try await page.evaluate("document.getElementById('note').textContent")
                    == .string("No positions in the last 24 hours: showing from the day before the newest one."))
                // Still live: a position of the same day, delivered now, appears.
                try await server.postPosition(token: token, id: "replayed4", time: 1_700_000_180, latitude: 46.5196, longitude: 6.5668)
                try await page.waitUntil("window.whereaboutsMap.points === 4")
            }
        }
    }

    @Test("on a venue without an origin, a tracker's position/local events are drawn on the plan, in its units",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"))
    func pageDrawsLocalPositions() async throws {
        let json = """
            {"name": "Room", "floors": [{"level": 0}],
             "beacons": [{"id": "b1", "x": 0, "y": 0, "floor": 0}, {"id": "b2", "x": 6, "y": 4, "floor": 0}],
             "places": [{"id": "desk", "x": 2, "y": 2, "radius": 1, "floor": 0}]}
            """
        let venue = try VenueFile.decode(Array(json.utf8), file: "room.json")
        try await MapTestServer.run(venue: venue) { server in
            let token = MapTestServer.aliceToken
            let now = Self.now()
            for (index, x) in [1.0, 2.5, 4.0].enumerated() {
                try await server.postEvent(token: token, json: """
                    {"id": "local\(index)", "streamIds": ["position"], "time": \(now - 600 + Double(index) * 60), "type": "position/local",
                     "content": {"x": \(x), "y": 2, "accuracy": 0.5, "floor": 0}}
                    """)
            }
            // Latitude/longitude cannot go on a plan without an origin.
            try await server.postPosition(token: token, id: "geo", time: now - 30, latitude: 46.5, longitude: 6.6)
            try await HeadlessChromium.withPage { page in
                try await page.setTimeZone("UTC")
                try await page.navigate(to: "\(server.baseURL)/map?auth=\(token)")
                try await page.waitUntil("window.whereaboutsMap && window.whereaboutsMap.connected")
                #expect(try await page.evaluate("window.whereaboutsMap.mode") == .string("venue"))
                #expect(try await page.evaluate("window.whereaboutsMap.points") == .number(3))
                #expect(try await page.evaluate("document.querySelector('#map circle.newest').getAttribute('cx')") == .string("4"))
                #expect(try await page.evaluate("document.querySelector('#map circle.newest title').textContent")
                    == .string("\(Self.utcText(now - 480)) (±0.5 m) — x 4.00, y 2.00"))
                #expect(try await page.evaluate("document.querySelector('#map circle.accuracy').getAttribute('r')") == .string("0.5"))
                // A new one arrives live.
                try await server.postEvent(token: token, json: """
                    {"id": "local9", "streamIds": ["position"], "time": \(now - 10), "type": "position/local",
                     "content": {"x": 5, "y": 3, "accuracy": 1}}
                    """)
                try await page.waitUntil("window.whereaboutsMap.points === 4")
            }
        }
    }

    @Test("the page converts WGS84 to the venue's frame as LocalFrame does",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"))
    func pageLocalFrameMatchesSwift() async throws {
        try await MapTestServer.run { server in
            try await HeadlessChromium.withPage { page in
                try await page.navigate(to: "\(server.baseURL)/map")
                try await page.waitUntil("window.whereaboutsMap && window.whereaboutsMap.LocalFrame")
                let cases: [(origin: GeoCoordinate, bearing: Double, metresPerUnit: Double, point: GeoCoordinate)] = [
                    (GeoCoordinate(latitude: 41.3535, longitude: 2.1291), 0, 1, GeoCoordinate(latitude: 41.3544, longitude: 2.1299)),
                    (GeoCoordinate(latitude: 46.5191, longitude: 6.5668), 30, 1, GeoCoordinate(latitude: 46.5201, longitude: 6.5650)),
                    (GeoCoordinate(latitude: -33.8688, longitude: 151.2093), 275.5, 0.3048, GeoCoordinate(latitude: -33.8690, longitude: 151.2101)),
                    (GeoCoordinate(latitude: 64.1466, longitude: -21.9426), -45, 1, GeoCoordinate(latitude: 64.1500, longitude: -21.9300)),
                ]
                for item in cases {
                    let expected = LocalFrame(origin: item.origin, bearing: item.bearing, metresPerUnit: item.metresPerUnit)
                        .planarPoint(for: item.point)
                    let value = try await page.evaluate("""
                        (() => { const p = new window.whereaboutsMap.LocalFrame(\
                        {latitude: \(item.origin.latitude), longitude: \(item.origin.longitude)}, \(item.bearing), \(item.metresPerUnit))\
                        .planarPoint(\(item.point.latitude), \(item.point.longitude)); return [p.x, p.y]; })()
                        """)
                    guard case .array(let xy) = value, xy.count == 2, case .number(let x) = xy[0], case .number(let y) = xy[1] else {
                        Issue.record("unexpected result \(value)")
                        continue
                    }
                    // Same formulas in the same order: agreement to well under a micrometre.
                    #expect(abs(x - expected.x) < 1e-6, "x for \(item)")
                    #expect(abs(y - expected.y) < 1e-6, "y for \(item)")
                }
            }
        }
    }

    @Test("the map page and its assets are served with their types and a strict policy")
    func servesPage() async throws {
        try await MapTestServer.run { server in
            let page = try await server.get("/map")
            #expect(page.status == 200)
            #expect(page.contentType == "text/html; charset=utf-8")
            #expect(page.body.contains(#"<svg id="map""#))
            #expect(page.body.contains(#"<script src="/map/map.js" defer></script>"#))
            #expect(!page.body.contains("http://") || page.body.contains("http://www.w3.org/2000/svg"))
            let script = try await server.get("/map/map.js")
            #expect(script.status == 200)
            #expect(script.contentType == "text/javascript; charset=utf-8")
            #expect(script.body == MapPage.script)
            let style = try await server.get("/map/map.css")
            #expect(style.contentType == "text/css; charset=utf-8")
            #expect(style.body == MapPage.stylesheet)
            // The strict policy, on the page and on each asset: only this server's own scripts,
            // styles and connections; no sniffing; the token in the address never sent on.
            for path in ["/map", "/map/map.js", "/map/map.css"] {
                let headers = try await server.getWithHeaders(path).headers
                let policy = headers.first(name: "Content-Security-Policy") ?? ""
                #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'")
                        && policy.contains("connect-src 'self'") && policy.contains("frame-ancestors 'none'"), "\(path): \(policy)")
                #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"), "\(path)")
                #expect(headers.first(name: "X-Content-Type-Options") == "nosniff", "\(path)")
                #expect(headers.first(name: "Referrer-Policy") == "no-referrer", "\(path)")
            }
        }
    }

    @Test("the page's files load nothing from other hosts")
    func noExternalResources() {
        for text in [MapPage.html, MapPage.stylesheet, MapPage.script] {
            // The only absolute URL is the SVG namespace, which is an identifier, not a fetch.
            let urls = text.ranges(of: "://").count
            let namespaces = text.ranges(of: "http://www.w3.org/2000/svg").count
            #expect(urls == namespaces)
            #expect(!text.contains("//cdn"))
            #expect(!text.contains("@import"))
        }
    }

    @Test("GET /venue returns the venue, or 404 in Pryv's error shape without one")
    func venueRoute() async throws {
        let venue = try mapTestVenue()
        try await MapTestServer.run(venue: venue) { server in
            let response = try await server.get("/venue")
            #expect(response.status == 200)
            let json = try JSONParser.parse(response.body)
            let served = try #require(json["venue"])
            #expect(try VenueFile.decode(served) == venue)
            #expect(json["meta"]?["apiVersion"] == .string(APIResponse.apiVersion))
        }
        try await MapTestServer.run(venue: nil) { server in
            let response = try await server.get("/venue")
            #expect(response.status == 404)
            let json = try JSONParser.parse(response.body)
            #expect(json["error"]?["id"] == .string("unknown-resource"))
            #expect(json["meta"] != nil)
        }
    }

    /// What a WebSocket client saw: the text messages, in order.
    actor Received {
        var messages: [String] = []
        func append(_ message: String) { messages.append(message) }
    }

    /// Opens `/live` with `token`, waits for `ready`, runs `publish`, and collects `count`
    /// messages after `ready`.
    static func watch(
        _ server: MapTestServer, token: String, count: Int, publish: @escaping @Sendable () async -> Void
    ) async throws -> [String] {
        let received = Received()
        var logger = Logger(label: "whereabouts.tests.live")
        logger.logLevel = .error
        try await WebSocketClient.connect(url: "\(server.webSocketURL)/live?auth=\(token)", logger: logger) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            guard case .text(let first)? = try await messages.next() else { return }
            await received.append(first)
            await publish()
            for _ in 0..<count {
                guard case .text(let text)? = try await messages.next() else { break }
                await received.append(text)
            }
            try await outbound.close(.normalClosure, reason: nil)
        }
        return await received.messages
    }

    static func eventId(in message: String) throws -> String? {
        guard case .string(let id)? = try JSONParser.parse(message)["event"]?["id"] else { return nil }
        return id
    }

    @Test("/live sends a user's own events only")
    func liveSendsOwnEventsOnly() async throws {
        try await MapTestServer.run { server in
            let feed = server.feed
            let messages = try await Self.watch(server, token: MapTestServer.aliceToken, count: 2) {
                // Bob's event is published first: were it sent to Alice, it would come first.
                await feed.publish([LiveFeedTests.position("bob1", time: 10)], for: "bob")
                await feed.publish([LiveFeedTests.position("alice1", time: 11),
                                    LiveFeedTests.position("alice2", time: 12)], for: "alice")
            }
            #expect(messages.first == #"{"ready":true}"#)
            #expect(try messages.dropFirst().map(Self.eventId) == ["alice1", "alice2"])
            let event = LiveFeedTests.position("alice1", time: 11)
            #expect(messages.count == 3)
            #expect(messages.dropFirst().first == LiveRoutes.message(for: event))
        }
    }

    @Test("/live sends only the streams the token may read")
    func liveRespectsPermissions() async throws {
        try await MapTestServer.run { server in
            let feed = server.feed
            let messages = try await Self.watch(server, token: MapTestServer.aliceNotesToken, count: 1) {
                await feed.publish([LiveFeedTests.position("pos", time: 10),
                                    LiveFeedTests.position("note", time: 11, streams: ["notes"])], for: "alice")
            }
            #expect(try messages.dropFirst().map(Self.eventId) == ["note"])
        }
    }

    @Test("/live refuses unknown tokens, tokens that read nothing, and plain HTTP")
    func liveRefusals() async throws {
        try await MapTestServer.run { server in
            var logger = Logger(label: "whereabouts.tests.live")
            logger.logLevel = .critical
            for token in ["not-a-token", MapTestServer.emptyToken] {
                await #expect(throws: WebSocketClientError.webSocketUpgradeFailed) {
                    try await WebSocketClient.connect(url: "\(server.webSocketURL)/live?auth=\(token)", logger: logger) { _, _, _ in }
                }
            }
            #expect(await server.feed.subscriberCount(for: "alice") == 0)

            let cases: [(path: String, token: String?, status: Int, id: String)] = [
                ("/live", nil, 401, "invalid-access-token"),
                ("/live?auth=not-a-token", nil, 401, "invalid-access-token"),
                ("/live?auth=\(MapTestServer.emptyToken)", nil, 403, "forbidden"),
                ("/live?auth=\(MapTestServer.aliceToken)", nil, 426, "upgrade-required"),
                ("/live", MapTestServer.aliceToken, 426, "upgrade-required"),
            ]
            for item in cases {
                let response = try await server.get(item.path, token: item.token)
                #expect(response.status == item.status, "\(item.path)")
                #expect(try JSONParser.parse(response.body)["error"]?["id"] == .string(item.id), "\(item.path)")
            }
        }
    }
}
