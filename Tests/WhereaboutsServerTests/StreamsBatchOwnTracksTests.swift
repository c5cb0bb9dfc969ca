import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Foundation
import GRDB
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
            #expect(results[6]["error"]?["id"]?.stringValue == "invalid-method")
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
            // The same message with another battery level is the same fix sent again.
            let recharged = message.replacingOccurrences(of: #""batt":77"#, with: #""batt":78"#)
            #expect(try await server.request(.POST, "/pub", text: recharged, headers: headers).status == 200)

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
            // Another fix in the same second (a fast phone) is a second event, not a retry.
            let moved = message.replacingOccurrences(of: #""lat":46.5191"#, with: #""lat":46.5192"#)
            #expect(try await server.request(.POST, "/pub", text: moved, headers: headers).status == 200)
            let after = try await server.request(.GET, "/events?fromTime=0&toTime=1800000000&limit=100", token: token)
            #expect(after.json["events"]?.arrayValue?.compactMap { $0["content"]?["latitude"]?.numberValue }.sorted() == [46.5191, 46.5192])
        }
    }
}

/// Stream moves can never make the tree a cycle: not by two concurrent requests, not in the
/// store; a store that holds one already is repaired when its tree is loaded.
@Suite("Stream cycles")
struct StreamCycleTests {
    /// Two concurrent moves, each legal on its own (a under b, b under a): exactly one wins, the
    /// other is refused, and both streams stay visible. Raced twenty times.
    @Test("Concurrent moves that would make a cycle: one wins, one is refused", arguments: StoreKind.tested)
    func concurrentMovesCannotMakeACycle(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (_, token) = try await server.addUser("jo")
            for round in 0..<20 {
                let a = "a\(round)", b = "b\(round)"
                for id in [a, b] {
                    let created = try await server.request(.POST, "/streams", token: token,
                                                           json: object(("id", .string(id)), ("name", .string(id))))
                    #expect(created.status == 201)
                }
                async let first = server.request(.PUT, "/streams/\(a)", token: token, json: object(("parentId", .string(b))))
                async let second = server.request(.PUT, "/streams/\(b)", token: token, json: object(("parentId", .string(a))))
                let statuses = try await [first.status, second.status].sorted()
                #expect(statuses == [200, 400], "round \(round): \(statuses)")
                let tree = try await server.request(.GET, "/streams", token: token)
                let roots = tree.json["streams"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                #expect(roots.contains(a) || roots.contains(b), "round \(round): neither \(a) nor \(b) is reachable")
            }
        }
    }

    @Test("The store refuses a move under the stream itself or a descendant", arguments: StoreKind.tested)
    func theStoreRefusesACycle(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let jo = try await harness.addUser("jo", to: store)
            let top = EventStream(id: "top", name: "Top")
            let middle = EventStream(id: "middle", name: "Middle", parentId: "top")
            let bottom = EventStream(id: "bottom", name: "Bottom", parentId: "middle")
            for stream in [top, middle, bottom] { try await store.addStream(stream, for: jo) }
            var moved = top
            moved.parentId = "bottom"
            await #expect(throws: StoreError.cycle(streamId: "top", parentId: "bottom")) {
                try await store.replaceStream(moved, for: jo)
            }
            moved.parentId = "top"
            await #expect(throws: StoreError.cycle(streamId: "top", parentId: "top")) {
                try await store.replaceStream(moved, for: jo)
            }
            var legal = bottom
            legal.parentId = "top"
            try await store.replaceStream(legal, for: jo)
            #expect(try await store.streams(of: jo).first { $0.id == "bottom" }?.parentId == "top")
        }
    }

    /// A store written by an older version with a cycle (and an orphan): loading the tree makes
    /// the first listed stream of the cycle, and the orphan, roots again.
    @Test func aStoredCycleIsRepairedWhenTheTreeIsLoaded() async throws {
        let directory = NSTemporaryDirectory() + "whereabouts-cycle-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteEventStore(directory: directory)
        try await store.migrate()
        _ = try await UserAdministration(store: store).addUser(named: "jo")
        for (id, parent) in [("a", nil), ("b", "a"), ("c", "b"), ("lost", nil)] as [(String, String?)] {
            try await store.addStream(EventStream(id: id, name: id, parentId: parent), for: "jo")
        }
        try await store.close()
        // What two racing moves could leave behind: a under c (a → b → c → a), and lost under a stream that is gone.
        let queue = try DatabaseQueue(path: (directory as NSString).appendingPathComponent(SQLiteEventStore.databaseFileName))
        try await queue.write { db in
            try db.execute(sql: "UPDATE streams SET parent_id = 'c' WHERE id = 'a'")
            try db.execute(sql: "UPDATE streams SET parent_id = 'gone' WHERE id = 'lost'")
        }
        try queue.close()

        let reopened = try SQLiteEventStore(directory: directory)
        let before = StreamTree(try await reopened.streams(of: "jo"))
        #expect(Set(before.unreachableIds) == ["a", "b", "c", "lost"])
        #expect(Set(before.streamsToReroot) == ["a", "lost"])
        let tree = try await StreamDirectory(store: reopened).tree(for: "jo")
        #expect(tree.unreachableIds.isEmpty)
        #expect(tree.rootIds == ["position", "a", "lost"])
        #expect(tree.lineage(of: "c") == ["c", "b", "a"])
        try await reopened.close()
    }

    @Test func treeWalksAreBoundedAndStackFree() {
        // A chain 5,000 deep, and a self-loop: lineage, height and rendering stop at the cap.
        var streams = [EventStream(id: "s0", name: "s0")]
        for depth in 1..<5_000 { streams.append(EventStream(id: "s\(depth)", name: "s\(depth)", parentId: "s\(depth - 1)")) }
        streams.append(EventStream(id: "loop", name: "loop", parentId: "loop"))
        let tree = StreamTree(streams)
        #expect(tree.lineage(of: "s4999").count == StreamTree.maximumDepth)
        #expect(tree.lineage(of: "loop") == ["loop"])
        #expect(tree.height(of: "s0") <= 2 * StreamTree.maximumDepth)
        #expect(tree.streamsToReroot == ["loop"])
        var depth = 0
        var node = APIService.render("s0", tree: tree, includeTrashed: false)
        while let current = node {
            depth += 1
            node = current["children"]?.arrayValue?.first
        }
        #expect(depth == StreamTree.maximumDepth)
    }
}
