import Foundation
import GRDB
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Writes that arrive while a group is being committed go together in the next one; each is
/// acknowledged only after its group's commit, with its own result.
@Suite("Group commit")
struct GroupCommitTests {
    /// A commit that records each group and, for the first, waits until released.
    private final class RecordingCommit: Sendable {
        let groups = LockedValue<[[Int]]>([])
        let firstStarted = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()

        func commit(_ group: [Int]) async -> [Result<Int, any Error>] {
            let isFirst = groups.withValue { groups in
                groups.append(group)
                return groups.count == 1
            }
            if isFirst {
                firstStarted.continuation.yield()
                for await _ in release.stream { break }
            }
            return group.map { $0 < 0 ? .failure(StoreError.notFound("user", id: "\($0)")) : .success($0 * 10) }
        }
    }

    @Test func writesThatArriveDuringACommitGoTogetherInTheNext() async throws {
        let recorder = RecordingCommit()
        let commits = GroupCommit<Int, Int>(limits: .init(writes: 100, weight: 1_000), weight: { _ in 1 }) { group in
            await recorder.commit(group)
        }
        try await withThrowingTaskGroup(of: (Int, Int?).self) { tasks in
            tasks.addTask { (0, try await commits.submit(0)) }
            for await _ in recorder.firstStarted.stream { break }
            // The first group is being committed: these wait, then go together.
            for value in [1, 2, -3, 4, 5] {
                tasks.addTask { (value, try? await commits.submit(value)) }
            }
            while commits.waitingCount < 5 { await Task.yield() }
            #expect(recorder.groups.value.count == 1)
            recorder.release.continuation.yield()
            var results: [Int: Int?] = [:]
            for try await (value, output) in tasks { results[value] = output }
            #expect(results == [0: 0, 1: 10, 2: 20, -3: nil, 4: 40, 5: 50])
        }
        #expect(recorder.groups.value.count == 2)
        #expect(recorder.groups.value.last.map(Set.init) == [1, 2, -3, 4, 5])
        #expect(commits.groupsCommitted == 2)
    }

    @Test func groupsStayWithinTheirLimits() async throws {
        let recorder = RecordingCommit()
        let commits = GroupCommit<Int, Int>(limits: .init(writes: 3, weight: 10), weight: { $0 }) { group in
            await recorder.commit(group)
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { _ = try await commits.submit(1) }
            for await _ in recorder.firstStarted.stream { break }
            // Queued one after the other, so that they wait in this order.
            for (offset, value) in [1, 1, 1, 1, 6, 5, 20, 1].enumerated() {
                tasks.addTask { _ = try await commits.submit(value) }
                while commits.waitingCount < offset + 1 { await Task.yield() }
            }
            recorder.release.continuation.yield()
            try await tasks.waitForAll()
        }
        let later = Array(recorder.groups.value.dropFirst())
        // At most 3 writes and a weight of 10 a group; a write heavier than that goes alone.
        #expect(later == [[1, 1, 1], [1, 6], [5], [20], [1]])
    }

    /// A durable SQLite store in a folder of its own (to remove), with the user alice.
    private static func storeOfAlice() async throws -> (store: SQLiteEventStore, directory: String) {
        let directory = NSTemporaryDirectory() + "whereabouts-group-" + AccessToken.generate()
        let store = try SQLiteEventStore(directory: directory, durability: .full)
        try await store.migrate()
        try await store.addUser(User(name: "alice", created: 0), streams: EventStream.defaults(at: 0))
        return (store, directory)
    }

    @Test func concurrentCallsToTheSQLiteStoreFailAlone() async throws {
        let (store, directory) = try await Self.storeOfAlice()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let calls = 40
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { tasks in
            for index in 0..<calls {
                tasks.addTask {
                    // Every fifth call names a user that does not exist.
                    let user = index % 5 == 4 ? "nobody" : "alice"
                    let events = (0..<3).map { EventStoreContractTests.point("c\(index)e\($0)", at: Double(index * 3 + $0)) }
                    let created = try? await store.addEvents(events.map { EventWrite(event: $0) }, for: user)
                    return (index, created?.count == 3)
                }
            }
            var outcomes: [Int: Bool] = [:]
            for await (index, ok) in tasks { outcomes[index] = ok }
            return outcomes
        }
        for index in 0..<calls { #expect(outcomes[index] == (index % 5 != 4), "call \(index)") }
        let stored = Set(try await store.events(matching: EventQuery(limit: 1_000), for: "alice").map(\.id))
        let expected = Set((0..<calls).filter { $0 % 5 != 4 }.flatMap { index in (0..<3).map { "c\(index)e\($0)" } })
        #expect(stored == expected)
        try await store.close()
    }

    /// What the calls above rely on when a group mixes them, made certain: one group of six
    /// calls, two naming a user that does not exist, committed in one transaction. Each failing
    /// call fails alone (its savepoint rolled back); the other four are stored.
    @Test func aFailingCallInAGroupLeavesTheOthersCommitted() async throws {
        let (store, directory) = try await Self.storeOfAlice()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let group = (0..<6).map { index -> SQLiteEventStore.EventInsert in
            let user = index % 3 == 1 ? "nobody" : "alice"
            let events = (0..<3).map { EventStoreContractTests.point("g\(index)e\($0)", at: Double(index * 3 + $0)) }
            return SQLiteEventStore.EventInsert(userName: user, writes: events.map { EventWrite(event: $0) },
                                                placed: events.map { _ in [] }, rows: events.map(SQLiteEventStore.EventInsert.row(of:)))
        }
        let outcomes = await SQLiteEventStore.insert(group, into: store.pool, files: store.files)
        #expect(outcomes.map { (try? $0.get())?.results.count } == [3, nil, 3, 3, nil, 3])
        let stored = Set(try await store.events(matching: EventQuery(limit: 1_000), for: "alice").map(\.id))
        #expect(stored == Set([0, 2, 3, 5].flatMap { index in (0..<3).map { "g\(index)e\($0)" } }))
        try await store.close()
    }
}

/// The transaction and savepoints of a group commit, made of statements kept prepared.
@Suite struct GroupCommitTransactionTests {
    static func rows(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY name")
    }

    @Test func aCallThatFailsHalfWayLeavesNothingAndTheOthersCommit() throws {
        struct Failure: Error {}
        let queue = try DatabaseQueue()
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE t (name TEXT NOT NULL)")
            try SQLiteEventStore.inTransaction(db) {
                try SQLiteEventStore.inCallSavepoint(db) { try db.execute(sql: "INSERT INTO t VALUES ('a')") }
                // Inserts one row, then fails: its row is rolled back, the transaction goes on.
                var failed = false
                do {
                    try SQLiteEventStore.inCallSavepoint(db) { () throws -> Void in
                        try db.execute(sql: "INSERT INTO t VALUES ('b')")
                        throw Failure()
                    }
                } catch is Failure {
                    failed = true
                }
                #expect(failed)
                #expect(db.isInsideTransaction)
                try SQLiteEventStore.inCallSavepoint(db) { try db.execute(sql: "INSERT INTO t VALUES ('c')") }
            }
            #expect(!db.isInsideTransaction)
            #expect(try Self.rows(db) == ["a", "c"])
            // A transaction whose body fails is rolled back whole.
            do {
                try SQLiteEventStore.inTransaction(db) { () throws -> Void in
                    try db.execute(sql: "INSERT INTO t VALUES ('d')")
                    throw Failure()
                }
                Issue.record("the failing transaction did not throw")
            } catch is Failure {}
            #expect(!db.isInsideTransaction)
            #expect(try Self.rows(db) == ["a", "c"])
        }
    }
}
