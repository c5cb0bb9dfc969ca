import Foundation
import Testing

/// `whereabouts users delete`: refused without --yes; with it, the user's events, files and
/// tokens go while a server on the same store runs, and the user's token stops working there.
@Suite("users delete")
struct UsersDeleteCommandTests {
    @Test func withoutYesNothingIsErased() {
        let refused = InProcessCommand.parse(["users", "delete", "alice"])
        #expect(refused.status == 64)
        #expect(refused.standardError.contains("cannot be undone: give --yes"), "\(refused.standardError)")
        #expect(InProcessCommand.parse(["users", "delete", "alice", "--yes"]).status == 0)
    }

    @Test func aDeletedUsersTokenStopsOnARunningServer() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dataDir = folder.appendingPathComponent("data")
        var tokens: [String: String] = [:]
        for user in ["alice", "bob"] {
            let added = try await CommandRunner.run(["users", "add", user, "--data-dir", dataDir.path])
            #expect(added.status == 0, "\(added.standardError)")
            tokens[user] = added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let server = try ServerCommandTests.ServerProcess(dataDir: dataDir)
        defer { _ = server.stop(with: SIGTERM) }
        try await server.waitUntilReady()
        let url = "http://127.0.0.1:\(server.port)"
        let event = #"{"streamIds": ["position"], "type": "note/txt", "content": "erase me"}"#
        for user in ["alice", "bob"] {
            #expect(try await ServerCommandTests.send("POST", url + "/events", token: tokens[user], body: event).status == 201)
        }

        let deleted = try await CommandRunner.run(["users", "delete", "alice", "--yes", "--data-dir", dataDir.path])
        #expect(deleted.status == 0, "\(deleted.standardError)")
        #expect(deleted.standardError.contains("Erased alice: 1 event, 1 stream, 1 token, 0 tombstones."), "\(deleted.standardError)")
        // The server caches a token's access for a second at most.
        var status = 0
        let deadline = ContinuousClock.now + .seconds(30)
        repeat {
            status = try await ServerCommandTests.send("GET", url + "/events", token: tokens["alice"]).status
            if status != 200 { break }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        #expect(status == 401 || status == 403, "alice's token still answered \(status)")
        #expect(try await ServerCommandTests.send("GET", url + "/events", token: tokens["bob"]).text.contains("erase me"))

        let again = try await CommandRunner.run(["users", "delete", "alice", "--yes", "--data-dir", dataDir.path])
        #expect(again.status == 1 && again.standardError.contains("There is no user \"alice\""), "\(again.standardError)")
        #expect(!FileManager.default.fileExists(atPath: dataDir.appendingPathComponent("attachments/alice").path))
    }
}
