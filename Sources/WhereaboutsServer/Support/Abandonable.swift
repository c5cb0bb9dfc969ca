import Foundation
import Whereabouts

/// Database work that the caller stops waiting for — without waiting for it to end — when a check
/// says it has taken too long or stalled, or when the caller is cancelled.
///
/// A client library can leave a call waiting for ever, even once cancelled: PostgresNIO's pool on
/// a connection that will not come back after a database restart, or its `listen` on a connection
/// that closed at the wrong moment. Awaiting such a call, even after cancelling it, can keep a
/// request from answering and a server from stopping. Here the work runs in a task of its own;
/// when the caller gives up, it gets its answer at once and the work is cancelled and left to end
/// on its own.
///
/// The store's time limit (``TimeLimitedEventStore``), the command line's limit on opening a
/// database and the live relay's watch on its listening connection are all this one rule.
///
/// ```swift
/// let users = try await Abandonable.run(within: .seconds(5), else: { StoreError.timedOut(operation: "users", seconds: 5) }) {
///     try await store.users()
/// }
/// ```
package enum Abandonable {
    /// Runs `work` and returns its result or passes on its error; or, without waiting for it any
    /// more (it is cancelled), throws the error `abandonWhen` returns at one of the checks made
    /// every `interval` (`nil`: carry on waiting), or `CancellationError` as soon as the calling
    /// task is cancelled.
    ///
    /// The caller's answer is settled before the work is cancelled, so that the error the
    /// cancellation raises in the work (a pool's "request cancelled") is never the one reported.
    package static func run<Result: Sendable>(
        checkingEvery interval: Duration,
        abandonWhen reason: @escaping @Sendable () -> (any Error)?,
        _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let waiting = LockedValue<CheckedContinuation<Result, any Error>?>(nil)
        let tasks = LockedValue<[Task<Void, Never>]>([])
        @Sendable func finish(_ result: Swift.Result<Result, any Error>) {
            waiting.withValue { $0.take() }?.resume(with: result)
            for task in tasks.value { task.cancel() }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                waiting.value = continuation
                let worker = Task {
                    do {
                        finish(.success(try await work()))
                    } catch {
                        finish(.failure(error))
                    }
                }
                let watch = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        if !Task.isCancelled, let error = reason() {
                            finish(.failure(error))
                            return
                        }
                    }
                }
                tasks.value = [worker, watch]
                if Task.isCancelled { finish(.failure(CancellationError())) }
                // Ended before the tasks were known: they are cancelled now.
                if waiting.value == nil { for task in [worker, watch] { task.cancel() } }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }

    /// Runs `work` and returns its result or passes on its error; or, once `limit` has passed,
    /// throws `timedOut()` without waiting for it any more (it is cancelled); or throws
    /// `CancellationError` as soon as the calling task is cancelled.
    package static func run<Result: Sendable>(
        within limit: Duration,
        else timedOut: @escaping @Sendable () -> any Error,
        _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let deadline = ContinuousClock.now + limit
        return try await run(checkingEvery: limit, abandonWhen: { ContinuousClock.now >= deadline ? timedOut() : nil }, work)
    }
}
