import Foundation
import Whereabouts

/// Delivers what waits in an ``Outbox`` to the server, in order, in batches (the server's batch
/// call), and records each item's fate there.
///
/// - An item the server takes is removed (or, when an update was folded into it while it was on
///   the wire, kept as that update).
/// - An item the server refuses for good (an invalid event, a stream the token may not write) is
///   kept with the server's reason and skipped: it never blocks the items behind it.
/// - When the server cannot be reached, answers 5xx or 429, or refuses the token, nothing is
///   lost: ``run(onChange:)`` waits (``Backoff``) and tries again, for as long as it runs;
///   ``deliver(waitingUpTo:onRetry:)`` does the same until a deadline.
///
/// ```swift
/// let sender = OutboxSender(outbox: outbox, client: client)
/// let delivered = try await sender.deliverPending()       // once, until the outbox is empty
/// // or, retrying an unreachable server for up to a minute:
/// let report = try await sender.deliver(waitingUpTo: .seconds(60))
/// // or, for as long as the task lives:
/// await sender.run()
/// ```
public actor OutboxSender {
    /// What the sender has done so far.
    public struct Statistics: Hashable, Sendable {
        /// Items the server took.
        public var delivered = 0
        /// Items the server refused for good (kept in the outbox).
        public var refused = 0
        /// Requests sent.
        public var requests = 0
        /// The last error that stopped delivery, until a later delivery succeeds.
        public var lastError: TrackingError?
        /// Retries in a row since the last success.
        public var retries = 0
    }

    /// The outbox delivered from.
    public nonisolated let outbox: Outbox
    /// The client delivered with.
    public nonisolated let client: TrackingClient
    /// The most items sent in one batch.
    public nonisolated let batchSize: Int
    /// The waits between retries.
    public nonisolated let backoff: Backoff
    /// The clock the waits between retries and the deadlines are measured on.
    public nonisolated let clock: any Clock<Duration>
    /// What the sender has done so far.
    public private(set) var statistics = Statistics()

    /// Statuses of a whole request that refuse its body: a batch is then sent item by item.
    static let bodyRefusals: Set<Int> = [400, 413]
    /// Statuses of a single create (multipart) that refuse the event itself.
    static let eventRefusals: Set<Int> = [400, 403, 409, 413]

    /// Error ids of a batch call that are worth retrying (the server's trouble, not the item's).
    static let retryableCallErrors: Set<String> = ["unexpected-error", "too-many-requests", "api-unavailable"]

    /// Run once before the first delivery, again at each attempt until it succeeds (e.g. creating
    /// the stream the events go to, which an unreachable server could not do at start).
    private let preparation: (@Sendable () async throws -> Void)?
    private var isPrepared = false

    /// Creates a sender.
    ///
    /// - Parameters:
    ///   - outbox: The outbox to deliver from.
    ///   - client: The client that talks to the server.
    ///   - batchSize: Items per batch call (1 to 5,000; default 500).
    ///   - backoff: How long to wait between failed attempts.
    ///   - clock: The clock the waits are measured on (a test's own clock need not sleep).
    ///   - preparation: Work that must succeed on the server before anything is
    ///     delivered, such as `{ try await client.ensureStream("phone") }`; its errors count as
    ///     delivery errors (retried with the backoff).
    public init(outbox: Outbox, client: TrackingClient, batchSize: Int = 500, backoff: Backoff = Backoff(),
                clock: any Clock<Duration> = ContinuousClock(), preparation: (@Sendable () async throws -> Void)? = nil) {
        self.outbox = outbox
        self.client = client
        self.batchSize = max(1, min(batchSize, 5_000))
        self.backoff = backoff
        self.clock = clock
        self.preparation = preparation
    }

    /// Delivers until the outbox holds nothing deliverable; returns how many items the server
    /// took. Throws the ``TrackingError`` that stopped it (the items stay queued).
    @discardableResult
    public func deliverPending() async throws -> Int {
        var delivered = 0
        if !isPrepared, let preparation, try await outbox.hasPendingItems() {
            try await preparation()
            isPrepared = true
        }
        while true {
            let items = try await outbox.pendingItems(limit: batchSize)
            guard let first = items.first else { break }
            if first.kind == .create, first.attachment != nil {
                delivered += try await deliverAlone(first)
                continue
            }
            let batch = Array(items.prefix { $0.kind == .update || $0.attachment == nil })
            delivered += try await deliver(batch)
        }
        statistics.lastError = nil
        statistics.retries = 0
        return delivered
    }

    /// Delivers for as long as the calling task runs: whenever items arrive, and again after a
    /// backoff when delivery fails. `onChange` hears the statistics after each step.
    public func run(onChange: (@Sendable (Statistics) -> Void)? = nil) async {
        var arrivals = outbox.arrivals.makeAsyncIterator()
        while !Task.isCancelled {
            do {
                try await deliverPending()
                onChange?(statistics)
                guard await arrivals.next() != nil else { return }
            } catch {
                if error is CancellationError || Task.isCancelled { return }
                statistics.lastError = (error as? TrackingError) ?? .invalidAnswer("\(error)")
                statistics.retries += 1
                onChange?(statistics)
                try? await clock.sleep(for: .seconds(backoff.delay(attempt: statistics.retries)))
            }
        }
    }

    /// Delivers until the outbox holds nothing deliverable, retrying an unreachable server with
    /// the backoff of ``run(onChange:)`` until `limit` has passed; the last try falls at the
    /// deadline. An error no retry mends (a refused token, a malformed request) stops at once.
    /// `onRetry` hears each retryable error and the wait before the next try.
    ///
    /// Errors of the outbox itself are thrown; the server's are in the report.
    ///
    /// ```swift
    /// let report = try await sender.deliver(waitingUpTo: .seconds(300)) { error, pause in
    ///     print(error, "next try in", pause)
    /// }
    /// if report.outcome != .drained { print(report.pending, "items still wait") }
    /// ```
    public func deliver(waitingUpTo limit: Duration,
                        onRetry: (@Sendable (TrackingError, Duration) -> Void)? = nil) async throws -> DeliveryReport {
        let remaining = clock.countdown(from: limit)
        var attempt = 0
        var delivered = 0
        var outcome = DeliveryReport.Outcome.drained
        var lastError: TrackingError?
        while true {
            let before = statistics.delivered
            do {
                delivered += try await deliverPending()
                lastError = nil
                break
            } catch let error as TrackingError where error.isRetryable {
                delivered += statistics.delivered - before
                lastError = error
                statistics.lastError = error
                attempt += 1
                let pause = min(.seconds(backoff.delay(attempt: attempt)), remaining())
                guard pause > .zero else {
                    outcome = .deadlinePassed
                    break
                }
                onRetry?(error, pause)
                try await clock.sleep(for: pause)
            } catch let error as TrackingError {
                delivered += statistics.delivered - before
                lastError = error
                statistics.lastError = error
                outcome = .stopped(error)
                break
            }
        }
        return try await DeliveryReport.of(outbox, outcome: outcome, delivered: delivered, lastError: lastError)
    }

    /// Sends `items` in one batch and settles each; when the whole batch is refused (too large,
    /// malformed), sends them one by one so that the refusal lands on the item that caused it.
    private func deliver(_ items: [OutboxItem]) async throws -> Int {
        let answers: [TrackingClient.BatchAnswer]
        do {
            statistics.requests += 1
            answers = try await client.batch(items.map(\.batchCall))
        } catch let error as TrackingError {
            // Only a refusal of the body (malformed, too large) is the items' fault; anything
            // else (a bad token, a wrong URL, no answer) stops delivery and keeps them queued.
            guard case .refused(let status, let id, let message) = error, Self.bodyRefusals.contains(status),
                  !id.hasPrefix("http-") else {
                try await outbox.settle(items.map { .attempted($0) })
                throw error
            }
            if items.count == 1, let item = items.first {
                try await outbox.settle([.refused(item, errorId: id, message: message)])
                statistics.refused += 1
                return 0
            }
            var delivered = 0
            for item in items { delivered += try await deliver([item]) }
            return delivered
        }
        var outcomes: [Outbox.Outcome] = []
        var delivered = 0
        var retryable: TrackingError?
        for (item, answer) in zip(items, answers) {
            switch answer {
            case .result(let result):
                // Pryv leaves out a duration of 0.
                let duration: Double? = switch result["event"]?["duration"] {
                case .number(let value)?: value
                case nil where result["event"] != nil: 0
                default: nil
                }
                outcomes.append(.delivered(item, serverDuration: item.kind == .create ? duration : nil))
                delivered += 1
            case .error(let id, let message) where Self.retryableCallErrors.contains(id):
                outcomes.append(.attempted(item))
                retryable = retryable ?? .refused(status: 503, errorId: id, message: message)
            case .error(let id, let message):
                outcomes.append(.refused(item, errorId: id, message: message))
                statistics.refused += 1
            }
        }
        try await outbox.settle(outcomes)
        statistics.delivered += delivered
        if let retryable { throw retryable }
        return delivered
    }

    /// Sends a create that carries a file (multipart, one request).
    private func deliverAlone(_ item: OutboxItem) async throws -> Int {
        guard let attachment = item.attachment, let json = try? JSONParser.parse(item.body), var event = TrackedEvent(json: json) else {
            try await outbox.settle([.refused(item, errorId: "invalid-item", message: "the outbox item cannot be read back")])
            statistics.refused += 1
            return 0
        }
        event.duration = item.duration
        do {
            statistics.requests += 1
            let stored = try await client.create(event, attaching: URL(fileURLWithPath: attachment.path), fileName: attachment.fileName)
            try await outbox.settle([.delivered(item, serverDuration: stored.duration)])
            statistics.delivered += 1
            return 1
        } catch TrackingError.refused(let status, let id, let message) where Self.eventRefusals.contains(status) && !id.hasPrefix("http-") {
            try await outbox.settle([.refused(item, errorId: id, message: message)])
            statistics.refused += 1
            return 0
        } catch TrackingError.invalidRequest(let message) {
            // The file cannot be read or is too large: no retry will change that.
            try await outbox.settle([.refused(item, errorId: "invalid-request", message: message)])
            statistics.refused += 1
            return 0
        } catch {
            try await outbox.settle([.attempted(item)])
            throw error
        }
    }
}

extension Clock where Duration == Swift.Duration {
    /// The time left until `limit` from now has passed, on this clock (negative once it has).
    func countdown(from limit: Duration) -> @Sendable () -> Duration {
        let deadline = now.advanced(by: limit)
        return { self.now.duration(to: deadline) }
    }
}
