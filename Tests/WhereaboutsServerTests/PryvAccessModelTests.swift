import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// What Pryv's clients rely on beyond events: the API endpoint under the user's path and the
/// service info that gives it, the access model (access-info, accesses.*), stream deletion,
/// and attachments' read tokens.
@Suite("Pryv's access model, endpoints and stream deletion")
struct PryvAccessModelTests {
    static func permission(_ stream: String, _ level: String) -> JSONValue {
        object(("streamId", .string(stream)), ("level", .string(level)))
    }

    @Test("Every route is served under the user's path too; another user's path refuses the token")
    func userPaths() async throws {
        try await TestServer.run(.sqlite) { server in
            let (alice, token) = try await server.addUser("alice")
            _ = try await server.request(.POST, "/\(alice)/events", token: token, json: positionEvent(id: "p", time: 5, latitude: 1, longitude: 1))
            let events = try await server.request(.GET, "/\(alice)/events?fromTime=0&toTime=10", token: token)
            #expect(events.json["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["p"])
            let batch = try await server.request(.POST, "/\(alice)", token: token, json: .array([]))
            #expect(batch.status == 200 && batch.json["results"] == .array([]))
            #expect(try await server.request(.GET, "/\(alice)/access-info", token: token).json["user"]?["username"] == .string(alice))
            let (bob, _) = try await server.addUser("bob")
            let elsewhere = try await server.request(.GET, "/\(bob)/events?fromTime=0&toTime=10", token: token)
            #expect(elsewhere.status == 403 && elsewhere.errorId == "invalid-access-token")
            // `/{username}` alone is the batch route only; unknown first segments stay unknown.
            #expect(try await server.request(.GET, "/\(alice)", token: token).status == 404)
            #expect(try await server.request(.GET, "/nobody-here/nothing", token: token).status == 404)
        }
    }

