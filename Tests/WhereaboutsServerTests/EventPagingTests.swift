import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Answers in pages: the store's cursors, the API's cap per answer with its `next`, the batch's
/// shared budget, and exports written as they are read.
@Suite("Event paging")
struct EventPagingTests {
    typealias Contract = EventStoreContractTests

    /// Events with ties: five at one time (inserted in an order unlike their ids), a period that
    /// began before and is still going, and a few alone.
    static let tiedSet: [Event] = [
        Contract.point("t-c", at: 100), Contract.point("t-a", at: 100), Contract.point("t-e", at: 100),
        Contract.point("t-b", at: 100), Contract.point("t-d", at: 100),
        Contract.point("early", at: 50), Contract.point("late", at: 200), Contract.point("later", at: 300),
        Contract.period("going", at: 10, duration: nil),
    ]

    /// Everything `reader` reads, page by page.
    static func readAll(_ reader: EventReader) async throws -> (events: [Event], pages: Int) {
        var reader = reader
        var events: [Event] = []
        var pages = 0
        while let page = try await reader.next() {
            #expect(page.count <= reader.pageSize)
            events += page
            pages += 1
        }
        return (events, pages)
    }

    @Test("Reading a query in pages of any size gives the events of one query, in its order", arguments: StoreKind.tested)
    func pagesEqualTheWhole(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            _ = try await store.addEvents(Contract.querySet.map { EventWrite(event: $0) }, for: alice)
            let bob = try await harness.addUser("bob", to: store)
            _ = try await store.addEvents(Self.tiedSet.map { EventWrite(event: $0) }, for: bob)
            let tiedQueries = [
                EventQuery(sortAscending: true), EventQuery(),
                EventQuery(fromTime: Contract.t0 + 60, toTime: Contract.t0 + 250, sortAscending: true),
                EventQuery(fromTime: Contract.t0 + 60, toTime: Contract.t0 + 250),
                EventQuery(fromTime: Contract.t0 + 60, sortAscending: true, skip: 2, limit: 4),
                EventQuery(toTime: Contract.t0 + 100, skip: 1),
            ]
            let cases = Contract.queryCases.map { (alice, $0.0) } + tiedQueries.map { (bob, $0) }
            for (user, query) in cases {
                let whole = try await store.events(matching: query, for: user)
                for pageSize in [1, 2, 3, 500] {
                    let (paged, pages) = try await Self.readAll(EventReader(store: store, userName: user, query: query, pageSize: pageSize))
                    #expect(paged.map(\.id) == whole.map(\.id), "\(query), pages of \(pageSize)")
                    #expect(pages == (whole.count + pageSize - 1) / pageSize, "\(query), pages of \(pageSize)")
                }
            }
            // Ties keep the order of arrival, both ways.
            let ascending = try await store.events(matching: EventQuery(types: ["position/wgs84"], sortAscending: true), for: bob)
            #expect(ascending.map(\.id) == ["early", "t-c", "t-a", "t-e", "t-b", "t-d", "late", "later"])
            let descending = try await Self.readAll(EventReader(
                store: store, userName: bob, query: EventQuery(types: ["position/wgs84"]), pageSize: 2)).events
            #expect(descending.map(\.id) == ascending.map(\.id).reversed())
        }
    }

    @Test("A page's end resumes exactly after it, even inside a tie", arguments: StoreKind.tested)
    func cursorsResume(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let bob = try await harness.addUser("bob", to: store)
            _ = try await store.addEvents(Self.tiedSet.map { EventWrite(event: $0) }, for: bob)
            var query = EventQuery(types: ["position/wgs84"], sortAscending: true, limit: 3)
            let first = try await store.eventPage(matching: query, for: bob)
            #expect(first.events.map(\.id) == ["early", "t-c", "t-a"])
            let firstEnd: EventCursor = try #require(first.end)
            query.after = firstEnd
            #expect(first.end?.time == Contract.t0 + 100)
            let second = try await store.eventPage(matching: query, for: bob)
            #expect(second.events.map(\.id) == ["t-e", "t-b", "t-d"])
            let secondEnd: EventCursor = try #require(second.end)
            query.after = secondEnd
            #expect(try await store.eventPage(matching: query, for: bob).events.map(\.id) == ["late", "later"])
            // An empty page has no end.
            query.after = EventCursor(time: Contract.t0 + 1_000, sequence: 0)
            let empty = try await store.eventPage(matching: query, for: bob)
            #expect(empty.events.isEmpty && empty.end == nil)
        }
    }

    @Test("A cursor's query still reads the time index, in order")
    func cursorQueriesUseTheIndex() async throws {
        let store = try SQLiteEventStore(directory: NSTemporaryDirectory() + "whereabouts-plan-" + AccessToken.generate())
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        try await store.migrate()
        let cursor = EventCursor(time: 1_700_000_500, sequence: 42)
        for ascending in [true, false] {
            let plan = try await store.queryPlan(
                for: EventQuery(fromTime: 1_700_000_000, toTime: 1_700_086_400, sortAscending: ascending, limit: 500, after: cursor),
                userName: "alice")
            #expect(plan.contains { $0.contains("events USING INDEX events_user_time") }, "\(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN events") }, "\(plan)")
            // The starts-in-range half comes off the index in order and stops at the page's end:
            // no sort of its own (SQLite sorts only what each half's LIMIT let through).
            let search = try #require(plan.firstIndex { $0.contains("events USING INDEX events_user_time") })
            #expect(search + 1 < plan.count && !plan[search + 1].contains("TEMP B-TREE"), "\(plan.joined(separator: " / "))")
            let plain = try await store.queryPlan(for: EventQuery(toTime: 1_700_086_400, sortAscending: ascending, limit: 500,
                                                                  after: cursor), userName: "alice")
            #expect(!plain.contains { $0.contains("TEMP B-TREE") }, "\(plain)")
        }
    }

    @Test("A cursor moves the time index's bound to its place: one bound a side, never two")
    func cursorTimeBounds() {
        let cursor = EventCursor(time: 50, sequence: 7)
        #expect(EventQuery(fromTime: 0, toTime: 100, sortAscending: true, after: cursor).timeBounds == (50, 100))
        #expect(EventQuery(fromTime: 0, toTime: 100, after: cursor).timeBounds == (0, 50))
        #expect(EventQuery(fromTime: 60, toTime: 100, sortAscending: true, after: cursor).timeBounds == (60, 100))
        #expect(EventQuery(fromTime: 0, toTime: 40, after: cursor).timeBounds == (0, 40))
        #expect(EventQuery(sortAscending: true, after: cursor).timeBounds == (50, nil))
        #expect(EventQuery(after: cursor).timeBounds == (nil, 50))
        #expect(EventQuery(fromTime: 0, toTime: 100).timeBounds == (0, 100))
    }

    // MARK: The API's cap per answer

    /// Twelve positions at times 1…12, except four of them sharing time 5.
    static func addTwelve(_ server: TestServer, token: String) async throws {
        let calls: [JSONValue] = (0..<12).map { index in
            let time = (3...6).contains(index) ? 5.0 : Double(index + 1)
            return object(("method", .string("events.create")),
                          ("params", positionEvent(id: "p\(index)", time: time, latitude: 1, longitude: 1)))
        }
        let batch = try await server.request(.POST, "/", token: token, json: .array(calls))
        #expect(batch.status == 200)
    }

    /// Follows `next` from `path`; returns the ids of every part and how many parts there were.
    static func follow(_ server: TestServer, _ path: String, token: String) async throws -> (ids: [String], parts: Int) {
        var ids: [String] = []
        var parts = 0
        var cursor: String?
        repeat {
            let url = path + (cursor.map { "&cursor=" + $0 } ?? "")
            let answer = try await server.request(.GET, url, token: token)
            try #require(answer.status == 200, "\(url): \(answer.text)")
            ids += answer.json["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            parts += 1
            cursor = answer.json["next"]?.stringValue
            #expect(parts < 50)
        } while cursor != nil && parts < 50
        return (ids, parts)
    }

    @Test("GET /events answers at most the cap, and `next` leads through the rest to the limit", arguments: StoreKind.tested)
    func capAndContinuation(kind: StoreKind) async throws {
        var configuration = ServerConfiguration()
        configuration.answerLimits = .init(eventsPerAnswer: 5)
        try await TestServer.run(kind, configuration: configuration) { server in
            let (_, token) = try await server.addUser("pia")
            try await Self.addTwelve(server, token: token)
            let range = "/events?fromTime=0&toTime=100"
            let oldestFirst = (0..<12).map { "p\($0)" }

            let first = try await server.request(.GET, range + "&sortAscending=true", token: token)
            #expect(first.json["events"]?.arrayValue?.count == 5)
            #expect(first.json["next"]?.stringValue != nil)
            #expect(first.json["meta"]?["apiVersion"] != nil)
            #expect(try await Self.follow(server, range + "&sortAscending=true", token: token) == (oldestFirst, 3))
            #expect(try await Self.follow(server, range, token: token) == (oldestFirst.reversed(), 3))
            // The limit counts over every part; skip applies once.
            #expect(try await Self.follow(server, range + "&sortAscending=true&limit=7", token: token) == (Array(oldestFirst.prefix(7)), 2))
            #expect(try await Self.follow(server, range + "&sortAscending=true&skip=2&limit=6", token: token)
                    == (Array(oldestFirst[2..<8]), 2))
            // Exactly the cap, or a limit that ends with the part: no `next`.
            #expect(try await Self.follow(server, range + "&sortAscending=true&limit=5", token: token) == (Array(oldestFirst.prefix(5)), 1))
            #expect(try await Self.follow(server, "/events?fromTime=8&toTime=100&sortAscending=true", token: token)
                    == (Array(oldestFirst.suffix(5)), 1))

            // Exports: a range whole (the cap is for JSON answers), oldest first; limit and skip
            // apply in the query's order.
            func exported(_ query: String) async throws -> [String] {
                let answer = try await server.request(.GET, "/events?format=csv&" + query, token: token)
                #expect(answer.status == 200, "\(query): \(answer.text)")
                return answer.text.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
                    .map { String($0.split(separator: ",", omittingEmptySubsequences: false)[9]) }
            }
            #expect(try await exported("fromTime=0&toTime=100") == oldestFirst)
            #expect(try await exported("fromTime=0&toTime=100&sortAscending=true&skip=2&limit=3") == ["p2", "p3", "p4"])
            #expect(try await exported("fromTime=0&toTime=100&limit=3") == ["p9", "p10", "p11"])
            #expect(try await exported("fromTime=0&toTime=100&skip=9") == ["p0", "p1", "p2"])

            // A forged count near Int.max must not overflow what is returned after it (no limit given).
            for bad in ["x", "c1.5.3", "c1.5.3.zz", "c1.-1.3.0", "c2.5.3.0", "c1.5.3.7ff0000000000000",
                        "c1.9223372036854775807.0.0", "c1.1099511627777.0.0"] {
                let answer = try await server.request(.GET, range + "&cursor=" + bad, token: token)
                #expect(answer.status == 400, "\(bad)")
                #expect(answer.errorId == "invalid-parameters-format", "\(bad)")
            }
            let tooMany = (0...APIParameters.maximumListLength).map { "types[]=note/t\($0)" }.joined(separator: "&")
            let listAnswer = try await server.request(.GET, "/events?" + tooMany, token: token)
            #expect(listAnswer.status == 400)
            #expect(listAnswer.text.contains("at most 1000"))
        }
    }

    @Test("A batch's events.get calls share the cap; a batch over its size is refused", arguments: StoreKind.tested)
    func batchBudget(kind: StoreKind) async throws {
        var configuration = ServerConfiguration()
        configuration.answerLimits = .init(eventsPerAnswer: 8, batchCalls: 4)
        try await TestServer.run(kind, configuration: configuration) { server in
            let (_, token) = try await server.addUser("quinn")
            let calls: [JSONValue] = (0..<3).map { index in
                object(("method", .string("events.create")),
                       ("params", positionEvent(id: "q\(index)", time: Double(index + 1), latitude: 1, longitude: 1)))
            }
            #expect(try await server.request(.POST, "/", token: token, json: .array(calls)).status == 200)
            let get = object(("method", .string("events.get")),
                             ("params", object(("fromTime", .number(0)), ("toTime", .number(100)), ("sortAscending", .bool(true)))))
            // 3 + 3 + 2 (cut, with `next`), then nothing left for the fourth.
            let answer = try await server.request(.POST, "/", token: token, json: .array([get, get, get, get]))
            #expect(answer.status == 200)
            let results = try #require(answer.json["results"]?.arrayValue)
            #expect(results.map { $0["events"]?.arrayValue?.count } == [3, 3, 2, nil])
            #expect(results[0]["next"] == nil)
            let next = try #require(results[2]["next"]?.stringValue)
            #expect(results[3]["error"]?["id"]?.stringValue == "request-too-large")
            // The cut call goes on where it stopped.
            let rest = try await server.request(.GET, "/events?fromTime=0&toTime=100&sortAscending=true&cursor=" + next, token: token)
            #expect(rest.json["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["q2"])

            let five = try await server.request(.POST, "/", token: token, json: .array([get, get, get, get, get]))
            #expect(five.status == 413)
            #expect(five.errorId == "request-too-large")
        }
    }

    @Test("With no cap (the default, as Pryv) a range answers every event; what must be held whole fails loudly past its bound", arguments: StoreKind.tested)
    func noCapByDefault(kind: StoreKind) async throws {
        var configuration = ServerConfiguration()
        configuration.answerLimits = .init(eventsHeldWhole: 5)
        try await TestServer.run(kind, configuration: configuration) { server in
            let (_, token) = try await server.addUser("rue")
            try await Self.addTwelve(server, token: token)
            let whole = try await server.request(.GET, "/events?fromTime=0&toTime=100&sortAscending=true", token: token)
            #expect(whole.json["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == (0..<12).map { "p\($0)" })
            #expect(whole.json["next"] == nil)

            func get(_ params: JSONValue) -> JSONValue { object(("method", .string("events.get")), ("params", params)) }
            let range = object(("fromTime", .number(0)), ("toTime", .number(100)))
            let limited = object(("fromTime", .number(0)), ("toTime", .number(100)), ("limit", .number(4)))
            let batch = try await server.request(.POST, "/", token: token, json: .array([get(range), get(limited), get(limited)]))
            let results = try #require(batch.json["results"]?.arrayValue)
            #expect(results[0]["error"]?["id"]?.stringValue == "request-too-large")
            #expect(results[0]["error"]?["message"]?.stringValue?.contains("GET /events") == true)
            #expect(results[1]["events"]?.arrayValue?.count == 4 && results[1]["next"] == nil)
            #expect(results[2]["error"]?["id"]?.stringValue == "request-too-large")   // 4 + 4 > 5

            #expect(try await server.request(.GET, "/events?format=csv&fromTime=0&toTime=100&limit=6", token: token).status == 413)
            #expect(try await server.request(.GET, "/events?format=csv&fromTime=0&toTime=100&limit=5", token: token).status == 200)
            #expect(try await server.request(.GET, "/events?format=csv&fromTime=0&toTime=100", token: token).status == 200)
        }
    }

    // MARK: Exports written as read

    @Test("An export written from the store a chunk at a time is the export of the events at once", arguments: StoreKind.tested)
    func streamedExportMatchesRender(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            // 2,345 positions (pages of 1,000 end inside the set), a tie across a page end, a note.
            var events = (0..<2_345).map { index in
                Contract.point("e\(index)", at: Double(index == 1_000 ? 999 : index))
            }
            events.append(Event(id: "note", streamIds: ["position"], time: Contract.t0 + 5, type: "note/txt", content: .string("x")))
            for chunk in stride(from: 0, to: events.count, by: 1_000) {
                _ = try await store.addEvents(events[chunk..<min(chunk + 1_000, events.count)].map { EventWrite(event: $0) }, for: alice)
            }
            let query = EventQuery(fromTime: Contract.t0 - 1, toTime: Contract.t0 + 10_000, types: ["position/wgs84"])
            for format in EventExport.Format.allCases {
                var text = ""
                let count = try await EventExport.write(format, reading: query, from: store, userName: alice) { text += $0 }
                #expect(count == 2_345)
                #expect(text == format.render(events), "\(format)")
            }
            // One position, and none: the GeoJSON has no track line, and stays valid.
            let one = EventQuery(fromTime: Contract.t0, toTime: Contract.t0, types: ["position/wgs84"])
            var single = ""
            _ = try await EventExport.write(.geojson, reading: one, from: store, userName: alice) { single += $0 }
            #expect(single == EventExport.Format.geojson.render([events[0]]))
            #expect(try JSONParser.parse(single)["features"]?.arrayValue?.count == 1)
            var none = ""
            _ = try await EventExport.write(.geojson, reading: EventQuery(fromTime: 0, toTime: 1), from: store, userName: alice) { none += $0 }
            #expect(none == #"{"type":"FeatureCollection","features":[]}"# + "\n")
        }
    }

    @Test("ISO times are Foundation's, to the millisecond, without a formatter per call")
    func isoTimes() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        var samples: [Double] = [0, -0.5, 951_782_400, 1_700_000_000.999, 4_102_444_800, -2_208_988_800, 1_709_164_800.25]
        for _ in 0..<2_000 { samples.append(Double.random(in: -3e9...5e9, using: &generator).rounded(.down) / 1) }
        for _ in 0..<2_000 { samples.append((Double.random(in: 0...2e12, using: &generator)).rounded() / 1000) }
        for seconds in samples {
            #expect(EventExport.isoTime(seconds) == formatter.string(from: Date(timeIntervalSince1970: seconds)), "\(seconds)")
        }
    }
}
