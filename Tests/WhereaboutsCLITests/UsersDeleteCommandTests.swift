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

/// `whereabouts users retention` and `users purge`: a user's retention set, shown, and applied on
/// demand while a server on the same store runs.
@Suite("users retention and purge")
struct UsersRetentionCommandTests {
    @Test func badDurationsAndMixedChoicesAreRefused() {
        for arguments in [["users", "retention", "alice", "--keep", "5x"], ["users", "retention", "alice", "--keep", "1d", "--forever"],
                          ["users", "purge", "--keep", "-3"], ["serve", "--keep", "soon"],
                          ["users", "retention", "alice", "--inherit"], ["users", "retention", "alice", "--server-default", "--stream", "position"],
                          ["users", "retention", "alice", "--inherit", "--forever", "--stream", "position"]] {
            let refused = InProcessCommand.parse(arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.standardError)")
        }
        #expect(InProcessCommand.parse(["users", "retention", "alice", "--keep", "90d"]).status == 0)
    }

    @Test func aRetentionIsSetAndOlderEventsArePurgedOnDemand() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dataDir = folder.appendingPathComponent("data")
        let added = try await CommandRunner.run(["users", "add", "alice", "--data-dir", dataDir.path])
        let token = added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServerCommandTests.ServerProcess(dataDir: dataDir)
        defer { _ = server.stop(with: SIGTERM) }
        try await server.waitUntilReady()
        let url = "http://127.0.0.1:\(server.port)"
        let now = Date().timeIntervalSince1970
        for (id, age) in [("ck0old0000000000000000001", 3 * 86_400.0), ("ck0new0000000000000000001", 3_600)] {
            let body = #"{"id": "\#(id)", "streamIds": ["position"], "type": "note/txt", "content": "x", "time": \#(now - age)}"#
            let answer = try await ServerCommandTests.send("POST", url + "/events", token: token, body: body)
            #expect(answer.status == 201, "\(answer.text)")
        }
        let shown = try await CommandRunner.run(["users", "retention", "alice", "--data-dir", dataDir.path])
        #expect(shown.standardOutput.contains("alice: events kept as the server's --keep says"), "\(shown.standardOutput)")
        let set = try await CommandRunner.run(["users", "retention", "alice", "--keep", "2d", "--data-dir", dataDir.path])
        #expect(set.status == 0 && set.standardOutput.contains("alice: events kept 2 days, then purged"), "\(set.standardOutput)\(set.standardError)")
        let purged = try await CommandRunner.run(["users", "purge", "--data-dir", dataDir.path])
        #expect(purged.status == 0, "\(purged.standardError)")
        #expect(purged.standardError.contains("alice: 1 event purged.") && purged.standardError.contains("Purged 1 event of 1 user"),
                "\(purged.standardError)")
        let events = try await ServerCommandTests.send("GET", url + "/events?modifiedSince=0&includeDeletions=true", token: token).text
        #expect(events.contains("ck0new0000000000000000001"))
        // The old event is gone, and only its tombstone names it.
        let tombstones = events.range(of: "\"eventDeletions\"").map { String(events[$0.upperBound...]) } ?? ""
        let live = events.range(of: "\"eventDeletions\"").map { String(events[..<$0.lowerBound]) } ?? events
        #expect(tombstones.contains("ck0old0000000000000000001") && !live.contains("ck0old0000000000000000001"), "\(events)")
        // A stream's own limit, shown under the user's; an unknown stream named with the user's.
        let position = try await CommandRunner.run(["users", "retention", "alice", "--keep", "1d", "--stream", "position", "--data-dir", dataDir.path])
        #expect(position.status == 0 && position.standardOutput.contains("  stream position: kept 1 day, then purged"),
                "\(position.standardOutput)\(position.standardError)")
        let inherit = try await CommandRunner.run(["users", "retention", "alice", "--inherit", "--stream", "position", "--data-dir", dataDir.path])
        #expect(inherit.status == 0 && inherit.standardOutput.contains("  stream position: as its parent's, else the user's")
                && !inherit.standardOutput.contains("kept 1 day"), "\(inherit.standardOutput)\(inherit.standardError)")
        let nowhere = try await CommandRunner.run(["users", "retention", "alice", "--keep", "1d", "--stream", "nowhere", "--data-dir", dataDir.path])
        #expect(nowhere.status == 1 && nowhere.standardError.contains("alice has no stream \"nowhere\"; theirs: position"),
                "\(nowhere.standardError)")
        let unknown = try await CommandRunner.run(["users", "retention", "bob", "--keep", "1d", "--data-dir", dataDir.path])
        #expect(unknown.status == 1 && unknown.standardError.contains("There is no user \"bob\""), "\(unknown.standardError)")
    }
}

/// `whereabouts users export` and `users import`: a user moved to another data folder keeps
/// their events, ids and all; a second import is refused; an unknown user is named.
@Suite("users export and import")
struct UsersArchiveCommandTests {
    @Test func aUserMovesToAnotherStore() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = folder.appendingPathComponent("first"), second = folder.appendingPathComponent("second")
        let added = try await CommandRunner.run(["users", "add", "alice", "--data-dir", first.path])
        let token = added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServerCommandTests.ServerProcess(dataDir: first)
        try await server.waitUntilReady()
        let url = "http://127.0.0.1:\(server.port)"
        let body = #"{"id": "ck0moved000000000000000001", "streamIds": ["position"], "type": "note/txt", "content": "moved", "time": 1700000000}"#
        #expect(try await ServerCommandTests.send("POST", url + "/events", token: token, body: body).status == 201)
        _ = server.stop(with: SIGTERM)

