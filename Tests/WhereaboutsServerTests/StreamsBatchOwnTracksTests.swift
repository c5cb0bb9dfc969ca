import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Streams, batch calls and OwnTracks' `/pub` against a real server, on every store backend.
@Suite("Streams, batch and OwnTracks API")
struct StreamsBatchOwnTracksTests {
    @Test("Streams form a tree per user, with position by default", arguments: StoreKind.tested)
    func streamTree(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("jo")
            let initial = try await server.request(.GET, "/streams", token: token)
            #expect(initial.json["streams"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["position"])

            let created = try await server.request(.POST, "/streams", token: token,
                                                   json: object(("name", .string("Ground Floor")), ("parentId", .string("position"))))
            #expect(created.status == 201)
            #expect(created.json["stream"]?["id"]?.stringValue == "ground-floor")
            let duplicate = try await server.request(.POST, "/streams", token: token,
                                                     json: object(("name", .string("Ground Floor")), ("parentId", .string("position"))))
            #expect(duplicate.status == 409)
            #expect(duplicate.errorId == "item-already-exists")
            let orphan = try await server.request(.POST, "/streams", token: token,
                                                  json: object(("name", .string("X")), ("parentId", .string("nope"))))
            #expect(orphan.errorId == "unknown-referenced-resource")

            let tree = try await server.request(.GET, "/streams", token: token)
            let position = tree.json["streams"]?.arrayValue?.first
            #expect(position?["children"]?.arrayValue?.first?["id"]?.stringValue == "ground-floor")

            let renamed = try await server.request(.PUT, "/streams/ground-floor", token: token,
                                                   json: object(("name", .string("Level 0"))))
            #expect(renamed.status == 200)
            #expect(renamed.json["stream"]?["name"]?.stringValue == "Level 0")
            let cycle = try await server.request(.PUT, "/streams/position", token: token,
                                                 json: object(("parentId", .string("ground-floor"))))
            #expect(cycle.status == 400)
            let missing = try await server.request(.PUT, "/streams/none", token: token, json: object(("name", .string("N"))))
            #expect(missing.status == 404)
        }
    }

    @Test("A batch answers every call in order, errors in place", arguments: StoreKind.tested)
    func batch(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("kim")
            let calls: JSONValue = .array([
                object(("method", .string("events.create")),
                       ("params", positionEvent(id: "one", time: 10, latitude: 1, longitude: 1))),
                object(("method", .string("events.create")),
                       ("params", positionEvent(time: 20, latitude: 95, longitude: 1))),
                object(("method", .string("streams.create")),
                       ("params", object(("id", .string("trips")), ("name", .string("Trips"))))),
                object(("method", .string("events.create")),
                       ("params", positionEvent(id: "two", stream: "trips", time: 30, latitude: 2, longitude: 2))),
                object(("method", .string("events.update")),
                       ("params", object(("id", .string("one")), ("update", object(("duration", .number(5))))))),
                object(("method", .string("events.get")),
                       ("params", object(("fromTime", .number(0)), ("toTime", .number(100)), ("sortAscending", .bool(true))))),
                object(("method", .string("no.such"))),
            ])
            let answer = try await server.request(.POST, "/", token: token, json: calls)
            #expect(answer.status == 200)
            let results = try #require(answer.json["results"]?.arrayValue)
            #expect(results.count == 7)
            #expect(results[0]["event"]?["id"]?.stringValue == "one")
            #expect(results[1]["error"]?["id"]?.stringValue == "invalid-parameters-format")
            #expect(results[2]["stream"]?["id"]?.stringValue == "trips")
            #expect(results[3]["event"]?["id"]?.stringValue == "two")
            #expect(results[4]["event"]?["duration"]?.numberValue == 5)
            #expect(results[5]["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["one", "two"])
            #expect(results[6]["error"]?["id"]?.stringValue == "invalid-request-structure")
            let notArray = try await server.request(.POST, "/", token: token, json: object(("method", .string("events.get"))))
            #expect(notArray.status == 400)
        }
    }

    @Test("OwnTracks locations become position events, once per message", arguments: StoreKind.tested)
    func ownTracks(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (name, token) = try await server.addUser("lee")
            let message = #"{"_type":"location","lat":46.5191,"lon":6.6323,"tst":1700000000,"acc":8,"alt":372,"vel":18,"cog":90,"batt":77,"tid":"ph"}"#
            let basic = "Basic " + Data("\(name):\(token)".utf8).base64EncodedString()
            let headers = [("Authorization", basic), ("Content-Type", "application/json"),
                           ("X-Limit-U", name), ("X-Limit-D", "phone")]
            let first = try await server.request(.POST, "/pub", text: message, headers: headers)
            #expect(first.status == 200)
            #expect(first.text == "[]")
            let again = try await server.request(.POST, "/pub", text: message, headers: headers)
            #expect(again.status == 200)

            let listed = try await server.request(.GET, "/events?fromTime=1699999999&toTime=1700000001", token: token)
            let events = try #require(listed.json["events"]?.arrayValue)
            #expect(events.count == 1)
            let content = events.first?["content"]
            #expect(events.first?["type"]?.stringValue == "position/wgs84")
            #expect(content?["latitude"]?.numberValue == 46.5191)
            #expect(content?["horizontalAccuracy"]?.numberValue == 8)
            #expect(content?["altitude"]?.numberValue == 372)
            #expect(content?["speed"]?.numberValue == 5)  // 18 km/h = 18 / 3.6 = 5 m/s
            #expect(content?["bearing"]?.numberValue == 90)
            #expect(events.first?["clientData"]?["owntracks"]?["device"]?.stringValue == "phone")
            #expect(events.first?["clientData"]?["owntracks"]?["batt"]?.numberValue == 77)

            let otherUser = try await server.request(.POST, "/pub?u=someone-else&d=phone", text: message,
                                                     headers: [("Authorization", basic)])
            #expect(otherUser.status == 403)
            let transition = try await server.request(.POST, "/pub", text: #"{"_type":"transition","event":"enter"}"#,
                                                      headers: headers)
            #expect(transition.status == 200)
            let noLatitude = try await server.request(.POST, "/pub", text: #"{"_type":"location","lon":1,"tst":5}"#,
                                                      headers: headers)
            #expect(noLatitude.status == 400)
            let after = try await server.request(.GET, "/events?fromTime=0&toTime=1800000000&limit=100", token: token)
            #expect(after.json["events"]?.arrayValue?.count == 1)
        }
    }
}
