import Clocks
import Foundation
import Testing
import Whereabouts

/// Values collected from callbacks on any thread, in the order they came.
final class Collected<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Value] = []

    func append(_ value: Value) { lock.withLock { stored.append(value) } }

    var values: [Value] { lock.withLock { stored } }
}

/// A source of scans that a test hands to a facade's `start…` call.
struct ScanSource: AsyncSequence, Sendable {
    typealias Element = Scan
    let scans: [Scan]

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<Scan>
        mutating func next() async -> Scan? { remaining.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: scans[...]) }
}

/// Waiting for a facade run live on a test clock.
enum LiveWait {
    /// How long (real time) to wait for a facade's tasks: they may wait that long for a thread
    /// while the rest of the suite keeps both cores busy. Only a failing test waits it out.
    static let patience = Duration.seconds(300)

    /// Waits until what was handed to the facade is taken in and its timeline sleeps on the clock.
    static func settle(_ clock: TestClock<Duration>) async throws {
        try await Task.sleep(for: .milliseconds(20))
        let deadline = ContinuousClock.now + Self.patience
        while ContinuousClock.now < deadline {
            do { try await clock.checkSuspension() } catch { return }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Waits (at most `patience` of real time) until `condition` holds, and expects it.
    static func until(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + Self.patience
        while ContinuousClock.now < deadline, !condition() { try await Task.sleep(for: .milliseconds(1)) }
        #expect(condition(), sourceLocation: sourceLocation)
    }
}
