import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// The map page with fixed receivers' tags: each tag (a position in a stream `tag-…`, as the
/// server stores them) is drawn apart from the user's own track, named, at its latest position,
/// and moves there live.
@Suite("Map page tags in a browser", .serialized)
struct MapPageTagsTests {
    static let venueJSON = """
        {"name": "Room", "beacons": [{"id": "b1", "x": 0, "y": 0}],
         "places": [{"id": "room", "polygon": [[0, 0], [10, 0], [10, 10], [0, 10]]}]}
        """

    /// Sends `json` to `path` with Alice's token; fails unless the server answers 201.
    static func post(_ server: MapTestServer, _ path: String, _ json: String) async throws {
        var request = HTTPClientRequest(url: server.baseURL + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: MapTestServer.aliceToken)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
        let response = try await HTTPClient.shared.execute(request, timeout: TestDeadline.answerTime)
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .created else {
            throw HeadlessChromium.Failure.protocolError("POST \(path) answered \(response.status.code): \(String(buffer: body))")
        }
    }

    static func position(_ id: String, stream: String, time: Double, x: Double, y: Double, device: String? = nil) -> String {
        let clientData = device.map { #", "clientData": {"whereabouts": {"device": "\#($0)"}}"# } ?? ""
        return #"{"id": "\#(id)", "streamIds": ["\#(stream)"], "time": \#(time), "type": "position/local", "content": {"x": \#(x), "y": \#(y), "accuracy": 1}\#(clientData)}"#
    }

    @Test("tags are drawn apart from the track, named, at their latest position, and follow it live",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"))
    func tagsAreDrawnApart() async throws {
        let venue = try VenueFile.decode(Array(Self.venueJSON.utf8), file: "room.json")
        try await MapTestServer.run(venue: venue) { server in
            let now = MapPageTests.now()
            for stream in [#"{"id": "tags", "name": "Tags"}"#, #"{"id": "tag-anna", "name": "anna", "parentId": "tags"}"#,
                           #"{"id": "tag-bob", "name": "bob", "parentId": "tags"}"#] {
                try await Self.post(server, "/streams", stream)
            }
            try await Self.post(server, "/events", Self.position("own1", stream: "position", time: now - 300, x: 1, y: 1))
            try await Self.post(server, "/events", Self.position("own2", stream: "position", time: now - 240, x: 2, y: 2))
            try await Self.post(server, "/events", Self.position("anna1", stream: "tag-anna", time: now - 200, x: 5, y: 5, device: "anna"))
            try await Self.post(server, "/events", Self.position("anna2", stream: "tag-anna", time: now - 100, x: 6, y: 6, device: "anna"))
            try await Self.post(server, "/events", Self.position("bob1", stream: "tag-bob", time: now - 150, x: 8, y: 2))
            try await HeadlessChromium.withPage { page in
                try await page.setViewport(width: 1200, height: 900)
                try await page.navigate(to: "\(server.baseURL)/map?auth=\(MapTestServer.aliceToken)")
                try await page.waitUntil("window.whereaboutsMap && window.whereaboutsMap.connected")
                let marker = "document.querySelector('#map .tag[data-tag=\"anna\"]')"
                #expect(try await page.evaluate("window.whereaboutsMap.points") == .number(2))
                #expect(try await page.evaluate("window.whereaboutsMap.tags.join(',')") == .string("anna,bob"))
                #expect(try await page.evaluate("\(marker).getAttribute('cx') + ',' + \(marker).getAttribute('cy')") == .string("6,-6"))
                #expect(try await page.evaluate("[...document.querySelectorAll('#map .tag-label')].map(l => l.textContent).join(',')")
                        == .string("anna,bob"))

                // Live: anna moves; the marker follows, the track is unchanged.
                try await Self.post(server, "/events", Self.position("anna3", stream: "tag-anna", time: now - 10, x: 7, y: 3, device: "anna"))
                try await page.waitUntil("\(marker) && \(marker).getAttribute('cx') === '7'")
                #expect(try await page.evaluate("\(marker).getAttribute('cy')") == .string("-3"))
                #expect(try await page.evaluate("window.whereaboutsMap.points") == .number(2))
                #expect(try await page.evaluate("document.querySelectorAll('#map .tag').length") == .number(2))
            }
        }
    }
}
