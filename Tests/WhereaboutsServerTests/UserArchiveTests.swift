import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// `users export` → `users import`: a user moved into a store of the other kind keeps every
/// stream, event (all fields) and attachment byte; a second import is refused.
@Suite("User archive")
struct UserArchiveTests {
    typealias Contract = EventStoreContractTests

    /// A user with a stream tree, events of every kind and attachments, and a retention.
    static func fill(_ user: String, in store: any EventStore) async throws {
        try await store.setRetention(90 * 86_400, for: user)
        try await store.setRetention(30 * 86_400, for: user, stream: "position")
        try await store.addStream(EventStream(id: "diary", name: "Diary", clientData: .object([("color", .string("red"))]),
                                              created: Contract.t0, createdBy: "a", modified: Contract.t0 + 1, modifiedBy: "b"), for: user)
        try await store.addStream(EventStream(id: "diary-work", name: "Work", parentId: "diary", trashed: true,
                                              created: Contract.t0, createdBy: "a", modified: Contract.t0, modifiedBy: "a"), for: user)
        let photo = Contract.upload(id: "photo", bytes: (0...255).map(UInt8.init) + Array(repeating: 0, count: 70_000))
        let empty = Contract.upload(id: "empty", bytes: [])
        var picture = Contract.point("picture", at: 3, streams: ["diary"], type: "picture/attached")
        picture.attachments = [photo.attachment, empty.attachment]
        picture.description = "The view"
        var note = Contract.point("note", at: 1, streams: ["diary-work", "diary"], type: "note/txt")
        note.content = .string("é ✓ \"quoted\"\n")
        note.tags = ["a", "b"]
        note.clientData = .object([("app", .object([("n", .number(1.5))]))])
        var trashed = Contract.point("trashed", at: 2)
        trashed.trashed = true
        _ = try await store.addEvents([EventWrite(event: Contract.point("position", at: 0)), EventWrite(event: note),
                                       EventWrite(event: trashed), EventWrite(event: picture, uploads: [photo, empty]),
                                       EventWrite(event: Contract.period("running", at: 4, duration: nil)),
                                       EventWrite(event: Contract.period("walk", at: 5, duration: 600))], for: user)
        try await store.setRetention(.infinity, for: user, stream: "diary")
        _ = try await UserAdministration(store: store).issueToken(for: user, name: "phone", permissions: [Permission(streamId: "diary", level: .read)])
    }

    static func export(_ user: String, from store: any EventStore) async throws -> (lines: [String], counts: UserArchive.Counts) {
        let lines = LockedValue<[String]>([])
        let counts = try await UserArchive.export(user: user, from: store, now: 0) { line in lines.withValue { $0.append(line) } }
        return (lines.value.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }, counts)
    }

    @Test(arguments: [(StoreKind.sqlite, StoreKind.postgres), (.postgres, .sqlite)].filter { StoreKind.tested.contains($0.0) && StoreKind.tested.contains($0.1) }
          + [(StoreKind.sqlite, StoreKind.sqlite)])
    func aUserMovesToAnotherStoreWithEverythingAsItWas(from: StoreKind, to: StoreKind) async throws {
        let source = StoreHarness(from), target = StoreHarness(to)
        let sourceStore = try await source.open(), targetStore = try await target.open()
        defer { source.cleanUp(); target.cleanUp() }
        let alice = try await source.addUser("alice", to: sourceStore)
        try await Self.fill(alice, in: sourceStore)
        let (lines, exported) = try await Self.export(alice, from: sourceStore)
        #expect(exported == UserArchive.Counts(streams: 3, accesses: 1, events: 6, attachments: 2, attachmentBytes: 70_256))

        let moved = target.name("moved")
        let imported = try await UserArchive.importArchive(lines, into: targetStore, as: moved)
        #expect(imported == exported)
        #expect(try await targetStore.retention(of: moved) == 90 * 86_400)
        #expect(try await targetStore.streamRetentions(of: moved) == ["position": 30 * 86_400, "diary": .infinity])
        #expect(try await targetStore.user(named: moved)?.created == 1_700_000_000)
        #expect(try await targetStore.streams(of: moved) == sourceStore.streams(of: alice))
        let all = EventQuery(sortAscending: true, state: .all)
        let before = try await sourceStore.events(matching: all, for: alice), after = try await targetStore.events(matching: all, for: moved)
        #expect(after == before)
        #expect(after.count == 6)
        for (eventId, attachmentId) in [("picture", "photo"), ("picture", "empty")] {
            let original = try await sourceStore.attachmentData(eventId: eventId, attachmentId: attachmentId, for: alice)
            #expect(try await targetStore.attachmentData(eventId: eventId, attachmentId: attachmentId, for: moved) == original)
        }
        #expect(try await targetStore.accesses(of: moved).isEmpty)   // tokens are not in the file
        // The moved user's own export is the same file but for the header.
        #expect(try await Self.export(moved, from: targetStore).lines.dropFirst().filter { !$0.hasPrefix(#"{"access""#) }
                == lines.dropFirst().filter { !$0.hasPrefix(#"{"access""#) })
        // Again: refused, nothing changed.
        await #expect(throws: UserArchive.ArchiveError.userExists(moved)) {
            _ = try await UserArchive.importArchive(lines, into: targetStore, as: moved)
        }
        #expect(try await targetStore.events(matching: all, for: moved).count == 6)
        _ = try await sourceStore.removeUser(named: alice)
        _ = try await targetStore.removeUser(named: moved)
        try await sourceStore.close()
        try await targetStore.close()
    }

    /// JSON has no infinity: a user kept for ever is archived as `"forever"` and stays so.
    @Test func aUserKeptForEverStaysSo() async throws {
        let harness = StoreHarness(.sqlite)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            try await store.setRetention(.infinity, for: alice)
            let (lines, _) = try await Self.export(alice, from: store)
            #expect(lines.first?.contains(#""retention":"forever""#) == true, "\(lines.first ?? "")")
            _ = try await UserArchive.importArchive(lines, into: store, as: harness.name("copy"))
            #expect(try await store.retention(of: harness.name("copy")) == .infinity)
        }
    }

    @Test func aFileThatIsNotAnArchiveIsRefusedByItsLine() async throws {
        let harness = StoreHarness(.sqlite)
        try await harness.run { store in
            await #expect(throws: UserArchive.ArchiveError.notAnArchive("its first line has no \"format\": \"whereabouts-user-archive\"")) {
                _ = try await UserArchive.importArchive([#"{"t": 1, "readings": []}"#], into: store)
            }
            let header = #"{"format":"whereabouts-user-archive","version":1,"user":"\#(harness.name("bad"))","created":1,"retention":null,"exported":2}"#
            await #expect(throws: UserArchive.ArchiveError.badLine(2, "neither a stream, an access nor an event")) {
                _ = try await UserArchive.importArchive([header, #"{"something": 1}"#], into: store)
            }
            await #expect(throws: UserArchive.ArchiveError.notAnArchive("version 2, this server reads 1")) {
                _ = try await UserArchive.importArchive([header.replacingOccurrences(of: #""version":1"#, with: #""version":2"#)], into: store)
            }
        }
    }
}
