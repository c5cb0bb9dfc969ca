import Foundation
import GRDB
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Erasing a user (`whereabouts users delete`): every event, attachment, stream, token and
/// tombstone goes, on both stores; another user's stay; and in SQLite's files nothing of the
/// erased user is left for a reader to find.
@Suite("User erasure")
struct UserErasureTests {
    typealias Contract = EventStoreContractTests

    /// A user's data, each part marked with `marker` so that its bytes can be searched for.
    static func fill(_ user: String, marker: String, in store: any EventStore) async throws -> (token: String, attachment: [UInt8]) {
        try await store.addStream(EventStream(id: "diary-\(marker)", name: "Diary \(marker)", created: Contract.t0, createdBy: "system",
                                              modified: Contract.t0, modifiedBy: "system"), for: user)
        let token = try await UserAdministration(store: store).issueToken(
            for: user, name: "phone-\(marker)", permissions: [Permission(streamId: "position", level: .contribute)])
        let attachment = Array(repeating: Array("ATTACHMENT-\(marker);".utf8), count: 500).flatMap { $0 }
        let upload = Contract.upload(id: "photo-\(marker)", bytes: attachment)
        var picture = Contract.point("picture-\(marker)", at: 1, streams: ["diary-\(marker)"], type: "picture/attached")
        picture.attachments = [upload.attachment]
        var note = Contract.point("note-\(marker)", at: 2, streams: ["diary-\(marker)"], type: "note/txt")
        note.content = .string("A note of \(marker)")
        let results = try await store.addEvents([EventWrite(event: Contract.point("position-\(marker)", at: 0)),
                                                 EventWrite(event: picture, uploads: [upload]),
                                                 EventWrite(event: note),
                                                 EventWrite(event: Contract.point("gone-\(marker)", at: 3))], for: user)
        #expect(results.count == 4)
        #expect(try await store.removeEvent(id: "gone-\(marker)", for: user))     // a tombstone
        return (token, attachment)
    }

    @Test(arguments: StoreKind.tested)
    func erasingAUserLeavesNothingOfThemAndEverythingOfOthers(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        let store = try await harness.open()
        defer { harness.cleanUp() }
        let alice = try await harness.addUser("alice", to: store)
        let bob = try await harness.addUser("bob", to: store)
        let aliceMarker = "erased\(UUID().uuidString.prefix(8))", bobMarker = "kept\(UUID().uuidString.prefix(8))"
        let (aliceToken, aliceBytes) = try await Self.fill(alice, marker: aliceMarker, in: store)
        let (bobToken, bobBytes) = try await Self.fill(bob, marker: bobMarker, in: store)

        // Both users' pages written into SQLite's main file first, as a long-running store has
        // them (not only in its log).
        if let sqlite = store as? SQLiteEventStore { _ = try await sqlite.pool.writeWithoutTransaction { try $0.checkpoint(.truncate) } }

        let removal = try #require(try await store.removeUser(named: alice))
        #expect(removal.events == 3 && removal.deletions == 1 && removal.streams == 2 && removal.accesses == 1)
        #expect(removal.tokenHashes == [AccessToken.hash(aliceToken)])
        #expect(try await store.removeUser(named: alice) == nil)

        // Nothing of alice through the store.
        #expect(try await store.user(named: alice) == nil)
        #expect(try await store.access(tokenHash: AccessToken.hash(aliceToken)) == nil)
        #expect(try await store.accesses(of: alice).isEmpty)
        #expect(try await store.streams(of: alice).isEmpty)
        #expect(try await store.events(matching: EventQuery(state: .all), for: alice).isEmpty)
        #expect(try await store.eventDeletions(of: alice, since: 0, after: nil, limit: 100).isEmpty)
        #expect(try await store.attachmentData(eventId: "picture-\(aliceMarker)", attachmentId: "photo-\(aliceMarker)", for: alice) == nil)
        // Everything of bob.
        #expect(try await store.events(matching: EventQuery(state: .all), for: bob).count == 3)
        #expect(try await store.access(tokenHash: AccessToken.hash(bobToken)) != nil)
        #expect(try await store.attachmentData(eventId: "picture-\(bobMarker)", attachmentId: "photo-\(bobMarker)", for: bob) == bobBytes)
        #expect(try await store.eventDeletions(of: bob, since: 0, after: nil, limit: 100).count == 1)
        // A name erased can be a new user again, with nothing of the old one.
        try await store.addUser(User(name: alice, created: Contract.t0), streams: EventStream.defaults(at: Contract.t0))
        #expect(try await store.events(matching: EventQuery(state: .all), for: alice).isEmpty)
        _ = try await store.removeUser(named: alice)

        let sqlite = store as? SQLiteEventStore
        try await store.close()
        guard let directory = sqlite?.directory else { return }
        // The store's files, searched byte for byte: the database, its log, the attachments.
        let files = Self.files(under: directory)
        #expect(files.contains { $0.hasSuffix(SQLiteEventStore.databaseFileName) })
        func found(_ needle: [UInt8]) -> [String] {
            files.filter { path in (FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []).contains(needle) }
        }
        for needle in [aliceMarker, alice, AccessToken.hash(aliceToken)] {
            #expect(found(Array(needle.utf8)).isEmpty, "\(needle) is still in \(found(Array(needle.utf8)))")
        }
        #expect(found(Array(aliceBytes.prefix(64))).isEmpty)
        // The search does find what is there: bob's marker, name and attachment bytes.
        #expect(!found(Array(bobMarker.utf8)).isEmpty && !found(Array(bob.utf8)).isEmpty && !found(Array(bobBytes.prefix(64))).isEmpty)
    }

