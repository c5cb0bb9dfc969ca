import Foundation
import Testing
import Whereabouts
import WhereaboutsServer
import WhereaboutsServerTesting
@testable import WhereaboutsTracking

@Suite("A tracking run", .serialized)
struct TrackingRunTests {
    /// A walk of `count` fixes a second apart from `start`: standing, moving, standing.
    private func walk(count: Int, start: Double) -> [Fix] {
        (0..<count).map { second in
            let phase = second % 30
            let x = phase < 10 ? 10 + Double(second / 30) * 40 : 10 + Double(second / 30) * 40 + Double(phase - 9) * 2
            return fix(start + Double(second), x: x, y: 5, accuracy: 1.5)
        }
    }

    /// A client of a server that is not there (nothing listens on port 9 of loopback).
    private func absentServer() throws -> TrackingClient {
        try TrackingClient(server: "http://127.0.0.1:9", token: "t", timeout: 1)
    }

    private func run(_ outbox: Outbox, _ client: TrackingClient, source: SourceIdentity = .named("test"),
                     timeBase: TimeBase = .recorded, backoff: Backoff = Backoff(initial: 0.05, maximum: 0.2)) async throws -> TrackingRun {
        try await TrackingRun(outbox: outbox, client: client, acceptor: FixAcceptor(identifiers: .sequential(prefix: "e")),
                              source: source, timeBase: timeBase, backoff: backoff)
    }

    private func firstEventTime(_ outbox: Outbox) async throws -> Double {
        let item = try #require(try await outbox.pendingItems(limit: 1).first)
        let json = try JSONParser.parse(item.body)
        return try #require(TrackedEvent(json: json)?.time)
    }

    // MARK: Time bases

    @Test("recorded keeps the fixes' times; now moves the first fix to the present; automatic chooses by the first fix")
    func timeBases() async throws {
        let client = try absentServer()
        let dated = walk(count: 3, start: 1_700_000_000), counted = walk(count: 3, start: 12)
        // `nil`: the present, between just before and just after the fixes are recorded (however
        // long a busy machine takes over it).
        for (base, fixes, expected) in [(TimeBase.recorded, dated, 1_700_000_000.0), (.recorded, counted, 12),
                                        (.automatic, dated, 1_700_000_000), (.now, dated, nil), (.automatic, counted, nil)] {
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let run = try await run(outbox, client, timeBase: base)
            let before = Date().timeIntervalSince1970
            try await run.record(contentsOf: fixes)
            let after = Date().timeIntervalSince1970
            let time = try await firstEventTime(outbox)
            if let expected {
                #expect(abs(time - expected) < 0.001, "\(base)")
            } else {
                #expect(time >= before - 0.001 && time <= after + 0.001, "\(base): \(time) not in [\(before), \(after)]")
            }
        }
    }

    @Test("live shifts by the client's offset to the server's clock, and reads it again every refresh")
    func liveTimeBase() async throws {
        let server = SkewedServer()
        try await server.run { port in
            let client = try TrackingClient(server: "http://127.0.0.1:\(port)", token: "t")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            // Not started yet: no offset known, so none applied.
            let run = try await run(outbox, client, source: .adapter("hci0"), timeBase: .live(refresh: .milliseconds(20)))
            #expect(await run.tracker.timeShift == 0)
            try await client.start()
            let measured = try #require(await client.clockOffset)
            // The next refresh (every 20 ms; a busy machine may take longer) applies it.
            let deadline = ContinuousClock.now + .seconds(600)
            while await run.tracker.timeShift != measured, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            let local = Date().timeIntervalSince1970
            try await run.record(fix(local, x: 3, y: 4))
            let offset = try #require(await client.clockOffset)
            #expect(abs(try await firstEventTime(outbox) - (local + offset)) < 0.001)
            #expect(abs(offset - SkewedServer.skew) < 5)
        }
    }

    // MARK: Source identity and lots

