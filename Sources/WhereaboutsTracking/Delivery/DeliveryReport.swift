/// How a bounded delivery ended: ``TrackingRun/drain(waitingUpTo:)`` and
/// ``OutboxSender/deliver(waitingUpTo:onRetry:)`` return it.
///
/// ```swift
/// let report = try await run.drain(waitingUpTo: .seconds(10))
/// switch report.outcome {
/// case .drained: print("the server has everything")
/// case .deadlinePassed: print(report.pending, "items wait for `whereabouts sync`")
/// case .stopped(let error): print("delivery stopped:", error)   // e.g. a refused token
/// }
/// ```
public struct DeliveryReport: Hashable, Sendable {
    /// Why the delivery ended.
    public enum Outcome: Hashable, Sendable {
        /// Nothing deliverable waits any more (items the server refused for good do not count).
        case drained
        /// The time allowed ran out with items waiting.
        case deadlinePassed
        /// An error that no retry mends stopped delivery: a refused token, a wrong request.
        case stopped(TrackingError)
    }

    /// Why the delivery ended.
    public var outcome: Outcome
    /// Items the server took during the call.
    public var delivered: Int
    /// Items still waiting for delivery when it ended.
    public var pending: Int
    /// The last error delivery met, if the last attempt failed.
    public var lastError: TrackingError?
    /// Items the server refused for good that wait in the outbox when it ended (`whereabouts sync
    /// --retry-failed` or `--discard-failed` settles them).
    public var refused: Int
    /// The latest of those refusals, newest first, at most ``refusalLimit``: each names its event.
    /// ``TrackingRun/refusal(of:)`` finds any event's, however many wait.
    public var refusals: [OutboxFailure]

    /// The most refusals a report lists.
    public static let refusalLimit = 20

    /// Creates a report.
    public init(outcome: Outcome, delivered: Int, pending: Int, lastError: TrackingError?, refused: Int = 0,
                refusals: [OutboxFailure] = []) {
        self.outcome = outcome
        self.delivered = delivered
        self.pending = pending
        self.lastError = lastError
        self.refused = refused
        self.refusals = Array(refusals.prefix(Self.refusalLimit))
    }

    /// A report of `outbox` as it is now, for a delivery that ended as `outcome`.
    static func of(_ outbox: Outbox, outcome: Outcome, delivered: Int, lastError: TrackingError?) async throws -> DeliveryReport {
        let status = try await outbox.status()
        let refusals = status.failed > 0 ? try await outbox.latestFailures(limit: refusalLimit) : []
        return DeliveryReport(outcome: outcome, delivered: delivered, pending: status.pending, lastError: lastError,
                              refused: status.failed, refusals: refusals)
    }
}
