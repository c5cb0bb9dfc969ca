import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// The map page's history: day by day (a day shows its own positions only, Previous and Next
/// move a day, an empty day offers the nearest days that have some, today goes on live), the
/// address that keeps the day or range across a reload, and retention: `GET /retention`, and the
/// positions the purge removes within 7 days marked on the map.
///
/// The browser runs in UTC, so that the page's local days are the UTC days the test computes;
/// positions are seeded relative to the real now, with hours to spare around every boundary.
@Suite("Map page history in a browser", .serialized)
struct MapPageHistoryTests {
    static let day: Double = 86_400
    static let token = MapTestServer.aliceToken

    /// Now (whole seconds), at least a minute away from midnight UTC: a test that straddled it
    /// would see "today" change under it. Waits at most three minutes.
    static func awayFromMidnight() async throws -> Double {
        let now = MapPageTests.now()
        let intoDay = now.truncatingRemainder(dividingBy: day)
        if intoDay < 60 {
            try await Task.sleep(for: .seconds(61 - intoDay))
        } else if intoDay > day - 120 {
            try await Task.sleep(for: .seconds(day - intoDay + 61))
        }
        return MapPageTests.now()
    }

    /// The midnight (UTC) that starts the day `daysAgo` days before the one of `now`.
    static func midnight(_ now: Double, daysAgo: Int) -> Double {
        (now / day).rounded(.down) * day - Double(daysAgo) * day
    }

