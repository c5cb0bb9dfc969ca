import Foundation

/// A value behind a lock, readable and writable from any thread: for the few pieces of state
/// that synchronous APIs share with actors or tasks.
///
/// ```swift
/// let latest = LockedValue<[String]>([])
/// latest.value = ["hall1"]
/// latest.withValue { $0.append("hall2") }
/// ```
public final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    /// Creates the box with a first value.
    public init(_ value: Value) {
        stored = value
    }

    /// The value (read or replaced under the lock).
    public var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Runs `body` on the value under the lock and returns its result.
    public func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&stored) }
    }
}
