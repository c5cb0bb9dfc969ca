import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// The events routes against a real server on loopback, on every store backend.
@Suite("Events API")
struct EventsAPITests {
    @Test("POST /events stores a position and GET /events returns it, with meta", arguments: StoreKind.tested)
    func createAndRead(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("alice")
            let created = try await server.request(
                .POST, "/events", token: token,
                json: positionEvent(time: 1_700_000_000, latitude: 46.52, longitude: 6.63, accuracy: 12))
            #expect(created.status == 201)
            let event = try #require(created.json["event"])
            #expect(event["type"]?.stringValue == "position/wgs84")
            #expect(event["content"]?["latitude"]?.numberValue == 46.52)
            #expect(event["content"]?["horizontalAccuracy"]?.numberValue == 12)
            #expect(event["streamIds"] == .array([.string("position")]))
            #expect(created.json["meta"]?["apiVersion"]?.stringValue == APIResponse.apiVersion)
            #expect(created.json["meta"]?["serverTime"]?.numberValue != nil)
            #expect(created.json["meta"]?["serial"]?.stringValue != nil)

            let listed = try await server.request(
                .GET, "/events?fromTime=1699999000&toTime=1700001000", token: token)
            #expect(listed.status == 200)
            #expect(listed.json["events"]?.arrayValue?.count == 1)
            #expect(listed.json["events"]?.arrayValue?.first?["id"] == event["id"])
            #expect(listed.json["meta"] != nil)
        }
    }

    @Test("A client-supplied id makes create idempotent", arguments: StoreKind.tested)
    func idempotentCreate(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("bob")
            let body = positionEvent(id: "fix-1", time: 1_700_000_000, latitude: 1, longitude: 2)
            let first = try await server.request(.POST, "/events", token: token, json: body)
            let again = try await server.request(
                .POST, "/events", token: token,
                json: positionEvent(id: "fix-1", time: 1_700_000_500, latitude: 3, longitude: 4))
            #expect(first.status == 201)
            #expect(again.status == 200)
            // The stored event comes back, not the second body.
            #expect(again.json["event"]?["content"]?["latitude"]?.numberValue == 1)
            let listed = try await server.request(.GET, "/events", token: token)
            #expect(listed.json["events"]?.arrayValue?.count == 1)
        }
    }

    @Test("Bad input gets 4xx with Pryv's error shape", arguments: StoreKind.tested)
    func badInput(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("carol")
            let malformed = try await server.request(.POST, "/events", token: token, text: "{\"type\": ",
                                                     headers: [("Content-Type", "application/json")])
            #expect(malformed.status == 400)
            #expect(malformed.errorId == "invalid-request-structure")
            #expect(malformed.json["error"]?["message"]?.stringValue?.contains("not valid JSON") == true)
            #expect(malformed.json["meta"] != nil)

            let outOfRange = try await server.request(
                .POST, "/events", token: token, json: positionEvent(time: 1, latitude: 91, longitude: 0))
            #expect(outOfRange.status == 400)
            #expect(outOfRange.errorId == "invalid-parameters-format")
            #expect(outOfRange.json["error"]?["message"]?.stringValue?.contains("latitude") == true)

            let missingLongitude = try await server.request(.POST, "/events", token: token, json: object(
                ("streamIds", .array([.string("position")])), ("type", .string("position/wgs84")),
                ("content", object(("latitude", .number(1))))))
            #expect(missingLongitude.status == 400)
            #expect(missingLongitude.json["error"]?["message"]?.stringValue?.contains("longitude") == true)

            let wrongType = try await server.request(.POST, "/events", token: token, json: object(
                ("streamIds", .array([.string("position")])), ("type", .string("note/txt")), ("content", .number(3))))
            #expect(wrongType.status == 400)

            let noType = try await server.request(.POST, "/events", token: token, json: object(
                ("streamIds", .array([.string("position")]))))
            #expect(noType.status == 400)
            #expect(noType.json["error"]?["message"]?.stringValue?.contains("type") == true)

            let unknownStream = try await server.request(
                .POST, "/events", token: token, json: positionEvent(stream: "nowhere", time: 1, latitude: 0, longitude: 0))
            #expect(unknownStream.status == 400)
            #expect(unknownStream.errorId == "unknown-referenced-resource")

            let unknownField = try await server.request(.POST, "/events", token: token, json: object(
                ("streamIds", .array([.string("position")])), ("type", .string("note/txt")),
                ("content", .string("hi")), ("colour", .string("red"))))
            #expect(unknownField.status == 400)

            let badQuery = try await server.request(.GET, "/events?limit=many", token: token)
            #expect(badQuery.status == 400)

            let unknownRoute = try await server.request(.GET, "/nothing-here", token: token)
            #expect(unknownRoute.status == 404)
            #expect(unknownRoute.errorId == "unknown-resource")

            let opaque = try await server.request(.POST, "/events", token: token, json: object(
                ("streamIds", .array([.string("position")])), ("type", .string("mass/kg")), ("content", .number(72.5))))
            #expect(opaque.status == 201)
        }
    }

    @Test("Bodies over the limit are refused with 413", arguments: StoreKind.tested)
    func oversizedBody(kind: StoreKind) async throws {
        var configuration = ServerConfiguration()
        configuration.bodyLimits = .init(json: 1_000, attachments: 2_000)
        try await TestServer.run(kind, configuration: configuration) { server in
            let (_, token) = try await server.addUser("dave")
            let note = object(("streamIds", .array([.string("position")])), ("type", .string("note/txt")),
                              ("content", .string(String(repeating: "x", count: 2_000))))
            let answer = try await server.request(.POST, "/events", token: token, json: note)
            #expect(answer.status == 413)
            #expect(answer.errorId == "request-too-large")

            // Multipart bodies have their own, larger limit: 1,500 bytes pass (over the JSON
            // limit), 3,000 do not.
            func multipart(id: String, fileBytes: Int) -> [UInt8] {
                let boundary = "limit-boundary"
                var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"event\"\r\n\r\n".utf8)
                body += Array(#"{"id":"\#(id)","streamIds":["position"],"type":"picture/attached","time":50}"#.utf8)
                body += Array("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.bin\"\r\n\r\n".utf8)
                body += [UInt8](repeating: 0x41, count: fileBytes)
                body += Array("\r\n--\(boundary)--\r\n".utf8)
                return body
            }
            let headers = [("Content-Type", "multipart/form-data; boundary=limit-boundary")]
            let fits = multipart(id: "fits", fileBytes: 1_200)
            #expect(fits.count > 1_000 && fits.count < 2_000)
            #expect(try await server.request(.POST, "/events", token: token, body: fits, headers: headers).status == 201)
            let tooLarge = multipart(id: "large", fileBytes: 3_000)
            let refused = try await server.request(.POST, "/events", token: token, body: tooLarge, headers: headers)
            #expect(refused.status == 413)
            #expect(refused.errorId == "request-too-large")
        }
    }

    @Test("PUT updates part of an event; running events are found with running=true", arguments: StoreKind.tested)
    func partialUpdate(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("erin")
            let created = try await server.request(
                .POST, "/events", token: token, json: positionEvent(id: "stay", time: 1_000, latitude: 1, longitude: 1))
            #expect(created.status == 201)
            let running = try await server.request(.PUT, "/events/stay", token: token, json: object(("duration", .null)))
            #expect(running.status == 200)
            #expect(running.json["event"]?["duration"] == .null)
            let found = try await server.request(.GET, "/events?fromTime=0&toTime=2000&running=true", token: token)
            #expect(found.json["events"]?.arrayValue?.map { $0["id"] } == [.string("stay")])

            let ended = try await server.request(.PUT, "/events/stay", token: token, json: object(("duration", .number(600))))
            #expect(ended.json["event"]?["duration"]?.numberValue == 600)
            #expect(ended.json["event"]?["content"]?["latitude"]?.numberValue == 1)
            let notRunning = try await server.request(.GET, "/events?fromTime=0&toTime=2000&running=true", token: token)
            #expect(notRunning.json["events"]?.arrayValue?.isEmpty == true)

            let badUpdate = try await server.request(.PUT, "/events/stay", token: token,
                                                     json: object(("content", object(("latitude", .number(100)), ("longitude", .number(0))))))
            #expect(badUpdate.status == 400)
            let missing = try await server.request(.PUT, "/events/nope", token: token, json: object(("duration", .number(1))))
            #expect(missing.status == 404)
        }
    }

    @Test("DELETE trashes, then deletes", arguments: StoreKind.tested)
    func trashThenDelete(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("fay")
            _ = try await server.request(.POST, "/events", token: token,
                                         json: positionEvent(id: "gone", time: 1_000, latitude: 1, longitude: 1))
            let trashed = try await server.request(.DELETE, "/events/gone", token: token)
            #expect(trashed.status == 200)
            #expect(trashed.json["event"]?["trashed"] == .bool(true))
            let visible = try await server.request(.GET, "/events?fromTime=0&toTime=2000", token: token)
            #expect(visible.json["events"]?.arrayValue?.isEmpty == true)
            let inTrash = try await server.request(.GET, "/events?fromTime=0&toTime=2000&state=trashed", token: token)
            #expect(inTrash.json["events"]?.arrayValue?.count == 1)

            // A second DELETE, right after the trashing, deletes it (as Pryv does).
            let deleted = try await server.request(.DELETE, "/events/gone", token: token)
            #expect(deleted.status == 200)
            #expect(deleted.json["eventDeletion"] == .object([("id", .string("gone"))]))
            let after = try await server.request(.GET, "/events/gone", token: token)
            #expect(after.status == 404)
            let all = try await server.request(.GET, "/events?fromTime=0&toTime=2000&state=all", token: token)
            #expect(all.json["events"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test("GET /events applies Pryv's defaults and filters", arguments: StoreKind.tested)
    func queryDefaults(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("gus")
            let now = Date().timeIntervalSince1970
            // 25 positions an hour apart ending 10 minutes ago: p0 is the oldest.
            let calls: [JSONValue] = (0..<25).map { index in
                object(("method", .string("events.create")),
                       ("params", positionEvent(id: "p\(index)", time: now - 600 - Double(24 - index) * 3_600,
                                                latitude: 1, longitude: 1)))
            }
            let batch = try await server.request(.POST, "/", token: token, json: .array(calls))
            #expect(batch.status == 200)

            // No range: the newest 20, newest first.
            let newest = try await server.request(.GET, "/events", token: token)
            let ids = newest.json["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
            #expect(ids == (5..<25).reversed().map { "p\($0)" })

            // toTime only: the 24 h before it. toTime = time of p24 → p0 (exactly 24 h earlier) … p24.
            let toOnly = try await server.request(.GET, "/events?toTime=\(now - 600)&limit=100", token: token)
            #expect(toOnly.json["events"]?.arrayValue?.count == 25)
            let toOnlyShort = try await server.request(.GET, "/events?toTime=\(now - 600 - 3_600)&limit=100", token: token)
            // The window [t23 − 24 h, t23] starts 1 h before p0, so p0 … p23: 24 events.
            #expect(toOnlyShort.json["events"]?.arrayValue?.count == 24)

            // fromTime only: until now; ascending with skip and limit.
            let fromOnly = try await server.request(
                .GET, "/events?fromTime=\(now - 600 - 3 * 3_600 - 1)&sortAscending=true&skip=1&limit=2", token: token)
            #expect(fromOnly.json["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["p22", "p23"])
        }
    }

    @Test("types[] filters by exact type and by class; streams[] includes child streams", arguments: StoreKind.tested)
    func typeAndStreamFilters(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("hal")
            let child = try await server.request(.POST, "/streams", token: token,
                                                 json: object(("id", .string("indoor")), ("name", .string("Indoor")),
                                                              ("parentId", .string("position"))))
            #expect(child.status == 201)
            let notes = try await server.request(.POST, "/streams", token: token,
                                                 json: object(("id", .string("diary")), ("name", .string("Diary"))))
            #expect(notes.status == 201)
            _ = try await server.request(.POST, "/events", token: token,
                                         json: positionEvent(id: "a", stream: "indoor", time: 100, latitude: 1, longitude: 1))
            _ = try await server.request(.POST, "/events", token: token, json: object(
                ("id", .string("b")), ("streamIds", .array([.string("diary")])), ("time", .number(200)),
                ("type", .string("note/txt")), ("content", .string("hello"))))
            _ = try await server.request(.POST, "/events", token: token, json: object(
                ("id", .string("c")), ("streamIds", .array([.string("diary")])), ("time", .number(300)),
                ("type", .string("note/html")), ("content", .string("<p>hi</p>"))))

            func ids(_ query: String) async throws -> [String] {
                let answer = try await server.request(.GET, "/events?fromTime=0&toTime=1000&sortAscending=true&" + query, token: token)
                #expect(answer.status == 200, "\(query): \(answer.text)")
                return answer.json["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            }
            #expect(try await ids("types[]=note/txt") == ["b"])
            #expect(try await ids("types%5B%5D=note%2F*") == ["b", "c"])
            #expect(try await ids("types[]=position/wgs84&types[]=note/html") == ["a", "c"])
            #expect(try await ids("streams[]=position") == ["a"])
            #expect(try await ids("streams[]=diary") == ["b", "c"])
            let unknown = try await server.request(.GET, "/events?streams[]=nowhere", token: token)
            #expect(unknown.errorId == "unknown-referenced-resource")
        }
    }

    @Test("A multipart event carries attachments that download byte for byte", arguments: StoreKind.tested)
    func attachments(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("ida")
            let picture: [UInt8] = (0..<3_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
            let boundary = "XyZ123"
            var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"event\"\r\nContent-Type: application/json\r\n\r\n".utf8)
            body += Array(#"{"streamIds":["position"],"type":"picture/attached","time":1000}"#.utf8)
            body += Array("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"door.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            body += picture
            body += Array("\r\n--\(boundary)--\r\n".utf8)
            let created = try await server.request(
                .POST, "/events", token: token, body: body,
                headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")])
            #expect(created.status == 201, "\(created.text)")
            let event = try #require(created.json["event"])
            let attachment = try #require(event["attachments"]?.arrayValue?.first)
            #expect(attachment["fileName"]?.stringValue == "door.jpg")
            #expect(attachment["type"]?.stringValue == "image/jpeg")
            #expect(attachment["size"]?.numberValue == 3_000)
            #expect(attachment["integrity"]?.stringValue == AttachmentUpload.integrity(of: picture))
            let eventId = try #require(event["id"]?.stringValue)
            let attachmentId = try #require(attachment["id"]?.stringValue)
            let download = try await server.request(.GET, "/events/\(eventId)/\(attachmentId)", token: token)
            #expect(download.status == 200)
            #expect(download.body == picture)
            #expect(download.headers["Content-Type"].first == "image/jpeg")
            // A download is a download: never shown inline, never sniffed, never cached.
            #expect(download.headers["Content-Disposition"].first == #"attachment; filename="door.jpg""#)
            #expect(download.headers["X-Content-Type-Options"].first == "nosniff")
            #expect(download.headers["Cache-Control"].first == "no-store")
            let listed = try await server.request(.GET, "/events", token: token)
            #expect(listed.headers["Cache-Control"].first == "no-store")
            #expect(listed.headers["X-Content-Type-Options"].first == "nosniff")
            let refused = try await server.request(.GET, "/events")
            #expect(refused.status == 401 && refused.headers["Cache-Control"].first == "no-store")
            let byName = try await server.request(.GET, "/events/\(eventId)/\(attachmentId)/door.jpg", token: token)
            #expect(byName.body == picture)

            let noFile = try await server.request(.POST, "/events", token: token, json: object(
                ("streamIds", .array([.string("position")])), ("type", .string("picture/attached"))))
            #expect(noFile.status == 400)
            #expect(noFile.json["error"]?["message"]?.stringValue?.contains("multipart") == true)
        }
    }
}
