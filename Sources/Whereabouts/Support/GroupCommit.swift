/// Commits writes that arrive together as one group (the server's event store and the tracking
/// client's outbox both write through one): while a group is being committed, the
/// writes that arrive queue up, and the next group takes all of them (up to a bound), so that
/// one commit — and, with `synchronous = FULL`, one sync to disk — acknowledges many writes.
///
/// A write is acknowledged (its ``submit(_:)`` returns) only once the group it went in has been
/// committed; one that fails alone (its own savepoint rolled back) fails alone, and a group whose
/// commit fails fails every write in it. An idle committer starts a group at once, so a lone
/// write waits for nothing but its own commit.
///
/// ```swift
/// let commits = GroupCommit<Insert, Int>(limits: .init(writes: 64, weight: 10_000), weight: \.count) { group in
///     await database.inOneTransaction(group)   // one Result for each write, in order
/// }
/// let inserted = try await commits.submit(insert)
/// ```
package final class GroupCommit<Write: Sendable, Output: Sendable>: Sendable {
    /// How large a group may grow: at most `writes` writes, and at most `weight` in all (events,
    /// say) — though a single write heavier than that still goes, alone.
    package struct Limits: Sendable {
        /// The most writes in a group.
        package var writes: Int
        /// The most weight in a group.
        package var weight: Int

        /// Creates limits.
        package init(writes: Int, weight: Int) {
            self.writes = writes
            self.weight = weight
        }
    }

    /// What a write gets when its group's commit returned fewer results than it had writes.
    package struct MissingResult: Error, CustomStringConvertible {
        /// The results the commit returned.
        package var results: Int
        /// The writes of the group.
        package var writes: Int

        /// `"a group commit gave R results for W writes"`.
        package var description: String { "a group commit gave \(results) results for \(writes) writes" }
    }

    private typealias Waiting = (write: Write, continuation: CheckedContinuation<Output, any Error>)
    private struct State {
        var waiting: [Waiting] = []
        var isCommitting = false
        var groupsCommitted = 0
    }

    private let limits: Limits
    private let weight: @Sendable (Write) -> Int
    private let commit: @Sendable ([Write]) async -> [Result<Output, any Error>]
    private let state = LockedValue(State())

    /// A committer whose `commit` commits a group in one transaction, returning one result for
    /// each of its writes, in order; `weight` is a write's share of ``Limits/weight``.
    package init(limits: Limits, weight: @escaping @Sendable (Write) -> Int,
         commit: @escaping @Sendable ([Write]) async -> [Result<Output, any Error>]) {
        self.limits = Limits(writes: max(1, limits.writes), weight: max(1, limits.weight))
        self.weight = weight
        self.commit = commit
    }

    /// The groups committed so far (for tests and metrics).
    package var groupsCommitted: Int { state.value.groupsCommitted }
    /// The writes waiting for the next group.
    package var waitingCount: Int { state.value.waiting.count }

    /// Queues `write`, and returns once the group it went in has been committed.
    package func submit(_ write: Write) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let startsCommitting = state.withValue { state -> Bool in
                state.waiting.append((write, continuation))
                guard !state.isCommitting else { return false }
                state.isCommitting = true
                return true
            }
            if startsCommitting {
                Task { await self.commitWhileWaiting() }
            }
        }
    }

    /// Commits groups until no write waits.
    private func commitWhileWaiting() async {
        while let group = nextGroup() {
            let results = await commit(group.map(\.write))
            state.withValue { $0.groupsCommitted += 1 }
            for (index, waiting) in group.enumerated() {
                waiting.continuation.resume(with: index < results.count
                    ? results[index]
                    : .failure(MissingResult(results: results.count, writes: group.count)))
            }
        }
    }

    /// The next group: the longest run of waiting writes, in arrival order, within the limits
    /// (at least one); `nil`, and committing stops, when none waits.
    private func nextGroup() -> [Waiting]? {
        state.withValue { state in
            guard !state.waiting.isEmpty else {
                state.isCommitting = false
                return nil
            }
            var count = 0, total = 0
            for waiting in state.waiting {
                let next = weight(waiting.write)
                if count > 0, count == limits.writes || total + next > limits.weight { break }
                count += 1
                total += next
            }
            let group = Array(state.waiting.prefix(count))
            state.waiting.removeFirst(count)
            return group
        }
    }
}
