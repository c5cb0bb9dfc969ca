import Foundation
import Whereabouts

/// One tracking run, from fixes to events on the server: it owns the tracker (the acceptance
/// policy and its checkpoint), the ``Outbox`` it writes to, the ``OutboxSender`` and the task
/// that delivers in the background, the ``TimeBase`` that dates the events, and the
/// ``SourceIdentity`` that a restart resumes by. Its parts are its own: front ends go through
/// the run alone.
///
/// - ``resumption`` says what an earlier run of the same source left (fixes decided before, a
///   replay tracked to its end).
/// - ``record(_:)`` takes fixes one at a time; a replay's are decided in lots of
///   ``SourceIdentity/lotSize`` (256), each lot one durable write, and anything live one by
///   one, each on disk and on its way to the server before the next comes.
/// - ``queue(_:)`` adds a note, a picture or a duration update beside the positions;
///   ``deliverPending()`` delivers at once, and ``refusal(of:)`` says whether the server refused
///   a given event, however many other refusals wait.
/// - ``finish(waitingUpTo:)`` writes what is left, marks a replay tracked to its end, waits
///   (woken by the sender) until the server has everything, the time allowed passes or the
///   server refuses the token, stops delivery and reports: what was delivered, what waits, what
///   was refused.
///
/// ```swift
/// let run = try await TrackingRun(outbox: try Outbox(path: "outbox.sqlite"), client: client,
///                                 acceptor: FixAcceptor(streamIds: ["position"]),
///                                 source: .replay(ofFile: "walk.jsonl"), timeBase: .automatic)
/// await run.startDelivery()
/// for try await fix in engine.fixes(from: try RecordingReader(url: walk)) {
///     try await run.record(fix)
/// }
/// let report = try await run.finish(waitingUpTo: .seconds(10))
/// print(report.outcome, report.pending, report.refused)
/// ```
///
/// Feed it from one task at a time: each call waits for its write.
public actor TrackingRun {
    /// A fix and what the acceptance policy made of it.
    public struct DecidedFix: Hashable, Sendable {
        /// The fix.
        public var fix: Fix
        /// The decision: a new event, an extended one, or nothing.
        public var decision: AcceptanceDecision

        /// Pairs a fix with its decision.
        public init(fix: Fix, decision: AcceptanceDecision) {
            self.fix = fix
            self.decision = decision
        }
    }

    /// What an earlier run of the same source (for the same server and user) left in the outbox.
    public struct Resumption: Hashable, Sendable {
        /// Whether the outbox held a checkpoint of the source.
        public var hasCheckpoint: Bool
        /// Fixes decided before; a replay (``SourceIdentity/skipsDecidedFixes``) skips them.
        public var decidedFixes: Int
        /// Whether a replay of the source was tracked to its end: a front end says so rather than
        /// send the same events again as new ones.
        public var wasFinished: Bool

        /// Describes what an earlier run left.
        public init(hasCheckpoint: Bool, decidedFixes: Int, wasFinished: Bool) {
            self.hasCheckpoint = hasCheckpoint
            self.decidedFixes = decidedFixes
            self.wasFinished = wasFinished
        }
    }

    /// The tracker: the policy's state and the run's checkpoint.
    nonisolated let tracker: Tracker
    /// The outbox events wait in.
    nonisolated let outbox: Outbox
    /// The sender that delivers from the outbox.
    nonisolated let sender: OutboxSender
    /// The client that talks to the server (and measures its clock).
    nonisolated let client: TrackingClient
    /// Where the fixes come from: the resume key.
    public nonisolated let source: SourceIdentity
    /// What dates the events.
    public nonisolated let timeBase: TimeBase
    /// Fixes decided per durable write.
    public nonisolated let lotSize: Int
    /// What an earlier run of the source left: the run resumes after its decided fixes.
    public nonisolated let resumption: Resumption
    /// The outbox's file.
    public nonisolated var outboxPath: String { outbox.path }

    private let clock: any Clock<Duration>
    private var lot: [Fix] = []
    private var lotDetails: [Tracker.EventDetails?] = []
    private var isAnchored = false
    private var delivery: Task<Void, Never>?
    private var refreshing: Task<Void, Never>?
    /// The sender's progress, to every drain waiting on it (each drain subscribes afresh).
    private let changes = LockedValue(Broadcast<OutboxSender.Statistics>())

    /// Opens a run on `outbox`; when the outbox holds an unfinished checkpoint of `source` for
    /// the client's server and user, the run resumes it (see ``Tracker``).
    ///
    /// An outbox with no ``Outbox/destination`` yet is scoped to the client's
    /// (``Outbox/scope(for:)``): a replay tracked to one server, or for one user, is new to
    /// another, and the run delivers only its own destination's items.
    ///
    /// - Parameters:
    ///   - outbox: Where the events wait until the server has them.
    ///   - client: The server's client; start it first (``TrackingClient/start()``) so that a
    ///     live run knows the server's clock from its first fix.
    ///   - acceptor: The acceptance policy, the venue's units and the events' streams; its time
    ///     shift is the time base's to set.
    ///   - source: Where the fixes come from; it names the checkpoint and sets the lot size.
    ///   - timeBase: What dates the events.
    ///   - lotSize: Fixes per durable write, when not the source's own.
    ///   - batchSize: Items per batch call to the server.
    ///   - backoff: The waits between failed deliveries.
    ///   - clock: The clock of every wait (a test's own clock need not sleep).
    ///   - preparation: Work that must succeed on the server before anything is delivered
    ///     (such as creating the stream the events go to).
    public init(outbox: Outbox, client: TrackingClient, acceptor: FixAcceptor, source: SourceIdentity, timeBase: TimeBase,
                lotSize: Int? = nil, batchSize: Int = 500, backoff: Backoff = Backoff(),
                clock: any Clock<Duration> = ContinuousClock(),
                preparation: (@Sendable () async throws -> Void)? = nil) async throws {
        // Items and checkpoints are the client's server's and user's, unless the caller chose.
        if await outbox.destination == nil { try await outbox.scope(for: client) }
        let tracker = try await Tracker(outbox: outbox, acceptor: acceptor, source: source.checkpointName,
                                        skipsDecidedFixes: source.skipsDecidedFixes)
        switch timeBase {
        case .recorded: await tracker.setTimeShift(0)
        case .live: await tracker.setTimeShift(await client.clockOffset ?? 0)
        case .now, .automatic: break
        }
        self.tracker = tracker
        resumption = Resumption(hasCheckpoint: tracker.hasResumed, decidedFixes: tracker.resumedFixes, wasFinished: tracker.wasFinished)
        self.outbox = outbox
        self.client = client
        self.source = source
        self.timeBase = timeBase
        self.lotSize = max(1, lotSize ?? source.lotSize)
        self.clock = clock
        sender = OutboxSender(outbox: outbox, client: client, batchSize: batchSize, backoff: backoff, clock: clock,
                              preparation: preparation)
        if case .live(let refresh) = timeBase {
            // Every answer of the server measures its clock again; live events follow it.
            refreshing = Task { [tracker, client, clock] in
                while (try? await clock.sleep(for: max(refresh, .milliseconds(1)))) != nil {
                    if let offset = await client.clockOffset { await tracker.setTimeShift(offset) }
                }
            }
        }
    }

    deinit {
        delivery?.cancel()
        refreshing?.cancel()
        changes.withValue { $0.finishAll() }
    }

    // MARK: Fixes

    /// Takes `fix` in; when it completes a lot, decides the lot and writes it durably. Returns
    /// the fixes decided by this call, in order (none while a lot fills).
    @discardableResult
    public func record(_ fix: Fix) async throws -> [DecidedFix] {
        lot.append(fix)
        lotDetails.append(nil)
        guard lot.count >= lotSize else { return [] }
        return try await flush()
    }

    /// Takes `fixes` in, in order, as ``record(_:)`` does one by one.
    @discardableResult
    public func record(contentsOf fixes: some Sequence<Fix>) async throws -> [DecidedFix] {
        var decided: [DecidedFix] = []
        for fix in fixes { decided += try await record(fix) }
        return decided
    }

    /// Decides `fix` at once (after any fixes waiting in the lot) and writes it durably; when it
    /// begins an event, the event takes `details` (its id, streams, description, file).
    public func record(_ fix: Fix, details: Tracker.EventDetails) async throws -> AcceptanceDecision {
        lot.append(fix)
        lotDetails.append(details)
        guard let decided = try await flush().last else { return .ignored(.alreadyDecided) }
        return decided.decision
    }

    /// Decides the fixes waiting in the current lot and writes them durably; returns them.
    @discardableResult
    public func flush() async throws -> [DecidedFix] {
        guard let first = lot.first else { return [] }
        if !isAnchored {
            isAnchored = true
            await anchor(at: first)
        }
        let fixes = lot, details = lotDetails
        lot.removeAll(keepingCapacity: true)
        lotDetails.removeAll(keepingCapacity: true)
        let decisions = try await tracker.record(lot: fixes, details: details)
        return zip(fixes, decisions).map { DecidedFix(fix: $0, decision: $1) }
    }

    /// Writes what waits in the lot and, for a replay, marks the source tracked to its end (a
    /// later run of the same file starts afresh, or is refused by the front end). Returns the
    /// fixes decided last. A run that found its replay finished and took no fix leaves the mark
    /// as it was.
    @discardableResult
    public func finish() async throws -> [DecidedFix] {
        let decided = try await flush()
        if source.skipsDecidedFixes, isAnchored || !resumption.wasFinished { try await tracker.finish() }
        return decided
    }

    /// Decides what waits in the lot, marks a replay tracked to its end (``finish()``), waits up
    /// to `limit` for the server to take everything (``drain(waitingUpTo:)``), stops delivery
    /// and reports what was delivered, what waits and what was refused.
    ///
    /// ```swift
    /// let report = try await run.finish(waitingUpTo: .seconds(30))
    /// if report.pending > 0 { print(report.pending, "items wait for `whereabouts sync`") }
    /// for refusal in report.refusals { print(refusal.eventId, refusal.errorId, refusal.message) }
    /// ```
    public func finish(waitingUpTo limit: Duration) async throws -> DeliveryReport {
        try await finish()
        let report = try await drain(waitingUpTo: limit)
        await stopDelivery()
        return report
    }

    /// Reads the client's offset to the server's clock again now (a live run does so every
    /// `refresh` on its own); other time bases keep their shift.
    public func refreshTimeShift() async {
        guard case .live = timeBase, let offset = await client.clockOffset else { return }
        await tracker.setTimeShift(offset)
    }

    /// Sets the time shift from the first fix, as the time base says.
    private func anchor(at fix: Fix) async {
        let movesToNow: Bool
        switch timeBase {
        case .now: movesToNow = true
        case .automatic: movesToNow = fix.time < TimeBase.datedFrom
        case .recorded, .live: movesToNow = false
        }
        guard movesToNow else { return }
        await tracker.setTimeShift(await client.serverTime(forLocal: Date().timeIntervalSince1970) - fix.time)
    }

    // MARK: Other events

    /// Writes `change` to the outbox durably — a note, a picture, a duration update, or an event
    /// of the caller's own beside the positions — behind everything queued before; the sender
    /// delivers it in order (at once when delivery runs in the background).
    ///
    /// ```swift
    /// let note = TrackedEvent(id: "ck…", streamIds: ["diary"], time: now, type: "note/txt", content: .string("Lunch"))
    /// try await run.queue(.create(note))
    /// ```
    public func queue(_ change: OutboxChange) async throws {
        try await outbox.enqueue(change)
    }

    /// Delivers what waits now, in this call, until nothing deliverable is left; returns how many
    /// items the server took. Throws the ``TrackingError`` that stopped it (the server could not
    /// be reached, refused the token): the items stay queued for a later delivery. A refusal of
    /// one item does not throw: ``refusal(of:)`` finds it.
    @discardableResult
    public func deliverPending() async throws -> Int {
        try await sender.deliverPending()
    }

    /// The server's latest refusal of an item of the event `eventId` (its creation or an update),
    /// if the item waits refused in the outbox; `nil` when the server took it or it still waits
    /// for delivery. Found by the event's id, however many other refusals wait.
    public func refusal(of eventId: String) async throws -> OutboxFailure? {
        try await outbox.failure(ofEvent: eventId)
    }

    /// What the outbox holds for the run's server and user: items waiting, refused, elsewhere.
    public func outboxStatus() async throws -> OutboxStatus {
        try await outbox.status()
    }

    /// The server and user the run's outbox items are for, once known.
    public var destination: OutboxDestination? {
        get async { await outbox.destination }
    }

    // MARK: Delivery

    /// Starts delivering in the background: whenever items arrive, and after a backoff when the
    /// server cannot take them. Calling it again changes nothing.
    public func startDelivery() {
        guard delivery == nil else { return }
        delivery = Task { [sender, changes] in
            await sender.run { statistics in changes.withValue { _ = $0.yield(statistics) } }
        }
    }

    /// Stops the background delivery and waits until its last step has settled.
    public func stopDelivery() async {
        guard let delivery else { return }
        delivery.cancel()
        await delivery.value
        self.delivery = nil
    }

    /// Waits until the server has every item (those it refused for good aside), until `limit`
    /// has passed, or until the server refuses the token, whichever comes first; delivery goes
    /// on in the background (it is started if it was not). The wait is woken by the sender's
    /// progress, not by polling.
    ///
    /// Call it from one task at a time.
    public func drain(waitingUpTo limit: Duration) async throws -> DeliveryReport {
        startDelivery()
        let subscribers = changes
        let progress = subscribers.withValue { broadcast in
            broadcast.subscribe(bufferingPolicy: .bufferingNewest(1)) { id in subscribers.withValue { $0.remove(id) } }
        }
        let before = await sender.statistics.delivered
        let outcome: DeliveryReport.Outcome
        if let settled = try await settledOutcome() {
            outcome = settled
        } else {
            outcome = try await withThrowingTaskGroup(of: DeliveryReport.Outcome?.self) { group in
                group.addTask { [clock] in
                    try? await clock.sleep(for: limit)
                    return .deadlinePassed
                }
                group.addTask {
                    for await _ in progress {
                        if let settled = try await self.settledOutcome() { return settled }
                    }
                    return nil
                }
                var outcome = DeliveryReport.Outcome.deadlinePassed
                for try await result in group {
                    guard let result else { continue }
                    outcome = result
                    break
                }
                group.cancelAll()
                return outcome
            }
        }
        let statistics = await sender.statistics
        return try await DeliveryReport.of(outbox, outcome: outcome, delivered: statistics.delivered - before,
                                           lastError: statistics.lastError)
    }

    /// `.drained` when nothing deliverable waits, `.stopped` when the server refused the token;
    /// `nil` while delivery may still succeed.
    private func settledOutcome() async throws -> DeliveryReport.Outcome? {
        if let error = await sender.statistics.lastError, error.isTokenRefused { return .stopped(error) }
        if try await !outbox.hasPendingItems() { return .drained }
        return nil
    }

    // MARK: Status

    /// How many fixes met each decision so far (fixes waiting in the current lot not yet).
    public var counts: Tracker.Counts {
        get async { await tracker.counts }
    }

    /// What the sender has done so far.
    public var statistics: OutboxSender.Statistics {
        get async { await sender.statistics }
    }

    /// Fixes taken in but not yet decided (the current lot).
    public var undecidedFixes: Int { lot.count }
}