    @Test("Service info gives Pryv's clients the DNS-less API endpoint, with no token, at the root and under a user")
    func serviceInfo() async throws {
        var configuration = ServerConfiguration()
        configuration.publicURL = "https://where.example.org"
        try await TestServer.run(.sqlite, configuration: configuration) { server in
            for path in ["/service/info", "/alice/service/info"] {
                let info = try await server.request(.GET, path)
                #expect(info.status == 200)
                #expect(info.json["api"] == .string("https://where.example.org/{username}/"))
                #expect(info.json["name"]?.stringValue != nil && info.json["register"]?.stringValue != nil
                        && info.json["access"]?.stringValue != nil)
                #expect(info.json["features"]?["noHF"] == .bool(true))
                #expect(info.json["meta"]?["serverTime"]?.numberValue != nil)
            }
        }
        try await TestServer.run(.sqlite) { server in
            let api = try await server.request(.GET, "/service/info", headers: [("Host", "gateway.local:8080")]).json["api"]
            #expect(api == .string("http://gateway.local:8080/{username}/"))
            let hostile = try await server.request(.GET, "/service/info", headers: [("Host", "evil\"><script>")]).json["api"]
            #expect(hostile == .string("http://127.0.0.1/{username}/"))
        }
    }

    @Test("A user may not take a name the server's own paths use")
    func reservedUserNames() async throws {
        #expect(!User.isValidName("events") && !User.isValidName("service") && User.isValidName("eventsy"))
        try await TestServer.run(.sqlite) { server in
            await #expect(throws: UserAdministration.Failure.invalidUserName("streams")) {
                _ = try await UserAdministration(store: server.store).addUser(named: "streams")
            }
        }
    }

    @Test("access-info shows the access as Pryv does, with the token presented", arguments: StoreKind.tested)
    func accessInfo(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (alice, token) = try await server.addUser("ann")
            let info = try await server.request(.GET, "/access-info", token: token)
            #expect(info.json["token"] == .string(token))
            #expect(info.json["type"] == .string("personal"))
            #expect(info.json["name"] == .string("personal"))
            #expect(info.json["id"]?.stringValue?.isEmpty == false)
            #expect(info.json["created"]?.numberValue != nil && info.json["modified"]?.numberValue != nil)
            #expect(info.json["user"] == object(("username", .string(alice))))
            let device = try await server.token(for: alice, [Permission(streamId: "position", level: .contribute)])
            #expect(try await server.request(.GET, "/access-info", token: device).json["type"] == .string("app"))
        }
    }

    @Test("Apps create shared accesses within their own permissions and list only theirs; a deletion takes the accesses it made",
          arguments: StoreKind.tested)
    func accessRules(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (alice, personal) = try await server.addUser("amy")
            _ = try await server.request(.POST, "/streams", token: personal, json: object(("id", .string("notes")), ("name", .string("Notes"))))
            let cli = try await server.token(for: alice, [Permission(streamId: "position", level: .read)])
            let appAnswer = try await server.request(.POST, "/accesses", token: personal, json: object(
                ("name", .string("phone app")), ("type", .string("app")), ("expireAfter", .number(3_600)),
                ("permissions", .array([Self.permission("position", "contribute")]))))
            #expect(appAnswer.status == 201)
            let app = try #require(appAnswer.json["access"])
            #expect(app["type"] == .string("app") && app["createdBy"]?.stringValue?.isEmpty == false)
            let expires = try #require(app["expires"]?.numberValue)
            #expect(abs(expires - (Date().timeIntervalSince1970 + 3_600)) < 60)
            let appToken = try #require(app["token"]?.stringValue)

            // Within its own permissions only, and only shared ones.
            let tooMuch = try await server.request(.POST, "/accesses", token: appToken, json: object(
                ("name", .string("x")), ("permissions", .array([Self.permission("position", "manage")]))))
            #expect(tooMuch.status == 403)
            let elsewhere = try await server.request(.POST, "/accesses", token: appToken, json: object(
                ("name", .string("x")), ("permissions", .array([Self.permission("notes", "read")]))))
            #expect(elsewhere.status == 403)
            let anotherApp = try await server.request(.POST, "/accesses", token: appToken, json: object(
                ("name", .string("x")), ("type", .string("app")), ("permissions", .array([Self.permission("position", "read")]))))
            #expect(anotherApp.status == 403)
            #expect(try await server.request(.POST, "/accesses", token: personal, json: object(
                ("name", .string("x")), ("type", .string("personal")), ("permissions", .array([Self.permission("*", "read")])))).status == 403)
            let friend = try await server.request(.POST, "/accesses", token: appToken, json: object(
                ("name", .string("friend")), ("permissions", .array([Self.permission("position", "read")]))))
            #expect(friend.status == 201 && friend.json["access"]?["type"] == .string("shared"))
            let friendId = try #require(friend.json["access"]?["id"]?.stringValue)
            let friendToken = try #require(friend.json["access"]?["token"]?.stringValue)

            // The shared token reads and nothing more.
            #expect(try await server.request(.GET, "/events?streams[]=position&fromTime=0&toTime=1", token: friendToken).status == 200)
            #expect(try await server.request(.POST, "/events", token: friendToken,
                                             json: positionEvent(time: 1, latitude: 1, longitude: 1)).status == 403)

            // Listings: the personal token sees every access, the CLI's without their token; the app its own.
            let all = try #require(try await server.request(.GET, "/accesses", token: personal).json["accesses"]?.arrayValue)
            #expect(all.count == 4)
            #expect(all.first { $0["token"] == nil && $0["type"] == .string("app") } != nil)   // the CLI's token: hash only
            #expect(!all.contains { $0["token"] == .string(cli) })
            let mine = try #require(try await server.request(.GET, "/accesses", token: appToken).json["accesses"]?.arrayValue)
            #expect(mine.compactMap { $0["id"]?.stringValue } == [friendId])

            // Deleting the app deletes the shared access it made; both tokens stop at once.
            let appId = try #require(app["id"]?.stringValue)
            let deletion = try await server.request(.DELETE, "/accesses/\(appId)", token: personal)
            #expect(deletion.json["accessDeletion"] == object(("id", .string(appId))))
            #expect(deletion.json["relatedDeletions"] == .array([object(("id", .string(friendId)))]))
            #expect(try await server.request(.GET, "/access-info", token: appToken).status == 401)
            #expect(try await server.request(.GET, "/access-info", token: friendToken).status == 401)
        }
    }

    @Test("streams.delete: trash, then delete with the events merged or taken out (and deleted when left in no stream)",
          arguments: StoreKind.tested)
    func streamDeletion(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("sam")
            for (id, parent) in [("trip", "position"), ("leg", "trip")] {
                _ = try await server.request(.POST, "/streams", token: token,
                                             json: object(("id", .string(id)), ("name", .string(id)), ("parentId", .string(parent))))
            }
            _ = try await server.request(.POST, "/streams", token: token, json: object(("id", .string("other")), ("name", .string("Other"))))
            let note = { (id: String, streams: [String]) in
                object(("id", .string(id)), ("streamIds", .array(streams.map(JSONValue.string))), ("type", .string("note/txt")),
                       ("content", .string(id)))
            }
            _ = try await server.request(.POST, "/events", token: token, json: note("only-leg", ["leg"]))
            _ = try await server.request(.POST, "/events", token: token, json: note("leg-and-other", ["leg", "other"]))

            #expect(try await server.request(.DELETE, "/streams/trip", token: token).json["stream"]?["trashed"] == .bool(true))
            let missing = try await server.request(.DELETE, "/streams/trip", token: token)
            #expect(missing.status == 400 && missing.errorId == "invalid-parameters-format")
            let deleted = try await server.request(.DELETE, "/streams/trip?mergeEventsWithParent=false", token: token)
            #expect(deleted.json["streamDeletion"] == object(("id", .string("trip"))))
            #expect(deleted.json["updatedEvents"] == .array([
                object(("id", .string("only-leg")), ("action", .string("deleted"))),
                object(("id", .string("leg-and-other")), ("action", .string("updatedStreamIds"))),
            ]))
            #expect(try await server.request(.GET, "/events/only-leg", token: token).status == 404)
            #expect(try await server.request(.GET, "/events/leg-and-other", token: token).json["event"]?["streamIds"]
                    == .array([.string("other")]))
            let streams = try await server.request(.GET, "/streams?state=all", token: token)
            #expect(!streams.text.contains("\"trip\"") && !streams.text.contains("\"leg\""))
            let deletions = try await server.request(.GET, "/events?fromTime=0&toTime=1&includeDeletions=true", token: token)
            #expect(deletions.json["eventDeletions"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["only-leg"])

            // A root stream has no parent to merge into.
            _ = try await server.request(.POST, "/events", token: token, json: note("in-other", ["other"]))
            _ = try await server.request(.DELETE, "/streams/other", token: token)
            let root = try await server.request(.DELETE, "/streams/other?mergeEventsWithParent=true", token: token)
            #expect(root.status == 400 && root.errorId == "invalid-operation")
        }
    }

    @Test("A readToken downloads its own attachment under the user's path, until its access ends", arguments: StoreKind.tested)
    func readTokens(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (alice, personal) = try await server.addUser("rae")
            let reader = try await server.request(.POST, "/accesses", token: personal, json: object(
                ("name", .string("viewer")), ("permissions", .array([Self.permission("position", "read")]))))
            let readerToken = try #require(reader.json["access"]?["token"]?.stringValue)
            let readerId = try #require(reader.json["access"]?["id"]?.stringValue)
            let boundary = "b0undary"
            let multipart = "--\(boundary)\r\nContent-Disposition: form-data; name=\"event\"\r\n\r\n"
                + #"{"id": "pic", "streamIds": ["position"], "type": "picture/attached"}"#
                + "\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--\(boundary)--\r\n"
            let created = try await server.request(.POST, "/events", token: personal, text: multipart,
                                                   headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")])
            let attachmentId = try #require(created.json["event"]?["attachments"]?.arrayValue?.first?["id"]?.stringValue)
            let seen = try await server.request(.GET, "/events/pic", token: readerToken)
            let readToken = try #require(seen.json["event"]?["attachments"]?.arrayValue?.first?["readToken"]?.stringValue)
            #expect(readToken.hasPrefix(readerId + "-"))

            let link = "/\(alice)/events/pic/\(attachmentId)?readToken="
            #expect(try await server.request(.GET, link + readToken).text == "hello")
            #expect(try await server.request(.GET, "/\(alice)/events/pic/a.txt?readToken=" + readToken).text == "hello")
            #expect(try await server.request(.GET, "/events/pic/\(attachmentId)?readToken=" + readToken).status == 401)  // no user path
            let altered = readToken.dropLast() + (readToken.last == "A" ? "B" : "A")   // one character changed
            #expect(try await server.request(.GET, link + altered).status == 401)
            #expect(try await server.request(.GET, link + "nobody-" + readToken.split(separator: "-", maxSplits: 1)[1]).status == 401)
            let (bob, _) = try await server.addUser("ben")
            #expect(try await server.request(.GET, "/\(bob)/events/pic/\(attachmentId)?readToken=" + readToken).status == 401)

            _ = try await server.request(.DELETE, "/accesses/\(readerId)", token: personal)
            #expect(try await server.request(.GET, link + readToken).status == 401)
        }
    }
}
