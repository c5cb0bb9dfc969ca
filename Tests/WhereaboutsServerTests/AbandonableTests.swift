import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// The rule the store's time limit, the command line's database limit and the live relay's watch
/// share: give up on work without waiting for it to end.
@Suite("Abandoned work", .timeLimit(.minutes(5)))
struct AbandonableTests {
    struct Late: Error {}

    @Test("work past its time limit is given up at the limit, while it is still stuck and deaf to cancellation")
    func stuckWorkTimesOut() async throws {
        let gate = Gate()
        defer { gate.open() }
        let started = ContinuousClock.now
        await #expect(throws: Late.self) {
            try await Abandonable.run(within: .milliseconds(200), else: { Late() }) {
                await gate.wait()
                return 1
            }
        }
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(gate.hasArrivals && !gate.isOpen)
    }

    @Test("the time-out is what is reported, not the error the work raises when it is cancelled")
    func theTimeOutIsReported() async throws {
        // The work fails as soon as it is cancelled (as a pool's waiting request does); the
        // caller must still hear that the time ran out.
        for _ in 0..<20 {
            await #expect(throws: Late.self) {
                try await Abandonable.run(within: .milliseconds(20), else: { Late() }) {
                    try await Task.sleep(for: .seconds(3_600))
                }
            }
        }
    }

    @Test("work done in time gives its answer, or its error")
    func workInTimePassesThrough() async throws {
        #expect(try await Abandonable.run(within: .seconds(60), else: { Late() }) { 42 } == 42)
        struct Broken: Error {}
        await #expect(throws: Broken.self) {
            try await Abandonable.run(within: .seconds(60), else: { Late() }) { () async throws -> Int in throw Broken() }
        }
    }

    @Test("cancelling the caller returns at once, while the work is stuck")
    func cancellingReturnsAtOnce() async throws {
        let gate = Gate()
        defer { gate.open() }
        let caller = Task {
            try await Abandonable.run(within: .seconds(3_600), else: { Late() }) { await gate.wait() }
        }
        while !gate.hasArrivals { try await Task.sleep(for: .milliseconds(5)) }
        caller.cancel()
        let outcome = await caller.result
        #expect(!gate.isOpen)
        #expect(throws: CancellationError.self) { try outcome.get() }
    }

    @Test("a store operation past the store's limit fails with a time-out naming it")
    func timeLimitedStoreNamesTheOperation() async throws {
        let gate = Gate()
        defer { gate.open() }
        let directory = NSTemporaryDirectory() + "whereabouts-abandoned-" + AccessToken.generate()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stuck = FaultyStore(try SQLiteEventStore(directory: directory))
        stuck.stallUsers(at: gate)
        let store = TimeLimitedEventStore(stuck, limit: .milliseconds(100))
        do {
            _ = try await store.users()
            Issue.record("a stuck store answered")
        } catch StoreError.timedOut(let operation, let seconds) {
            #expect(operation == "users")
            #expect(seconds == 0.1)
        }
        #expect(!gate.isOpen)
    }

    @Test("work that a check finds stalled (the live relay's session whose connection closed) is abandoned at that check, not awaited")
    func stalledWorkIsAbandoned() async throws {
        let gate = Gate()
        defer { gate.open() }
        await #expect(throws: ListenSessionStalled.self) {
            try await Abandonable.run(checkingEvery: .milliseconds(50),
                                      abandonWhen: { gate.hasArrivals ? ListenSessionStalled() : nil }) {
                await gate.wait()
            }
        }
        // It returned while the work was still stuck.
        #expect(!gate.isOpen)
    }

    @Test("work that checks never find stalled passes on how it ended")
    func unstalledWorkEndsAsItEnded() async throws {
        try await Abandonable.run(checkingEvery: .milliseconds(10), abandonWhen: { nil }) {}
        struct Lost: Error {}
        await #expect(throws: Lost.self) {
            try await Abandonable.run(checkingEvery: .milliseconds(10), abandonWhen: { nil }) { () async throws -> Void in throw Lost() }
        }
    }
}
