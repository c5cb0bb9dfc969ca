import Foundation
import Testing
import Whereabouts
import WhereaboutsServerTesting

/// The helper that the tests waiting on child processes use: blocking work waits on threads of
/// its own, so the concurrency pool keeps running other tasks however many such waits there are.
@Suite struct DedicatedThreadTests {
    /// One blocked wait more than the pool has threads, while this test's own task runs on the
    /// pool to see them all begin and then release them: were the waits on the pool, it could
    /// not run until they gave up (after 30 s), and they would say so.
    @Test func blockedWaitsLeaveThePoolFree() async throws {
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        let release = DispatchSemaphore(value: 0)
        let started = LockedValue(0)
        let waits = (0..<count).map { _ in
            Task {
                await DedicatedThread.run { () -> Bool in
                    started.withValue { $0 += 1 }
                    return release.wait(timeout: .now() + 30) == .success
                }
            }
        }
        while started.value < count { try await Task.sleep(for: .milliseconds(1)) }
        for _ in 0..<count { release.signal() }
        var released = 0
        for wait in waits where await wait.value { released += 1 }
        #expect(released == count, "\(count - released) waits gave up before the pool ran a task")
    }

    /// What the work throws reaches the caller; what it returns too.
    @Test func resultsAndErrorsComeBack() async throws {
        struct Refused: Error {}
        #expect(try await DedicatedThread.run { () throws -> Int in 42 } == 42)
        await #expect(throws: Refused.self) { try await DedicatedThread.run { () throws -> Int in throw Refused() } }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 3"]
        try process.run()
        #expect(await DedicatedThread.waitUntilExit(process) == 3)
    }
}
