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

    /// Creates a report.
    public init(outcome: Outcome, delivered: Int, pending: Int, lastError: TrackingError?) {
        self.outcome = outcome
        self.delivered = delivered
        self.pending = pending
        self.lastError = lastError
    }
}
