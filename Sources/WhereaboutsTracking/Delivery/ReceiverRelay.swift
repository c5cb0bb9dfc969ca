import Foundation
import Whereabouts

/// A gateway's way of sending what it hears to a server, as a fixed receiver: each scan becomes a
/// report (its `device` the receiver's id) and goes to `POST /receivers/reports` as soon as the
/// request before it is answered, so that reports arrive a network's delay after they were heard
/// and in order.
///
/// Sightings are perishable: the server fuses a report only within its window of the present
/// (3 s by default), so a report that waited longer than ``Configuration/keep`` is dropped here,
/// counted, rather than sent late. During an outage the relay holds at most
/// ``Configuration/capacity`` reports of the last ``Configuration/keep`` seconds and retries with
/// a backoff; what the outage cost is in ``Statistics``. A refusal of a whole request by the
/// server (a 4xx: an unknown receiver, a token without the grant) drops that request's reports
/// and keeps the reason; a refused token stops nothing, but every later request will fail the
/// same way, and ``Statistics/lastError`` says so.
///
/// ```swift
/// let relay = ReceiverRelay(client: client, receiver: "kitchen-pi")
/// let sending = Task { await relay.run() }
/// for try await scan in scanner { await relay.add(scan) }
/// let statistics = await relay.finish(waitingUpTo: .seconds(5))
/// await sending.value
/// ```
public actor ReceiverRelay {
    /// How reports are held and sent.
    public struct Configuration: Sendable {
        /// How long a report may wait to be sent (default 3 s, the server's fusion window).
        public var keep: Duration
        /// Reports held at most; the oldest go first when more come (default 10,000).
        public var capacity: Int
        /// Reports a request carries at most (default 500; the server takes 1,000).
        public var batch: Int
        /// The waits between failed requests.
        public var backoff: Backoff

        /// A configuration; by default a report waits at most 3 s, 10,000 are held, 500 go in a
        /// request, and failed requests are retried after 0.2 s growing to 2 s.
        public init(keep: Duration = .seconds(3), capacity: Int = 10_000, batch: Int = 500,
                    backoff: Backoff = Backoff(initial: 0.2, maximum: 2)) {
            self.keep = keep
            self.capacity = max(1, capacity)
            self.batch = min(max(1, batch), 1_000)
            self.backoff = backoff
        }
    }

    /// What the relay did.
    public struct Statistics: Sendable, Hashable {
        /// Scans taken in.
        public var received = 0
        /// Reports the server took.
        public var delivered = 0
        /// Reports the server refused (in an answer that took others, or with the whole request).
        public var refused = 0
        /// Reports dropped because they waited longer than ``Configuration/keep``.
        public var expired = 0
        /// Reports dropped because ``Configuration/capacity`` were held already.
        public var overflowed = 0
        /// Scans without a receiver (no `--receiver` and no `device`), not sent.
        public var unnamed = 0
        /// Requests that failed (the server unreachable or refusing the request).
        public var failedRequests = 0
        /// The latest failure or refusal, for a summary.
        public var lastError: String?

        /// A statistics value with nothing counted.
        public init() {}
    }

    /// The receiver every scan is reported as, or `nil` to keep each scan's own `device`.
    public let receiver: String?
    /// How reports are held and sent.
    public let configuration: Configuration
    /// What the relay did so far.
    public private(set) var statistics = Statistics()

    /// Sends a batch of reports (the client's `sendReceiverReports`).
    private let send: @Sendable ([Scan]) async throws -> TrackingClient.ReceiverReportsAnswer
    private let clock: LiveClock
    /// Reports waiting to be sent, oldest first, each with when it came (on ``clock``).
    private var held = FIFOBuffer<(report: Scan, at: Duration)>(compactingAfter: 1_024)
    /// The batch being sent, taken out of ``held``: sent again after a failure, until it expires.
    private var inFlight: [(report: Scan, at: Duration)] = []
    private var finished = false
    private var wake: CheckedContinuation<Void, Never>?

    /// A relay sending to `client`'s server as `receiver`; `clock` measures how long reports wait
    /// (tests give a `ManualClock`).
    public init(client: TrackingClient, receiver: String?, configuration: Configuration = Configuration(),
                clock: any Clock<Duration> = ContinuousClock()) {
        self.init(receiver: receiver, configuration: configuration, clock: clock) { try await client.sendReceiverReports($0) }
    }

    /// A relay whose batches go to `send` (tests give one that fails or answers as they need).
    init(receiver: String?, configuration: Configuration, clock: any Clock<Duration>,
         send: @escaping @Sendable ([Scan]) async throws -> TrackingClient.ReceiverReportsAnswer) {
        self.send = send
        self.receiver = receiver
        self.configuration = configuration
        self.clock = LiveClock(clock)
    }

    /// Takes in one scan: it is sent as a report of ``receiver`` (or of its own `device`).
    public func add(_ scan: Scan) {
        statistics.received += 1
        var report = scan
        if let receiver { report.device = receiver }
        guard report.device != nil else {
            statistics.unnamed += 1
            return
        }
        report.arrival = nil
        if pending >= configuration.capacity {
            statistics.overflowed += 1
            // The oldest waiting report goes; when every held report is in the request on its
            // way, the new one does.
            guard !held.isEmpty else { return }
            held.removeFirst(1)
        }
        held.append((report, clock.elapsed()))
        wakeUp()
    }

    /// Sends what is held, as it comes, until ``finish(waitingUpTo:)`` and then what is left.
    public func run() async {
        var attempt = 0
        while true {
            dropExpired()
            if inFlight.isEmpty {
                inFlight = Array(held.prefix(configuration.batch))
                held.removeFirst(inFlight.count)
            }
            if inFlight.isEmpty {
                if finished || Task.isCancelled { return }
                // Woken by a report, by finish(waitingUpTo:), or by the task's cancellation.
                await withTaskCancellationHandler {
                    await withCheckedContinuation { wake = $0 }
                } onCancel: {
                    Task { await self.wakeUp() }
                }
                continue
            }
            let batch = inFlight.map(\.report)
            do {
                let answer = try await send(batch)
                inFlight = []
                statistics.delivered += answer.accepted
                statistics.refused += answer.refused
                if let reason = answer.reasons.first { statistics.lastError = "report refused: \(reason.message)" }
                attempt = 0
            } catch TrackingError.refused(let status, let id, let message) where (400..<500).contains(status) && status != 429 {
                // The whole request refused: sending it again would be refused again.
                inFlight = []
                statistics.refused += batch.count
                statistics.failedRequests += 1
                statistics.lastError = "\(status) \(id): \(message)"
            } catch {
                statistics.failedRequests += 1
                statistics.lastError = "\(error)"
                attempt += 1
                if finished && Task.isCancelled { return }
                let wait = configuration.backoff.ceiling(attempt: attempt)
                try? await Task.sleep(for: .seconds(wait))
            }
            if Task.isCancelled { return }
        }
    }

    /// Takes in no more scans; ``run()`` sends what is held (what has not expired) and returns.
    /// Waits at most `limit` for that, then returns what the relay did.
    public func finish(waitingUpTo limit: Duration) async -> Statistics {
        finished = true
        wakeUp()
        let deadline = ContinuousClock.now + limit
        while pending > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return statistics
    }

    /// Resumes ``run()`` if it waits for reports.
    private func wakeUp() {
        wake?.resume()
        wake = nil
    }

    /// Reports still held.
    public var pending: Int { held.count + inFlight.count }

    /// Drops the reports that waited longer than ``Configuration/keep``.
    private func dropExpired() {
        let now = clock.elapsed()
        let sendable = inFlight.filter { now - $0.at <= configuration.keep }
        statistics.expired += inFlight.count - sendable.count
        inFlight = sendable
        while let oldest = held.first, now - oldest.at > configuration.keep {
            held.removeFirst(1)
            statistics.expired += 1
        }
    }
}