    /// Every file under `directory`, recursively.
    /// Pryv's account deletion: only the account's own personal token may erase it; its tokens
    /// stop at once; another user keeps everything.
    @Test(arguments: StoreKind.tested)
    func theAccountsPersonalTokenDeletesItThroughPryvsRoute(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (alice, aliceToken) = try await server.addUser("alice")
            let (bob, bobToken) = try await server.addUser("bob")
            for (token, id) in [(aliceToken, "ck0alice00000000000000001"), (bobToken, "ck0bob0000000000000000001")] {
                let created = try await server.request(.POST, "/events", token: token, json: positionEvent(id: id, time: 1_700_000_000,
                                                                                                         latitude: 46.5, longitude: 6.6))
                #expect(created.status == 201, "\(created.text)")
            }
            let app = try await server.token(for: alice, [Permission(streamId: Permission.allStreams, level: .manage)])
            // An app's token, another user's personal one, a personal token for another account: 403.
            for (token, user) in [(app, alice), (bobToken, alice), (aliceToken, bob)] {
                let refused = try await server.request(.DELETE, "/users/\(user)", token: token)
                #expect(refused.status == 403 && refused.errorId == "invalid-access-token", "\(refused.text)")
            }
            #expect(try await server.request(.DELETE, "/users/\(alice)").status == 401)
            let deleted = try await server.request(.DELETE, "/users/\(alice)", token: aliceToken)
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(deleted.json["userDeletion"] == .object([("username", .string(alice))]))
            // Her tokens stop at once (this server forgot them), the app's too.
            for token in [aliceToken, app] {
                #expect(try await server.request(.GET, "/events", token: token).status == 401)
            }
            #expect(try await server.store.user(named: alice) == nil)
            #expect(try await server.store.accesses(of: alice).isEmpty)
            let bobs = try await server.request(.GET, "/events", token: bobToken)
            #expect(bobs.status == 200 && bobs.text.contains("ck0bob0000000000000000001"))
            // Under the user's path, as Pryv's clients ask.
            #expect(try await server.request(.DELETE, "/\(bob)/users/\(bob)", token: bobToken).status == 200)
            #expect(try await server.store.user(named: bob) == nil)
        }
    }

    static func files(under directory: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        return walker.compactMap { $0 as? String }.map { directory + "/" + $0 }.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }
}

extension [UInt8] {
    /// Whether `needle` occurs in these bytes.
    func contains(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        let first = needle[0]
        var index = 0
        while let start = self[index...].firstIndex(of: first), start + needle.count <= count {
            if self[start..<(start + needle.count)].elementsEqual(needle) { return true }
            index = start + 1
        }
        return false
    }
}
