import Foundation
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
