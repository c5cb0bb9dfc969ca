import Foundation
import Testing
@testable import WhereaboutsServer

@Suite("SQLite store: attachment files")
struct SQLiteAttachmentFilesTests {
    @Test("opening the store removes staged files a crash left behind, but not ones being staged now")
    func staleStagedFilesAreRemoved() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("whereabouts-staged-\(AccessToken.generateIdentifier())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let incoming = directory + "/attachments/.incoming"
        try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true)
        let stale = incoming + "/stale", fresh = incoming + "/fresh"
        #expect(FileManager.default.createFile(atPath: stale, contents: Data([1, 2, 3])))
        #expect(FileManager.default.createFile(atPath: fresh, contents: Data([4])))
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: stale)

        let store = try SQLiteEventStore(directory: directory)
        try await store.migrate()
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: fresh))
        try await store.close()
    }
}

/// `--durability full` does what it says: the connection that commits runs with
/// `synchronous = FULL` (GRDB's WAL set-up had put it back to NORMAL), `normal` with NORMAL.
@Suite("SQLite durability")
struct SQLiteDurabilityTests {
    @Test(arguments: [(Durability.normal, 1), (Durability.full, 2)])
    func theCommittingConnectionHasTheSynchronousModeAsked(durability: Durability, expected: Int) async throws {
        let directory = NSTemporaryDirectory() + "whereabouts-durability-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteEventStore(directory: directory, durability: durability)
        try await store.migrate()
        #expect(try await store.synchronousSetting() == expected)
        try await store.close()
        // Reopened: the same.
        let reopened = try SQLiteEventStore(directory: directory, durability: durability)
        #expect(try await reopened.synchronousSetting() == expected)
        try await reopened.close()
    }
}
