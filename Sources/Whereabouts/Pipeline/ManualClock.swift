import Foundation

/// A clock that moves only when told: for testing a live pipeline (``ScanPace/live(_:)``)
/// without waiting for real time to pass.
///
/// A sleep until an instant that is not later than ``now`` returns at once, decided under the
/// same lock that ``advance(to:)`` moves the clock with. So a timer that a busy pipeline
/// registers only after the test moved the clock past its deadline fires at once instead of
/// waiting for an advance that already happened: the outcome does not depend on how soon the
/// pipeline's tasks get a thread.
///
/// ```swift
/// let clock = ManualClock()
/// var timeline = ScanTimeline(scans: scans, pace: .live(clock))
/// // … feed a scan, then:
/// await clock.advance(by: .seconds(5))   // an exit due 5 s after the scan falls due now
/// ```
public final class ManualClock: Clock, @unchecked Sendable {
    /// A point in a manual clock's time: how far it is from the clock's start.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// The time since the clock's start.
        public var offset: Duration

        /// The instant `offset` after the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current: Instant
    private var sleepers: [Sleeper] = []
    private var nextID: UInt64 = 0

    /// A clock at `now` (its start, by default), that moves only with ``advance(by:)`` and
    /// ``advance(to:)``.
    public init(now: Instant = Instant(offset: .zero)) {
        current = now
    }

    /// The clock's present instant.
    public var now: Instant { lock.withLock { current } }

    /// The clock has no granularity of its own.
    public var minimumResolution: Duration { .zero }

    /// How many tasks sleep on the clock now: a test can wait for a pipeline to arm its timer
    /// before it moves the clock.
    public var sleeperCount: Int { lock.withLock { sleepers.count } }

    /// The earliest instant a task sleeps until, if any sleeps.
    public var nextDeadline: Instant? { lock.withLock { sleepers.map(\.deadline).min() } }

    /// Sleeps until the clock reaches `deadline`: at once if it is there already. Throws
    /// `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id: UInt64 = lock.withLock {
            nextID &+= 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let due: Bool = lock.withLock {
                    if deadline <= current { return true }
                    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if due { continuation.resume() }
            }
        } onCancel: {
            let cancelled: Sleeper? = lock.withLock {
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock `duration` on (a negative duration moves nothing).
    public func advance(by duration: Duration) async {
        await advance(to: now.advanced(by: duration))
    }

    /// Moves the clock on to `instant`, waking each sleeper due on the way in the order of its
    /// deadline, with the clock at that deadline; between wake-ups the woken tasks get a chance
    /// to run (and sleep again). Moving to an earlier instant moves nothing.
    public func advance(to instant: Instant) async {
        while true {
            let woken: Sleeper? = lock.withLock {
                guard let index = sleepers.indices.min(by: { sleepers[$0].deadline < sleepers[$1].deadline }),
                      sleepers[index].deadline <= instant
                else {
                    if instant > current { current = instant }
                    return nil
                }
                let sleeper = sleepers.remove(at: index)
                if sleeper.deadline > current { current = sleeper.deadline }
                return sleeper
            }
            guard let woken else { break }
            woken.continuation.resume()
            for _ in 0..<10 { await Task.yield() }
        }
        for _ in 0..<10 { await Task.yield() }
    }
}
