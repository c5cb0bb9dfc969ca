import Foundation

/// The hand-over between the task that reads a live source and the one that runs the pipeline:
/// a bounded queue of scans (the reader waits while it is full), with a receive that can also be
/// ended by a timer. Each waiting receive is resumed exactly once — by a scan, the end of the
/// source, its failure, the timer or the receiver's cancellation — so that no scan is lost to a
/// timer that fires at the same moment.
final class ScanMailbox: @unchecked Sendable {
    /// What a receive gives.
    enum Delivery: Sendable {
        /// The next scan, and when the source gave it.
        case scan(Scan, arrival: Duration)
        /// The source ended (`nil`) or failed.
        case end((any Error)?)
        /// The timer fired (or the receiving task was cancelled) before a scan came.
        case timeout
    }

    private let lock = NSLock()
    private let capacity: Int
    private var scans = FIFOBuffer<(scan: Scan, arrival: Duration)>(compactingAfter: 256)
    private var ending: (any Error)??
    private var receiver: (id: UInt64, continuation: CheckedContinuation<Delivery, Never>)?
    private var receives: UInt64 = 0
    private var senders: [CheckedContinuation<Void, Never>] = []

    /// A mailbox holding at most `capacity` scans that were not received yet.
    init(capacity: Int = 1_024) {
        self.capacity = max(1, capacity)
    }

    // MARK: The source's side

    /// Hands over a scan and when it came from the source (on the timeline's clock, so that a
    /// scan that waits here for a busy stage keeps its own arrival); waits while the mailbox is full.
    func send(_ scan: Scan, arrival: Duration) async {
        while true {
            let accepted: Bool = lock.withLock {
                guard ending == nil else { return true }
                if let receiver {
                    self.receiver = nil
                    receiver.continuation.resume(returning: .scan(scan, arrival: arrival))
                    return true
                }
                guard scans.count < capacity else { return false }
                scans.append((scan, arrival))
                return true
            }
            if accepted { return }
            await withCheckedContinuation { continuation in
                let resumeNow: Bool = lock.withLock {
                    if scans.count < capacity || ending != nil { return true }
                    senders.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    /// Hands over a scan without waiting: `false` (the scan not taken) when the mailbox is full or
    /// the source has ended.
    func offer(_ scan: Scan, arrival: Duration) -> Bool {
        let (taken, receiver): (Bool, CheckedContinuation<Delivery, Never>?) = lock.withLock {
            guard ending == nil else { return (false, nil) }
            if let waiting = self.receiver {
                self.receiver = nil
                return (true, waiting.continuation)
            }
            guard scans.count < capacity else { return (false, nil) }
            scans.append((scan, arrival))
            return (true, nil)
        }
        receiver?.resume(returning: .scan(scan, arrival: arrival))
        return taken
    }

    /// The source ended (`error` is `nil`) or failed; receives after the scans still queued get it.
    func finish(throwing error: (any Error)?) {
        let (receiver, senders): ((id: UInt64, continuation: CheckedContinuation<Delivery, Never>)?, [CheckedContinuation<Void, Never>]) = lock.withLock {
            guard ending == nil else { return (nil, []) }
            ending = .some(error)
            let waiting = self.senders
            self.senders = []
            let receiver = self.receiver
            self.receiver = nil
            return (receiver, waiting)
        }
        receiver?.continuation.resume(returning: .end(error))
        for sender in senders { sender.resume() }
    }

    // MARK: The pipeline's side

    /// The next scan, or the end of the source; with a `timer`, `.timeout` when the timer returns
    /// before either (the timer runs in a task of its own, cancelled once the receive is over).
    func receive(timer: (@Sendable () async -> Void)?) async -> Delivery {
        if let ready = take() { return ready }
        let id: UInt64 = lock.withLock {
            receives &+= 1
            return receives
        }
        var timerTask: Task<Void, Never>?
        let delivery = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Delivery, Never>) in
                let immediate: Delivery? = lock.withLock {
                    if let ready = takeLocked() { return ready }
                    receiver = (id, continuation)
                    return nil
                }
                if let immediate {
                    continuation.resume(returning: immediate)
                } else if Task.isCancelled {
                    expire(id)
                } else if let timer {
                    timerTask = Task { [weak self] in
                        await timer()
                        self?.expire(id)
                    }
                }
            }
        } onCancel: {
            expire(id)
        }
        timerTask?.cancel()
        return delivery
    }

    /// Resumes receive `id` with `.timeout` if it still waits.
    private func expire(_ id: UInt64) {
        let waiting: CheckedContinuation<Delivery, Never>? = lock.withLock {
            guard let receiver, receiver.id == id else { return nil }
            self.receiver = nil
            return receiver.continuation
        }
        waiting?.resume(returning: .timeout)
    }

    private func take() -> Delivery? {
        lock.withLock { takeLocked() }
    }

    /// A queued scan or the end, under the lock; wakes a sender waiting for room.
    private func takeLocked() -> Delivery? {
        if let (scan, arrival) = scans.popFirst() {
            if !senders.isEmpty { senders.removeFirst().resume() }
            return .scan(scan, arrival: arrival)
        }
        if let ending { return .end(ending) }
        return nil
    }
}
