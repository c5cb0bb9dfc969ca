import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsTracking

@Suite("The tracker")
struct TrackerTests {
    /// A walk: standing, moving, standing again.
    private let walk: [Fix] = (0..<60).map { second in
        let t = Double(second)
        let x = second < 20 ? 10 : second < 40 ? 10 + Double(second - 20) * 2 : 50
        return fix(1_700_000_000 + t, x: x, y: 5, accuracy: 1.5)
    }

    /// The items an outbox holds, as (kind, event id, duration, body) — ids renamed by order of
    /// appearance so that runs with different id generators compare.
    private func contents(_ outbox: Outbox) async throws -> [String] {
        var names: [String: String] = [:]
        return try await outbox.pendingItems(limit: 10_000).map { item in
            let name = names[item.eventId] ?? "#\(names.count)"
            names[item.eventId] = name
            let body = String(decoding: item.body, as: UTF8.self).replacingOccurrences(of: item.eventId, with: name)
            return "\(item.kind) \(name) \(item.duration) \(body)"
        }
    }

    @Test("Decisions are written before they are returned, and counted")
    func recording() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        let tracker = try await Tracker(outbox: outbox, acceptor: FixAcceptor(identifiers: .sequential(prefix: "a")), source: "walk")
        for fix in walk {
            let decision = try await tracker.record(fix)
            if case .accepted(let event) = decision {
                #expect(try await outbox.pendingItems(limit: 100).contains { $0.eventId == event.id })
            }
        }
        let counts = await tracker.counts
        #expect(counts.fixes == 60 && counts.accepted + counts.extended + counts.ignoredTotal == 60)
        #expect(counts.accepted > 3 && counts.extended > 30)
        let items = try await outbox.pendingItems(limit: 100)
        #expect(items.count == counts.accepted)  // every update folded into its create
        // Standing for 20 s, then 2 m a second: the fix at 23 s is 6 m away, within 1.5 + 5 m.
        #expect(items.first?.duration == 23)
    }

    @Test("An interrupted replay, resumed, leaves exactly the items of an uninterrupted one")
    func resumingAReplay() async throws {
        let whole = TemporaryOutbox(), broken = TemporaryOutbox()
        defer { whole.remove(); broken.remove() }
        let reference = try whole.open()
        let straight = try await Tracker(outbox: reference, acceptor: FixAcceptor(identifiers: .sequential(prefix: "r")),
                                         source: "walk", skipsDecidedFixes: true)
        for fix in walk { _ = try await straight.record(fix) }
        try await straight.finish()

        let outbox = try broken.open()
        for (run, stop) in [(1, 17), (2, 33), (3, 34), (4, 60)].enumerated() {
            let tracker = try await Tracker(outbox: outbox, acceptor: FixAcceptor(identifiers: .sequential(prefix: "run\(run)")),
                                            source: "walk", skipsDecidedFixes: true)
            for fix in walk.prefix(stop.1) { _ = try await tracker.record(fix) }
            if stop.1 == walk.count { try await tracker.finish() }
        }
        #expect(try await contents(outbox) == contents(reference))
        // A finished source starts afresh.
        let again = try await Tracker(outbox: outbox, acceptor: FixAcceptor(), source: "walk", skipsDecidedFixes: true)
        #expect(again.resumedFixes == 0)
    }

    @Test("Recording fixes a lot at a time leaves the items and the counts of one at a time")
    func lots() async throws {
        let single = TemporaryOutbox(), batched = TemporaryOutbox()
        defer { single.remove(); batched.remove() }
        let one = try single.open(), many = try batched.open()
        let byOne = try await Tracker(outbox: one, acceptor: FixAcceptor(identifiers: .sequential(prefix: "a")), source: "walk")
        let byLot = try await Tracker(outbox: many, acceptor: FixAcceptor(identifiers: .sequential(prefix: "b")), source: "walk")
        var decisions: [AcceptanceDecision] = []
        for fix in walk { decisions.append(try await byOne.record(fix)) }
        var lotDecisions: [AcceptanceDecision] = []
        for start in stride(from: 0, to: walk.count, by: 7) {
            lotDecisions += try await byLot.record(contentsOf: Array(walk[start..<min(start + 7, walk.count)]))
        }
        #expect(try await contents(many) == contents(one))
        #expect(await byLot.counts == byOne.counts)
        #expect(lotDecisions.map(Self.kind) == decisions.map(Self.kind))
    }

    private static func kind(_ decision: AcceptanceDecision) -> String {
        switch decision {
        case .accepted: "accepted"
        case .extended(_, let duration): "extended \(duration)"
        case .ignored(let reason): reason.name
        }
    }

    @Test("A resumed tracker extends the same event; a replay keeps its first run's time shift, live scans take today's")
    func resumingState() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        for source in ["live", "replay"] {
            let first = try await Tracker(outbox: outbox, acceptor: FixAcceptor(timeShift: 100, identifiers: .sequential(prefix: source)),
                                          source: source, skipsDecidedFixes: source == "replay")
            _ = try await first.record(fix(10, x: 1, y: 1))
        }
        let live = try await Tracker(outbox: outbox, acceptor: FixAcceptor(timeShift: 999), source: "live")
        #expect(live.hasResumed && live.resumedFixes == 0)
        #expect(await live.timeShift == 999)
        #expect(try await live.record(fix(20, x: 1, y: 1)) == .extended(eventId: "live-1", duration: 10))
        let replay = try await Tracker(outbox: outbox, acceptor: FixAcceptor(timeShift: 999), source: "replay", skipsDecidedFixes: true)
        await replay.setTimeShift(555)
        #expect(replay.hasResumed && replay.resumedFixes == 1)
        #expect(await replay.timeShift == 100)
        #expect(try await replay.record(fix(10, x: 1, y: 1)) == .ignored(.alreadyDecided))
        #expect(try await replay.record(fix(20, x: 1, y: 1)) == .extended(eventId: "replay-1", duration: 10))
    }
}