    @Test("A replay is known by its absolute path and size; live sources and pipes by their names")
    func sourceIdentity() throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        try FileManager.default.createDirectory(atPath: temporary.folder, withIntermediateDirectories: true)
        let file = temporary.folder + "/walk.jsonl"
        try Data(repeating: 0x20, count: 1_234).write(to: URL(fileURLWithPath: file))
        let relative = temporary.folder + "/./sub/../walk.jsonl"
        #expect(SourceIdentity.replay(ofFile: relative) == .replay(path: URL(fileURLWithPath: file).standardizedFileURL.path, size: 1_234))
        #expect(SourceIdentity.replay(ofFile: file).checkpointName == "replay:\(URL(fileURLWithPath: file).standardizedFileURL.path):1234")
        #expect(SourceIdentity.adapter("hci0").checkpointName == "adapter:hci0")
        #expect(SourceIdentity.standardInput.checkpointName == "stdin")
        #expect(SourceIdentity.replay(ofFile: file).skipsDecidedFixes && SourceIdentity.replay(ofFile: file).lotSize == 256)
        for live in [SourceIdentity.adapter("hci0"), .standardInput, .named("app")] {
            #expect(!live.skipsDecidedFixes && live.lotSize == 1)
        }
    }

    @Test("A replay's fixes are written 256 at a time; finish writes the rest and marks it finished; a restart resumes it")
    func lots() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        let source = SourceIdentity.replay(path: "/walk.jsonl", size: 10)
        let fixes = walk(count: 300, start: 1_700_000_000)
        let run = try await run(outbox, try absentServer(), source: source)
        #expect(try await run.record(contentsOf: fixes[0..<255]).isEmpty)
        #expect(await run.counts.fixes == 0)
        #expect(try await outbox.checkpoint(for: source.checkpointName) == nil)
        #expect(try await run.record(fixes[255]).count == 256)
        #expect(await run.counts.fixes == 256)
        #expect(try await outbox.checkpoint(for: source.checkpointName)?.finished == false)
        try await run.record(contentsOf: fixes[256..<280])
        #expect(await run.undecidedFixes == 24)

        // Interrupted here: a new run of the same file passes over the 256 decided fixes.
        let resumed = try await self.run(outbox, try absentServer(), source: source)
        #expect(resumed.resumption == .init(hasCheckpoint: true, decidedFixes: 256, wasFinished: false))
        try await resumed.record(contentsOf: fixes)
        #expect(try await resumed.finish().count == 300 - 256)
        #expect(await resumed.counts.resumed == 256)
        #expect(try await outbox.checkpoint(for: source.checkpointName)?.finished == true)

        // Tracked to its end: a run that takes no fix says so and leaves the mark (and its count) alone.
        let finished = try await self.run(outbox, try absentServer(), source: source)
        #expect(finished.resumption == .init(hasCheckpoint: false, decidedFixes: 0, wasFinished: true))
        let before = try await outbox.checkpoint(for: source.checkpointName)
        #expect(try await finished.finish().isEmpty)
        #expect(try await outbox.checkpoint(for: source.checkpointName) == before)
    }

    @Test("A live source writes each fix as it comes")
    func liveLots() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        let run = try await run(outbox, try absentServer(), source: .standardInput)
        let decided = try await run.record(fix(1_700_000_000, x: 1, y: 1))
        #expect(decided.count == 1)
        #expect(try await outbox.pendingItems(limit: 10).count == 1)
    }

    // MARK: Draining

    /// The deadlines of the drains that must end before them: long, so that a busy machine never
    /// reaches them; the outcome (drained or stopped, not `deadlinePassed`) shows they were not waited out.
    static let generous = Duration.seconds(600)

    @Test("drain returns once the server has everything, each time it is asked")
    func drainEmpties() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("ann")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let run = try await run(outbox, try TrackingClient(server: server.url, token: token))
            let start = Date().timeIntervalSince1970 - 3_600
            try await run.record(contentsOf: walk(count: 90, start: start))
            let report = try await run.drain(waitingUpTo: Self.generous)
            #expect(report.outcome == .drained && report.pending == 0 && report.delivered > 0)
            // A second drain after more fixes waits for them too (it subscribes to the sender afresh).
            try await run.record(contentsOf: walk(count: 90, start: start + 1_800))
            let again = try await run.drain(waitingUpTo: Self.generous)
            #expect(again.outcome == .drained && again.pending == 0 && again.delivered > 0)
            let accepted = await run.counts.accepted
            #expect(try await server.events(of: "ann").count == accepted)
            await run.stopDelivery()
        }
    }

    @Test("finish(waitingUpTo:) writes the last lot, marks the replay, drains and names each refusal by its event")
    func finishReportsRefusals() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("dan")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let source = SourceIdentity.replay(path: "/walk.jsonl", size: 10)
            let run = try await run(outbox, try TrackingClient(server: server.url, token: token), source: source)
            let start = Date().timeIntervalSince1970 - 3_600
            try await run.record(contentsOf: walk(count: 40, start: start))
            // Notes to a stream the server does not have: refused for good, each by its id.
            let refused = (0..<25).map { "refused-\($0)" }
            for (index, id) in refused.enumerated() {
                try await run.queue(.create(TrackedEvent(id: id, streamIds: ["no-such-stream"], time: start + Double(index),
                                                         type: "note/txt", content: .string("lost"))))
            }
            try await run.queue(.create(TrackedEvent(id: "kept", streamIds: ["position"], time: start + 30, type: "note/txt",
                                                     content: .string("kept"))))
            #expect(await run.undecidedFixes == 40)
            let report = try await run.finish(waitingUpTo: Self.generous)
            #expect(report.outcome == .drained && report.pending == 0)
            #expect(report.refused == 25)
            #expect(report.refusals.map(\.eventId) == refused.suffix(DeliveryReport.refusalLimit).reversed())
            #expect(report.refusals.allSatisfy { $0.errorId == "unknown-referenced-resource" })
            // The oldest refusal is found by its event, beyond the report's twenty.
            #expect(try await run.refusal(of: "refused-0")?.errorId == "unknown-referenced-resource")
            #expect(try await run.refusal(of: "kept") == nil)
            let accepted = await run.counts.accepted
            #expect(accepted > 0 && report.delivered == accepted + 1)
            #expect(try await outbox.checkpoint(for: source.checkpointName)?.finished == true)
            #expect(try await server.events(of: "dan").count == accepted + 1)
        }
    }

    @Test("drain gives up at the deadline and says what is left")
    func drainDeadline() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        let run = try await run(outbox, try absentServer())
        try await run.record(contentsOf: walk(count: 90, start: 1_700_000_000))
        let queued = try await outbox.status().pending
        let started = ContinuousClock.now
        let report = try await run.drain(waitingUpTo: .milliseconds(300))
        let waited = ContinuousClock.now - started
        #expect(report.outcome == .deadlinePassed && report.pending == queued && report.delivered == 0)
        #expect(report.lastError?.isRetryable == true)
        #expect(waited >= .milliseconds(300) && waited < .seconds(60))
        await run.stopDelivery()
    }

    @Test("drain stops at once when the server refuses the token")
    func drainRefusedToken() async throws {
        try await LocalServer.with { server in
            _ = try await server.addUser("cat")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let run = try await run(outbox, try TrackingClient(server: server.url, token: "not-a-token"))
            try await run.record(contentsOf: walk(count: 30, start: 1_700_000_000))
            let report = try await run.drain(waitingUpTo: Self.generous)
            guard case .stopped(let error) = report.outcome else {
                Issue.record("drain ended with \(report.outcome)")
                return
            }
            #expect(error.isTokenRefused && report.pending > 0)
            await run.stopDelivery()
        }
    }

    @Test("deliver(waitingUpTo:) retries an absent server with the backoff until the deadline, then reports")
    func deliverUntilDeadline() async throws {
        let temporary = TemporaryOutbox()
        defer { temporary.remove() }
        let outbox = try temporary.open()
        try await outbox.enqueue(.create(TrackedEvent(id: "n1", streamIds: ["position"], time: 1, type: "note/txt", content: .string("x"))))
        // On a test clock moved to each wait's end as soon as the sender waits: the deadline is
        // exact, whatever the load on the machine.
        let clock = ManualClock()
        let sender = OutboxSender(outbox: outbox, client: try absentServer(), backoff: Backoff(initial: 0.05, maximum: 0.1), clock: clock)
        let pauses = LockedPauses()
        let delivering = Task {
            defer { pauses.finish() }
            return try await sender.deliver(waitingUpTo: .milliseconds(400)) { error, pause in
                #expect(error.isRetryable)
                pauses.append(pause)
            }
        }
        // Real time only bounds a hang (a loaded machine's tasks may wait long for a thread).
        let patience = ContinuousClock.now + .seconds(300)
        while !pauses.isFinished, ContinuousClock.now < patience {
            if let deadline = clock.nextDeadline {
                await clock.advance(to: deadline)
            } else {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        let report = try await delivering.value
        #expect(report.outcome == .deadlinePassed && report.pending == 1)
        // Each wait the backoff's (half its ceiling to the ceiling: 0.05 s doubling to 0.1 s),
        // the last one cut to what was left; they end exactly at the deadline.
        let waits = pauses.values
        #expect(waits.count >= 4)
        for (index, pause) in waits.dropLast().enumerated() {
            let ceiling = Duration.seconds(index == 0 ? 0.05 : 0.1)
            #expect(pause >= ceiling / 2 && pause <= ceiling, "wait \(index): \(pause)")
        }
        #expect(waits.reduce(.zero, +) == .milliseconds(400))
        #expect(clock.now.offset == .milliseconds(400))
    }
}

/// The waits a `@Sendable` closure reports.
final class LockedPauses: @unchecked Sendable {
    private let lock = NSLock()
    private var pauses: [Duration] = []
    private var finished = false
    var values: [Duration] { lock.withLock { pauses } }
    var isFinished: Bool { lock.withLock { finished } }
    func append(_ pause: Duration) { lock.withLock { pauses.append(pause) } }
    func finish() { lock.withLock { finished = true } }
}

/// A count that a `@Sendable` closure can add to.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