    static func formatted(_ time: Double, _ format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: Date(timeIntervalSince1970: time))
    }

    /// "YYYY-MM-DD" of the day `daysAgo` days before the one of `now`.
    static func dayText(_ now: Double, daysAgo: Int) -> String {
        formatted(midnight(now, daysAgo: daysAgo), "yyyy-MM-dd")
    }

    /// The day as the page writes it: "Thu 3 Dec 2026".
    static func dayLabel(_ now: Double, daysAgo: Int) -> String {
        formatted(midnight(now, daysAgo: daysAgo), "EEE d MMM yyyy")
    }

    /// Alice's positions on three days, by days ago: 6 (three), 4 (two, the last at 23:59:59)
    /// and 3 (four, the first at midnight exactly); 5 is a gap between them, and so are 2 and 1
    /// after them. Bob has one on day 5, which is never Alice's to see. Returns the ids by day.
    static func seedDays(_ server: MapTestServer, now: Double) async throws -> [Int: [String]] {
        // Seconds into the day.
        let times: [Int: [(id: String, second: Double)]] = [
            6: [("a0", 9 * 3600), ("a1", 12 * 3600), ("a2", 15 * 3600)],
            4: [("b0", 10 * 3600), ("b1", day - 1)],
            3: [("c0", 0), ("c1", 8 * 3600), ("c2", 13 * 3600), ("c3", 18 * 3600)],
        ]
        var index = 0
        for (daysAgo, positions) in times {
            for position in positions {
                try await server.postPosition(
                    token: token, id: position.id, time: midnight(now, daysAgo: daysAgo) + position.second,
                    latitude: 46.5191 + Double(index % 4) * 0.0001, longitude: 6.5668 + Double(index / 4) * 0.0001)
                index += 1
            }
        }
        try await server.postPosition(token: MapTestServer.bobToken, id: "bob5", time: midnight(now, daysAgo: 5) + 12 * 3600,
                                      latitude: 46.5191, longitude: 6.5668)
        return times.mapValues { $0.map(\.id) }
    }

    /// True once the page has shown `day` with everything that goes with it.
    static func settled(day: String) -> String {
        "window.whereaboutsMap && !window.whereaboutsMap.loading && window.whereaboutsMap.range.day === '\(day)'"
    }

    /// The ids of the positions drawn as dots, sorted, comma-separated.
    static let drawnIds = "[...document.querySelectorAll('#map circle.point')].map(c => c.dataset.id).sort().join(',')"

    static func click(_ page: DevToolsPage, _ id: String) async throws {
        _ = try await page.evaluate("document.getElementById('\(id)').click()")
    }

    /// Reloads the page and waits until the new one has shown `ready`.
    static func reload(_ page: DevToolsPage, until ready: String) async throws {
        _ = try await page.evaluate("window.beforeReload = true")
        try await page.send("Page.reload")
        try await page.waitUntil("!window.beforeReload && \(ready)")
    }

    @Test("day by day: a day shows its positions only; previous and next move a day; an empty day offers the nearest days with positions; today goes on live",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"))
    func dayByDay() async throws {
        try await MapTestServer.run { server in
            let now = try await Self.awayFromMidnight()
            let ids = try await Self.seedDays(server, now: now)
            func day(_ daysAgo: Int) -> String { Self.dayText(now, daysAgo: daysAgo) }
            try await HeadlessChromium.withPage { page in
                try await page.setTimeZone("UTC")
                try await page.navigate(to: "\(server.baseURL)/map?auth=\(Self.token)#day=\(day(4))")
                try await page.waitUntil(Self.settled(day: day(4)))
                // Its two positions: not the one at midnight after it.
                #expect(try await page.evaluate(Self.drawnIds) == .string("b0,b1"))
                #expect(try await page.evaluate("window.whereaboutsMap.range.mode") == .string("day"))
                #expect(try await page.evaluate("window.whereaboutsMap.range.from") == .number(Self.midnight(now, daysAgo: 4)))
                #expect(try await page.evaluate("window.whereaboutsMap.connected") == .bool(false))
                #expect(try await page.evaluate("document.getElementById('status').textContent")
                    == .string("Showing \(Self.dayLabel(now, daysAgo: 4)) (no live updates)"))
                #expect(try await page.evaluate("document.getElementById('day').value") == .string(day(4)))
                #expect(try await page.evaluate("document.getElementById('day-field').hidden") == .bool(false))
                #expect(try await page.evaluate("document.getElementById('from-field').hidden") == .bool(true))

                // Previous: the gap day (Bob's position there is not Alice's).
                try await Self.click(page, "day-previous")
                try await page.waitUntil(Self.settled(day: day(5)))
                #expect(try await page.evaluate("window.whereaboutsMap.points") == .number(0))
                #expect(try await page.evaluate("location.hash") == .string("#day=\(day(5))"))
                #expect(try await page.evaluate("JSON.stringify(window.whereaboutsMap.nearest)")
                    == .string(#"{"previous":"\#(day(6))","next":"\#(day(4))"}"#))
                #expect(try await page.evaluate("document.getElementById('day-note').hidden") == .bool(false))
                #expect(try await page.evaluate("document.getElementById('day-note-text').textContent")
                    == .string("No positions on \(Self.dayLabel(now, daysAgo: 5))."))
                #expect(try await page.evaluate("document.getElementById('day-earlier').textContent")
                    == .string("◀ Earlier: \(Self.dayLabel(now, daysAgo: 6))"))
                #expect(try await page.evaluate("document.getElementById('day-later').textContent")
                    == .string("Later: \(Self.dayLabel(now, daysAgo: 4)) ▶"))
                #expect(try await page.evaluate("document.getElementById('map-caption').textContent")
                    == .string("No positions on \(Self.dayLabel(now, daysAgo: 5))."))

                try await Self.click(page, "day-previous")
                try await page.waitUntil(Self.settled(day: day(6)))
                #expect(try await page.evaluate(Self.drawnIds) == .string(ids[6, default: []].joined(separator: ",")))
                #expect(try await page.evaluate("document.getElementById('day-note').hidden") == .bool(true))
                #expect(try await page.evaluate("window.whereaboutsMap.nearest") == .null)

                // The date input, as a keyboard user sets it.
                _ = try await page.evaluate("""
                    (() => { const d = document.getElementById('day'); d.value = '\(day(3))'; d.dispatchEvent(new Event('change')); })()
                    """)
                try await page.waitUntil(Self.settled(day: day(3)))
                // Its four positions, the one at midnight included.
                #expect(try await page.evaluate(Self.drawnIds) == .string("c0,c1,c2,c3"))

                // Two days without positions after it: the nearest earlier one is more than the
                // 24 hours before the day that the API looks at by default.
                try await Self.click(page, "day-next")
                try await page.waitUntil(Self.settled(day: day(2)))
                try await Self.click(page, "day-next")
                try await page.waitUntil(Self.settled(day: day(1)))
                #expect(try await page.evaluate("JSON.stringify(window.whereaboutsMap.nearest)")
                    == .string(#"{"previous":"\#(day(3))","next":null}"#))
                #expect(try await page.evaluate("document.getElementById('day-later').hidden") == .bool(true))
                try await Self.click(page, "day-earlier")
                try await page.waitUntil(Self.settled(day: day(3)))
                #expect(try await page.evaluate(Self.drawnIds) == .string("c0,c1,c2,c3"))
                #expect(try await page.evaluate("document.activeElement.id") == .string("day"))

                // Back goes to the day before the jump.
                _ = try await page.evaluate("history.back()")
                try await page.waitUntil(Self.settled(day: day(1)))
                #expect(try await page.evaluate("window.whereaboutsMap.points") == .number(0))

                // Today: live, no next day, and the nearest earlier day offered until a
                // position arrives.
                try await Self.click(page, "day-next")
                try await page.waitUntil(Self.settled(day: day(0)) + " && window.whereaboutsMap.connected")
                #expect(try await page.evaluate("window.whereaboutsMap.range.to") == .null)
                #expect(try await page.evaluate("JSON.stringify(window.whereaboutsMap.nearest)")
                    == .string(#"{"previous":"\#(day(3))","next":null}"#))
                #expect(try await page.evaluate("document.getElementById('day-next').getAttribute('aria-disabled')") == .string("true"))
                try await Self.click(page, "day-next")
                #expect(try await page.evaluate("window.whereaboutsMap.range.day") == .string(day(0)))
                try await server.postPosition(token: Self.token, id: "today", time: now - 30, latitude: 46.5192, longitude: 6.5669)
                try await page.waitUntil("window.whereaboutsMap.points === 1")
                #expect(try await page.evaluate("document.getElementById('day-note').hidden") == .bool(true))
                #expect(try await page.evaluate("window.whereaboutsMap.nearest") == .null)
            }
        }
    }

    @Test("the address keeps the day or the range, never the token: a reload and a shared link show the same history",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"))
    func addressKeepsHistory() async throws {
        try await MapTestServer.run { server in
            let now = try await Self.awayFromMidnight()
            let ids = try await Self.seedDays(server, now: now)
            func day(_ daysAgo: Int) -> String { Self.dayText(now, daysAgo: daysAgo) }
            try await HeadlessChromium.withPage { page in
                try await page.setTimeZone("UTC")
                try await page.navigate(to: "\(server.baseURL)/map?auth=\(Self.token)#day=\(day(6))")
                try await page.waitUntil(Self.settled(day: day(6)))
                #expect(try await page.evaluate("location.search + location.hash") == .string("#day=\(day(6))"))
                try await Self.reload(page, until: Self.settled(day: day(6)))
                #expect(try await page.evaluate(Self.drawnIds) == .string(ids[6, default: []].joined(separator: ",")))
                #expect(try await page.evaluate("document.getElementById('mode-day').checked") == .bool(true))
                #expect(try await page.evaluate("location.href.includes('\(Self.token)')") == .bool(false))

                // A range, in UTC: from noon of day 4 to noon of day 3.
                let from = Self.midnight(now, daysAgo: 4) + 12 * 3600, to = Self.midnight(now, daysAgo: 3) + 12 * 3600
                let fragment = "#from=\(Self.formatted(from, "yyyy-MM-dd'T'HH:mm:ss"))Z&to=\(Self.formatted(to, "yyyy-MM-dd'T'HH:mm:ss"))Z"
                let rangeShown = "window.whereaboutsMap && !window.whereaboutsMap.loading && window.whereaboutsMap.range.mode === 'range' "
                    + "&& window.whereaboutsMap.range.from === \(Int(from))"
                try await page.navigate(to: "\(server.baseURL)/map\(fragment)")
                try await page.waitUntil(rangeShown)
                #expect(try await page.evaluate(Self.drawnIds) == .string("b1,c0,c1"))
                #expect(try await page.evaluate("window.whereaboutsMap.range.to") == .number(to))
                #expect(try await page.evaluate("document.getElementById('from-field').hidden") == .bool(false))
                try await Self.reload(page, until: rangeShown)
                #expect(try await page.evaluate(Self.drawnIds) == .string("b1,c0,c1"))
                #expect(try await page.evaluate("location.hash") == .string(fragment))

                // Day by day again: the day the range starts on.
                try await Self.click(page, "mode-day")
                try await page.waitUntil(Self.settled(day: day(4)))
                #expect(try await page.evaluate("location.hash") == .string("#day=\(day(4))"))
                // Range again: From and To hold the day; widen it and show it.
                try await Self.click(page, "mode-range")
                #expect(try await page.evaluate("document.getElementById('to').value")
                    == .string("\(day(4))T23:59:59"))
                _ = try await page.evaluate("document.getElementById('from').value = '\(day(6))T00:00:00'")
                try await Self.click(page, "show")
                let widened = Self.midnight(now, daysAgo: 6)
                let widenedShown = "!window.whereaboutsMap.loading && window.whereaboutsMap.range.from === \(Int(widened))"
                try await page.waitUntil(widenedShown)
                #expect(try await page.evaluate(Self.drawnIds) == .string("a0,a1,a2,b0,b1"))
                let widenedFragment = "#from=\(day(6))T00:00:00Z&to=\(day(4))T23:59:59Z"
                #expect(try await page.evaluate("location.hash") == .string(widenedFragment))
                try await Self.reload(page, until: widenedShown)
                #expect(try await page.evaluate(Self.drawnIds) == .string("a0,a1,a2,b0,b1"))

                // A fragment that names no day: said, and the last 24 hours instead.
                try await page.navigate(to: "\(server.baseURL)/map#day=2026-02-30")
                try await page.waitUntil("window.whereaboutsMap.error !== null")
                #expect(try await page.evaluate("window.whereaboutsMap.error")
                    == .string("The address names no day (#day=YYYY-MM-DD): showing the last 24 hours."))
            }
        }
    }

    @Test("GET /retention: the user's own limit, else the server's default, else for ever; 401 without a token")
    func retentionRoute() async throws {
        var configuration = ServerConfiguration()
        configuration.retention = .init(defaultKeep: 30 * Self.day, interval: nil)
        try await TestServer.run(.sqlite, configuration: configuration) { server in
            let (own, ownToken) = try await server.addUser("own")
            let (forever, foreverToken) = try await server.addUser("forever")
            let (_, plainToken) = try await server.addUser("plain")
            try await server.store.setRetention(90 * Self.day, for: own)
            try await server.store.setRetention(.infinity, for: forever)
            // Any token of the user: one that may read a single stream too.
            let reader = try await server.token(for: own, [Permission(streamId: "position", level: .read)])
            let cases: [(token: String, keep: JSONValue, from: String)] = [
                (ownToken, .number(90 * Self.day), "user"), (reader, .number(90 * Self.day), "user"),
                (foreverToken, .null, "user"), (plainToken, .number(30 * Self.day), "server"),
            ]
            for item in cases {
                let answer = try await server.request(.GET, "/retention", token: item.token)
                #expect(answer.status == 200)
                #expect(answer.json["retention"] == .object([("keep", item.keep), ("from", .string(item.from)), ("streams", .object([]))]))
                #expect(answer.json["meta"]?["apiVersion"] == .string(APIResponse.apiVersion))
            }
            // Under the user's path, as Pryv's clients ask.
            #expect(try await server.request(.GET, "/\(own)/retention", token: ownToken).json["retention"]?["from"] == .string("user"))
            for token in [nil, "not-a-token"] {
                let refused = try await server.request(.GET, "/retention", token: token)
                #expect(refused.status == 401)
                #expect(refused.errorId == "invalid-access-token")
                #expect(refused.json["meta"] != nil)
            }
        }
        // No default on the server: kept for ever.
        configuration.retention = .init(defaultKeep: nil, interval: nil)
        try await TestServer.run(.sqlite, configuration: configuration) { server in
            let (_, token) = try await server.addUser("plain")
            #expect(try await server.request(.GET, "/retention", token: token).json["retention"]
                == .object([("keep", .null), ("from", .string("none")), ("streams", .object([]))]))
        }
        // Per-stream limits, once the store keeps them, are given by stream id.
        #expect(RetentionRoutes.retention(own: nil, defaultKeep: nil, streams: ["tags": 3_600, "position": 86_400])
            == .object([("keep", .null), ("from", .string("none")),
                        ("streams", .object([("position", .number(86_400)), ("tags", .number(3_600))]))]))
    }

    /// Posts one of Alice's positions in `streams` (JSON), with `extra` members (a duration).
    static func post(
        _ server: MapTestServer, _ id: String, time: Double, streams: String = #"["position"]"#, extra: String = "", index: Int
    ) async throws {
        try await server.postEvent(token: token, json: """
            {"id": "\(id)", "streamIds": \(streams), "time": \(time), "type": "position/wgs84",
             "content": {"latitude": \(46.5191 + Double(index % 4) * 0.0001), "longitude": \(6.5668 + Double(index / 4) * 0.0001)}\(extra)}
            """)
    }

    /// The ids of the dots with `class`, sorted, comma-separated.
    static func marked(_ className: String) -> String {
        "[...document.querySelectorAll('#map circle.point.\(className)')].map(c => c.dataset.id).sort().join(',')"
    }

    @Test("with a limit, the page says it and marks exactly the positions the purge removes within 7 days, and those past it",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"))
    func retentionMarksExpiringPositions() async throws {
        // No purge in the background: positions past the limit stay, as between two purges.
        try await MapTestServer.run(retention: .init(defaultKeep: nil, interval: nil)) { server in
            let now = MapPageTests.now()
            let hour = 3600.0, keep = 30 * Self.day
            try await server.store.setRetention(keep, for: "alice")
            // Removed when they ended more than 30 days ago: at time + duration + 30 days.
            let positions: [(id: String, time: Double, extra: String)] = [
                ("overdue", now - keep - 2 * hour, ""),                               // 2 hours ago
                ("soon1", now - 29 * Self.day, ""),                                   // in a day
                ("soon2", now - 23 * Self.day - 4 * hour, ""),                        // in 6 days 20 hours
                ("later1", now - 22 * Self.day - 20 * hour, ""),                      // in 7 days 4 hours
                ("later2", now - 10 * Self.day, ""),                                  // in 20 days
                ("long", now - 33 * Self.day, #", "duration": \#(4 * Self.day)"#),    // ends 29 days ago: in a day
                ("running", now - 31 * Self.day, #", "duration": null"#),             // never ends: never
            ]
            for (index, position) in positions.enumerated() {
                try await Self.post(server, position.id, time: position.time, extra: position.extra, index: index)
            }
            try await HeadlessChromium.withPage { page in
                try await page.setTimeZone("UTC")
                let from = Self.formatted(now - 70 * Self.day, "yyyy-MM-dd'T'HH:mm:ss")
                try await page.navigate(to: "\(server.baseURL)/map?auth=\(Self.token)#from=\(from)Z")
                try await page.waitUntil("window.whereaboutsMap && !window.whereaboutsMap.loading && window.whereaboutsMap.connected")
                #expect(try await page.evaluate("window.whereaboutsMap.points") == .number(7))
                #expect(try await page.evaluate("JSON.stringify(window.whereaboutsMap.retention)")
                    == .string(#"{"keep":2592000,"from":"user","streams":{}}"#))
                #expect(try await page.evaluate(Self.marked("expiring")) == .string("long,overdue,soon1,soon2"))
                #expect(try await page.evaluate(Self.marked("overdue")) == .string("overdue"))
                #expect(try await page.evaluate("window.whereaboutsMap.expiring") == .number(4))
                #expect(try await page.evaluate("window.whereaboutsMap.overdue") == .number(1))
                #expect(try await page.evaluate("document.getElementById('map').getAttribute('data-expiring')") == .string("4"))
                #expect(try await page.evaluate("document.getElementById('legend-expiring').hidden") == .bool(false))
                // Said above the map, with the day the limit falls on (the page's now is a moment
                // after the test's: the day may have turned).
                let note = try await page.evaluate("document.getElementById('retention-note').textContent")
                let days = [now, now + 120].map { Self.formatted($0 - keep, "d MMM yyyy") }
                #expect(days.contains { note == .string("Kept 30 days: positions before \($0) are removed. "
                    + "4 positions shown are removed within 7 days (1 is past the limit already: the next purge removes it).") },
                    "\(note)")
                #expect(try await page.evaluate("document.getElementById('retention-note').hidden") == .bool(false))
                let title = try await page.evaluate("document.querySelector('#map circle[data-id=\"overdue\"] title').textContent")
                #expect(title.stringValue?.hasSuffix("; past its retention: the next purge removes it") == true)
            }
        }
    }

    @Test("without a limit nothing is marked; a stream's own limit (or its parent's) wins over the user's, the shortest of an event's streams applies",
          .enabled(if: HeadlessChromium.shouldRun,
                   "chromium is not installed: `apt-get install chromium` to run the map page in a browser"))
    func retentionPerStreamLimits() async throws {
        try await MapTestServer.run(retention: .init(defaultKeep: nil, interval: nil)) { server in
            let now = MapPageTests.now()
            try await MapPageTagsTests.post(server, "/streams", #"{"id": "short", "name": "Short"}"#)
            try await MapPageTagsTests.post(server, "/streams", #"{"id": "diary", "name": "Diary"}"#)
            try await MapPageTagsTests.post(server, "/streams", #"{"id": "indoor", "name": "Indoor", "parentId": "position"}"#)
            let positions: [(id: String, time: Double, streams: String)] = [
                // diary is kept for ever, whatever the user's limit: 60 days old, never removed.
                ("diary60", now - 60 * Self.day, #"["diary"]"#),
                // indoor follows position (40 days): 36 days old, in 4 days.
                ("indoor36", now - 36 * Self.day, #"["indoor"]"#),
                // The user keeps 30 days; position keeps 40: 35 days old, removed in 5 days.
                ("position35", now - 35 * Self.day, #"["position"]"#),
                // position keeps 40: 20 days old, in 20 days.
                ("position20", now - 20 * Self.day, #"["position"]"#),
                // notes has no limit of its own: the user's 30 days, in 5 days.
                ("notes25", now - 25 * Self.day, #"["notes"]"#),
                // position and short: the shorter, 5 days: 3 days old, in 2 days.
                ("short3", now - 3 * Self.day, #"["position", "short"]"#),
                // short alone: 5 days; 6 days old, past it.
                ("short6", now - 6 * Self.day, #"["short"]"#),
            ]
            for (index, position) in positions.enumerated() {
                try await Self.post(server, position.id, time: position.time, streams: position.streams, index: index)
            }
            try await HeadlessChromium.withPage { page in
                try await page.setTimeZone("UTC")
                let from = Self.formatted(now - 70 * Self.day, "yyyy-MM-dd'T'HH:mm:ss")
                let ready = "window.whereaboutsMap && !window.whereaboutsMap.loading && window.whereaboutsMap.connected"
                // This server keeps everything for ever: nothing marked, nothing said.
                try await page.navigate(to: "\(server.baseURL)/map?auth=\(Self.token)#from=\(from)Z")
                try await page.waitUntil(ready)
                #expect(try await page.evaluate("window.whereaboutsMap.points") == .number(7))
                #expect(try await page.evaluate("window.whereaboutsMap.retention.from") == .string("none"))
                #expect(try await page.evaluate(Self.marked("expiring")) == .string(""))
                #expect(try await page.evaluate("window.whereaboutsMap.expiring") == .number(0))
                #expect(try await page.evaluate("document.getElementById('retention-note').hidden") == .bool(true))
                #expect(try await page.evaluate("document.getElementById('legend-expiring').hidden") == .bool(true))

                // The user keeps 30 days, position 40 (and its child, inherited), short 5, diary for ever.
                try await server.store.setRetention(30 * Self.day, for: "alice")
                try await server.store.setRetention(40 * Self.day, for: "alice", stream: "position")
                try await server.store.setRetention(5 * Self.day, for: "alice", stream: "short")
                try await server.store.setRetention(.infinity, for: "alice", stream: "diary")
                let answer = try JSONParser.parse(try await server.get("/retention", token: Self.token).body)
                #expect(answer["retention"]?["streams"] == .object([("diary", .null), ("indoor", .number(40 * Self.day)),
                                                                         ("position", .number(40 * Self.day)), ("short", .number(5 * Self.day))]),
                        "\(answer)")
                try await Self.reload(page, until: ready)
                #expect(try await page.evaluate("window.whereaboutsMap.retention.streams.short") == .number(5 * Self.day))
                #expect(try await page.evaluate(Self.marked("expiring")) == .string("indoor36,notes25,position35,short3,short6"))
                #expect(try await page.evaluate(Self.marked("overdue")) == .string("short6"))
                let note = try await page.evaluate("document.getElementById('retention-note').textContent")
                #expect(note.stringValue?.hasSuffix(" Streams with their own limit: diary (for ever), indoor (40 days), position (40 days), short (5 days). "
                    + "5 positions shown are removed within 7 days (1 is past the limit already: the next purge removes it).") == true,
                    "\(note)")
            }
        }
    }
}
