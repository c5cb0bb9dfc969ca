import Foundation

/// Blocking work — waiting for a child process, reading a pipe to its end — done on a thread of
/// its own, awaited without holding one of the concurrency pool's threads.
///
/// The pool has one thread a core. A test that blocks one (`Process.waitUntilExit()`,
/// `FileHandle.readDataToEndOfFile()`, `Thread.sleep`) for as long as a child process runs
/// leaves the other tests' servers, clients and clocks that many threads fewer; on a two-core
/// machine two such tests stop them all, and a test waiting for a timer meanwhile fails for no
/// fault of the code it tests. A synchronous `@Test` function runs on the pool too.
///
/// ```swift
/// let text = try await DedicatedThread.run {
///     String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
/// }
/// ```
public enum DedicatedThread {
    /// Runs `work` on a new thread and returns what it returns (or throws what it throws).
    public static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// Runs `work`, which cannot throw, on a new thread and returns what it returns.
    public static func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    /// Waits on a new thread until `process` has ended; returns its termination status.
    @discardableResult
    public static func waitUntilExit(_ process: Process) async -> Int32 {
        await run {
            process.waitUntilExit()
            return process.terminationStatus
        }
    }
}
