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

/// Scans a test hands to a facade one at a time while the source stays open, knowing when the
/// facade's reader has taken each (it stamps a scan's arrival on the clock as it takes it).
final class ScanFeed: AsyncSequence, Sendable {
    typealias Element = Scan
    private let stream: AsyncStream<Scan>
    private let input: AsyncStream<Scan>.Continuation
    /// Scans sent, and `next()` calls the reader made.
    private let counts = LockedValue((sent: 0, requested: 0))

    init() {
        (stream, input) = AsyncStream.makeStream(of: Scan.self)
    }

    /// Sends a scan.
    func send(_ scan: Scan) {
        counts.withValue { $0.sent += 1 }
        input.yield(scan)
    }

    /// Ends the source.
    func finish() { input.finish() }

    /// Waits (at most `LiveWait.patience` of real time) until the reader has taken every scan
    /// sent and asks for the next: each one's arrival is then stamped.
    func taken(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await LiveWait.until({ counts.withValue { $0.requested > $0.sent } }, sourceLocation: sourceLocation)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Scan>.AsyncIterator
        let counts: LockedValue<(sent: Int, requested: Int)>

        mutating func next() async -> Scan? {
            counts.withValue { $0.requested += 1 }
            return await base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator(), counts: counts) }
}

/// Waiting for a facade run live on a test clock.
enum LiveWait {
    /// How long (real time) to wait for a facade's tasks: they may wait that long for a thread
    /// while the rest of the suite keeps both cores busy. Only a failing test waits it out.
    static let patience = Duration.seconds(300)
    /// How many times the waiting task looks, at the least, before it gives up: the facade's
    /// tasks queue for the pool's threads beside it, so a pool busy past the patience (every
    /// test starts at once, and the CPU-bound ones run first) delays both alike, and the wait
    /// still ends in the turns the facade gets once the pool frees.
    static let looks = 1_000

    /// Waits (at most `patience` of real time and `looks` looks) until `condition` holds, and
    /// expects it.
    static func until(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + Self.patience
        var looked = 0
        while !condition(), ContinuousClock.now < deadline || looked < Self.looks {
            looked += 1
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(condition(), sourceLocation: sourceLocation)
    }
}
