import Whereabouts

/// A gate a task can wait at, cancelled or not (a cancelled task is not woken, as
/// PostgresNIO's `listen` is not after losing its continuation), until it opens.
final class Gate: Sendable {
    private let state = LockedValue<(open: Bool, waiting: [CheckedContinuation<Void, Never>], arrived: Bool)>((false, [], false))

    /// Whether a task has come to the gate.
    var hasArrivals: Bool { state.value.arrived }
    /// Whether the gate is open.
    var isOpen: Bool { state.value.open }

    func wait() async {
        await withCheckedContinuation { continuation in
            let proceed = state.withValue { state -> Bool in
                state.arrived = true
                if state.open { return true }
                state.waiting.append(continuation)
                return false
            }
            if proceed { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withValue { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