        let archive = folder.appendingPathComponent("alice.jsonl").path
        let exported = try await CommandRunner.run(["users", "export", "alice", "-o", archive, "--data-dir", first.path])
        #expect(exported.status == 0 && exported.standardError.contains("Exported alice: 1 stream, 1 event"), "\(exported.standardError)")
        let imported = try await CommandRunner.run(["users", "import", archive, "--as", "bob", "--data-dir", second.path])
        #expect(imported.status == 0 && imported.standardError.contains("Imported 1 stream, 1 event"), "\(imported.standardError)")
        let again = try await CommandRunner.run(["users", "import", archive, "--as", "bob", "--data-dir", second.path])
        #expect(again.status == 1 && again.standardError.contains("user \"bob\" exists already"), "\(again.standardError)")
        let issued = try await CommandRunner.run(["users", "token", "bob", "--data-dir", second.path])
        let bobToken = issued.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let moved = try ServerCommandTests.ServerProcess(dataDir: second)
        defer { _ = moved.stop(with: SIGTERM) }
        try await moved.waitUntilReady()
        let events = try await ServerCommandTests.send("GET", "http://127.0.0.1:\(moved.port)/events?fromTime=0", token: bobToken).text
        #expect(events.contains("ck0moved000000000000000001") && events.contains("\"moved\""), "\(events)")

        let unknown = try await CommandRunner.run(["users", "export", "carol", "-o", archive + ".2", "--data-dir", first.path])
        #expect(unknown.status == 1 && unknown.standardError.contains("There is no user \"carol\""), "\(unknown.standardError)")
        #expect(!FileManager.default.fileExists(atPath: archive + ".2"))
    }
}

/// `whereabouts import`: an OwnTracks Recorder store and a GPX track into a user's streams, once
/// however often run; a bad record named by file and line; a folder without a history refused.
@Suite("import")
struct ImportCommandTests {
    @Test func aRecorderStoreIsImportedOnce() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dataDir = folder.appendingPathComponent("data").path
        let device = folder.appendingPathComponent("rec/jane/phone")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        let file = device.appendingPathComponent("2024-05.rec")
        try Data("""
            2024-05-01T08:00:00Z\t*                 \t{"_type":"location","tid":"jp","lat":46.5191,"lon":6.6323,"tst":1714550400,"acc":12}
            2024-05-01T08:10:00Z\t*                 \t{"_type":"location","tid":"jp","lat":46.52,"lon":6.64,"tst":1714551000}
            garbage

            """.utf8).write(to: file)
        _ = try await CommandRunner.run(["users", "add", "jane", "--data-dir", dataDir])
        let first = try await CommandRunner.run(["import", folder.appendingPathComponent("rec/jane").path, "--user", "jane", "--data-dir", dataDir])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardError.contains("\(file.path):3: not TIME<tab>TOPIC<tab>JSON"), "\(first.standardError)")
        #expect(first.standardError.contains("Imported 2 positions into jane's position from 1 OwnTracks Recorder file (0 there already"), "\(first.standardError)")
        let second = try await CommandRunner.run(["import", file.path, "--user", "jane", "--data-dir", dataDir])
        #expect(second.standardError.contains("Imported 0 positions into jane's position from 1 OwnTracks Recorder file (2 there already"), "\(second.standardError)")
        let unknown = try await CommandRunner.run(["import", file.path, "--user", "joe", "--data-dir", dataDir])
        #expect(unknown.status == 1 && unknown.standardError.contains("There is no user \"joe\""), "\(unknown.standardError)")
        let empty = InProcessCommand.parse(["import", folder.appendingPathComponent("data").path, "--user", "jane"])
        #expect(empty.status == 64 && empty.standardError.contains("holds no history to import"), "\(empty.standardError)")
        let noGPX = InProcessCommand.parse(["import", file.path, "--user", "jane", "--format", "gpx"])
        #expect(noGPX.status == 64 && noGPX.standardError.contains("holds no GPX file (*.gpx)"), "\(noGPX.standardError)")

        // A GPX track, told by its files, into another stream.
        let gpx = folder.appendingPathComponent("rides/ride.gpx")
        try FileManager.default.createDirectory(at: gpx.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("""
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="46.5" lon="6.6"><time>2024-05-02T08:00:00Z</time></trkpt>
            <trkpt lat="46.6" lon="6.7"></trkpt>
            </trkseg></trk></gpx>
            """.utf8).write(to: gpx)
        let ride = try await CommandRunner.run(["import", gpx.deletingLastPathComponent().path, "--user", "jane", "--stream", "rides",
                                                "--data-dir", dataDir])
        #expect(ride.status == 0 && ride.standardError.contains("\(gpx.path):3: a track point without a <time>")
                && ride.standardError.contains("Imported 1 position into jane's rides from 1 GPX file (0 there already, 0 other records passed over, 1 refused)"),
                "\(ride.standardError)")
    }
}
