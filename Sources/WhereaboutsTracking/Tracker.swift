import Foundation
import Whereabouts

/// Turns fixes into events in an outbox: the ``AcceptancePolicy`` decides, the ``Outbox``
/// keeps; a decision is returned only once what it changed is on disk.
///
/// With every change the tracker writes a checkpoint of its state (each device's last event, the
/// number of fixes decided, the time shift) in the same transaction, under a name for its source.
/// A tracker started again on the same source carries on from there: its next fix extends the
/// same event. With ``skipsDecidedFixes`` (a replay of the same recording) it also keeps the
/// first run's time shift and passes over the fixes an earlier run already decided, so that an
/// interrupted replay ends with exactly the events of an uninterrupted one. Without it (live
/// scans), the acceptor's time shift (today's offset to the server's clock) stands.
///
/// Call ``record(_:)`` from one task at a time: each call waits for its write.
///
/// ```swift
/// let outbox = try Outbox(path: "outbox.sqlite")
/// let tracker = try await Tracker(outbox: outbox, acceptor: FixAcceptor(streamIds: ["position"]),
///                                 source: "recording:walk.jsonl", skipsDecidedFixes: true)
/// for try await fix in engine.fixes(from: recording) {
///     let decision = try await tracker.record(fix)   // durable when it returns
/// }
/// try await tracker.finish()
/// ```
public actor Tracker {
    /// How many fixes met each decision.
    public struct Counts: Hashable, Sendable {
        /// Fixes seen (including those an earlier run decided).
        public var fixes = 0
        /// Fixes an earlier run of the same source already decided, passed over.
        public var resumed = 0
        /// Fixes that began an event.
        public var accepted = 0
        /// Fixes that extended an event.
        public var extended = 0
        /// Fixes ignored, by ``AcceptanceDecision/IgnoreReason/name``.
        public var ignored: [String: Int] = [:]

        /// All ignored fixes.
        public var ignoredTotal: Int { ignored.values.reduce(0, +) }
    }

    /// What a caller gives the event a fix begins, beyond what the fix says: an id promised
    /// already, other streams, a description, a file. Nothing of it changes the decision.
    ///
    /// ```swift
    /// let details = Tracker.EventDetails(id: "c1x2y3", description: "At the front desk")
    /// let decision = try await tracker.record(fix, details: details)
    /// ```
    public struct EventDetails: Hashable, Sendable {
        /// The new event's id (default: the acceptor's next one).
        public var id: String?
        /// The streams of the new event (default: the acceptor's).
        public var streamIds: [String]?
        /// The new event's description.
        public var description: String?
        /// A file sent with the new event.
        public var attachment: URL?

        /// Creates details; each `nil` keeps what the acceptor makes.
        public init(id: String? = nil, streamIds: [String]? = nil, description: String? = nil, attachment: URL? = nil) {
            self.id = id
            self.streamIds = streamIds
            self.description = description
            self.attachment = attachment
        }
    }

    private struct State: Codable {
        var lastEvents: [String: FixAcceptor.LastEvent]
        var fixes: Int
        var timeShift: Double
    }

    /// The outbox written to.
    public nonisolated let outbox: Outbox
    /// The name of the source of fixes, under which the checkpoint is kept.
    public nonisolated let source: String
    /// Whether the source is a replay: fixes an earlier, interrupted run of it decided are passed
    /// over, and its time shift is kept.
    public nonisolated let skipsDecidedFixes: Bool
    /// Whether an unfinished checkpoint of the source was found and restored.
    public nonisolated let hasResumed: Bool
    /// Whether the outbox says the source was tracked to its end before (a replay run again).
    public nonisolated let wasFinished: Bool
    /// The counts so far.
    public private(set) var counts = Counts()
    /// How many fixes an interrupted earlier run had decided (0 when starting afresh).
    public nonisolated let resumedFixes: Int
    /// The acceptor, with its state.
    public private(set) var acceptor: FixAcceptor

    /// Creates a tracker; when the outbox holds an unfinished checkpoint for `source`, the
    /// tracker resumes from it (its devices' last events and its time shift replace the
    /// acceptor's).
    public init(outbox: Outbox, acceptor: FixAcceptor, source: String, skipsDecidedFixes: Bool = false) async throws {
        self.outbox = outbox
        self.source = source
        self.skipsDecidedFixes = skipsDecidedFixes
        var acceptor = acceptor
        var resumed = 0
        var found = false
        let checkpoint = try await outbox.checkpoint(for: source)
        self.wasFinished = checkpoint?.finished ?? false
        if let checkpoint, !checkpoint.finished,
           let state = try? JSONDecoder().decode(State.self, from: Data(checkpoint.state)) {
            found = true
            acceptor.lastEvents = state.lastEvents
            if skipsDecidedFixes {
                acceptor.timeShift = state.timeShift
                resumed = state.fixes
            }
        }
        self.acceptor = acceptor
        self.resumedFixes = resumed
        self.hasResumed = found
    }

    /// The time shift in force (fix time + shift = event time): a resumed replay keeps the first
    /// run's.
    public var timeShift: Double { acceptor.timeShift }

    /// Sets the time shift, e.g. once the first fix of a replay anchored at the present is known.
    /// A resumed replay keeps its own: the call changes nothing then.
    public func setTimeShift(_ shift: Double) {
        guard !(hasResumed && skipsDecidedFixes) else { return }
        acceptor.timeShift = shift
    }

    /// Decides `fix`, writes what it changes to the outbox (durably), and returns the decision.
    public func record(_ fix: Fix) async throws -> AcceptanceDecision {
        try await record(contentsOf: [fix])[0]
    }

    /// Decides `fix` as ``record(_:)`` does; when it begins an event, the event takes
    /// `details` (its id, streams, description and file).
    public func record(_ fix: Fix, details: EventDetails) async throws -> AcceptanceDecision {
        try await record(lot: [fix], details: [details])[0]
    }

    /// Decides `fixes` in order and writes all they change in one durable commit (one sync for
    /// the lot): how a replay goes faster than one sync per fix. Returns the decisions, in order,
    /// once the changes are on disk.
    public func record(contentsOf fixes: [Fix]) async throws -> [AcceptanceDecision] {
        try await record(lot: fixes, details: [])
    }

    /// Decides `fixes` in one durable commit; `details[i]`, when there, shapes the event that
    /// `fixes[i]` begins.
    func record(lot fixes: [Fix], details: [EventDetails?]) async throws -> [AcceptanceDecision] {
        var next = acceptor
        var counted = counts
        var changes: [OutboxChange] = []
        var decisions: [AcceptanceDecision] = []
        decisions.reserveCapacity(fixes.count)
        for (index, fix) in fixes.enumerated() {
            let shaping = index < details.count ? details[index] : nil
            counted.fixes += 1
            if skipsDecidedFixes, counted.fixes <= resumedFixes {
                counted.resumed += 1
                decisions.append(.ignored(.alreadyDecided))
                continue
            }
            var decision = next.decide(fix, eventId: shaping?.id)
            switch decision {
            case .accepted(var event):
                if let shaping {
                    if let streamIds = shaping.streamIds { event.streamIds = streamIds }
                    if let description = shaping.description { event.description = description }
                    decision = .accepted(event)
                }
                changes.append(.create(event, attachment: shaping?.attachment))
                counted.accepted += 1
            case .extended(let id, let duration):
                changes.append(.updateDuration(eventId: id, duration: duration))
                counted.extended += 1
            case .ignored(let reason):
                counted.ignored[reason.name, default: 0] += 1
            }
            decisions.append(decision)
        }
        if !changes.isEmpty {
            try await outbox.enqueue(changes, checkpoint: checkpoint(of: next, fixes: counted.fixes, finished: false))
        }
        acceptor = next
        counts = counted
        return decisions
    }

    /// Marks the source finished: a later tracker on the same source starts afresh.
    public func finish() async throws {
        try await outbox.saveCheckpoint(checkpoint(of: acceptor, fixes: counts.fixes, finished: true))
    }

    private func checkpoint(of acceptor: FixAcceptor, fixes: Int, finished: Bool) throws -> OutboxCheckpoint {
        let state = State(lastEvents: acceptor.lastEvents, fixes: fixes, timeShift: acceptor.timeShift)
        return OutboxCheckpoint(source: source, state: [UInt8](try JSONEncoder().encode(state)), finished: finished)
    }
}
