import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer
import WhereaboutsServerTesting

/// The behaviour every ``EventStore`` must have, run against each backend.
@Suite("EventStore contract")
struct EventStoreContractTests {
    static let t0 = 1_700_000_000.0

    static func point(_ id: String, at offset: Double, streams: [String] = ["position"],
                      type: String = "position/wgs84", trashed: Bool = false, modified: Double = 500) -> Event {
        Event(id: id, streamIds: streams, time: t0 + offset, duration: 0, type: type,
              content: .object([("latitude", .number(46.5)), ("longitude", .number(6.6))]),
              trashed: trashed, created: t0 + 500, createdBy: "access-1",
              modified: t0 + modified, modifiedBy: "access-1")
    }

    static func period(_ id: String, at offset: Double, duration: Double?, streams: [String] = ["activity"]) -> Event {
        Event(id: id, streamIds: streams, time: t0 + offset, duration: duration, type: "activity/plain",
              created: t0 + 500, createdBy: "access-1", modified: t0 + 500, modifiedBy: "access-1")
    }

    // MARK: Users and accesses

    @Test(arguments: StoreKind.tested)
    func usersAreAddedOnceAndFoundByName(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            let bob = try await harness.addUser("bob", to: store)
            #expect(try await store.user(named: alice) == User(name: alice, created: 1_700_000_000))
            #expect(try await store.user(named: harness.name("carol")) == nil)
            let names = try await store.users().map(\.name)
            #expect(names.contains(alice) && names.contains(bob))
            // `users()` is ordered by name; our two names differ only after the shared prefix.
            #expect(names.firstIndex(of: alice)! < names.firstIndex(of: bob)!)
            #expect(try await store.streams(of: alice) == EventStream.defaults(at: 1_700_000_000))

            await #expect(throws: StoreError.alreadyExists("user", id: alice)) {
                try await store.addUser(User(name: alice, created: 1), streams: [])
            }
            // The refused duplicate changed nothing.
            #expect(try await store.user(named: alice)?.created == 1_700_000_000)
        }
    }

    @Test(arguments: StoreKind.tested)
    func accessesAreFoundByTokenHash(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            let hash = AccessToken.hash(AccessToken.generate())
            let access = Access(id: AccessToken.generateIdentifier(), userName: alice, name: "phone", tokenHash: hash,
                                permissions: [Permission(streamId: "position", level: .contribute),
                                              Permission(streamId: "*", level: .read)],
                                created: 1_700_000_100)
            try await store.addAccess(access)
            #expect(try await store.access(tokenHash: hash) == access)
            #expect(try await store.access(tokenHash: AccessToken.hash(AccessToken.generate())) == nil)

            var sameHash = access
            sameHash.id = AccessToken.generateIdentifier()
            await #expect(throws: StoreError.self) { try await store.addAccess(sameHash) }

            var orphan = access
            orphan.userName = harness.name("nobody")
            orphan.tokenHash = AccessToken.hash(AccessToken.generate())
            await #expect(throws: StoreError.notFound("user", id: orphan.userName)) { try await store.addAccess(orphan) }
        }
    }

    // MARK: Streams

    @Test(arguments: StoreKind.tested)
    func streamsKeepCreationOrderAndReplaceInPlace(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            let notes = EventStream(id: "notes", name: "Notes", clientData: .object([("colour", .string("red"))]),
                                    created: 10, createdBy: "a", modified: 10, modifiedBy: "a")
            let diary = EventStream(id: "diary", name: "Diary", parentId: "notes",
                                    created: 11, createdBy: "a", modified: 11, modifiedBy: "a")
            let archive = EventStream(id: "archive", name: "Archive", created: 12, createdBy: "a", modified: 12, modifiedBy: "a")
            for stream in [notes, diary, archive] { try await store.addStream(stream, for: alice) }
            // Creation order, not alphabetical: position, notes, diary, archive.
            #expect(try await store.streams(of: alice).map(\.id) == ["position", "notes", "diary", "archive"])

            var renamed = notes
            renamed.name = "Journal"
            renamed.trashed = true
            renamed.modified = 20
            try await store.replaceStream(renamed, for: alice)
            let streams = try await store.streams(of: alice)
            #expect(streams.map(\.id) == ["position", "notes", "diary", "archive"])
            #expect(streams[1] == renamed)
            #expect(streams[2] == diary)

            await #expect(throws: StoreError.alreadyExists("stream", id: "diary")) {
                try await store.addStream(diary, for: alice)
            }
            let ghost = EventStream(id: "ghost", name: "Ghost")
            await #expect(throws: StoreError.notFound("stream", id: "ghost")) {
                try await store.replaceStream(ghost, for: alice)
            }
            #expect(try await store.streams(of: alice).count == 4)
        }
    }

    // MARK: Events

    @Test(arguments: StoreKind.tested)
    func addingKeepsBatchOrderAndNeverDuplicatesAnIdentifier(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            var full = Self.point("full", at: 30)
            full.description = "lunch"
            full.tags = ["food", "café"]
            full.clientData = .object([("app", .string("x")), ("n", .number(1.25))])
            full.duration = 12.5
            let batch = [Self.point("c", at: 30), Self.point("a", at: 10), full]
            let first = try await store.addEvents(batch.map { EventWrite(event: $0) }, for: alice)
            #expect(first == batch.map(EventCreation.created))
            #expect(try await store.event(id: "full", for: alice) == full)

            // Empty text stays empty (not NULL), non-ASCII and quotes survive, a running period
            // keeps its nil duration: the values the SQLite store binds itself.
            var edge = Self.point("edge", at: 50)
            edge.description = ""
            edge.tags = [""]
            edge.content = .string("naïve \"quoted\" \u{1F6B2}\n")
            edge.duration = nil
            _ = try await store.addEvents([EventWrite(event: edge)], for: alice)
            #expect(try await store.event(id: "edge", for: alice) == edge)
            _ = try await store.removeEvent(id: "edge", for: alice)

            // "a" again with other content, a new "d", and "d" twice in the same batch.
            var changedA = Self.point("a", at: 99)
            changedA.description = "should not be stored"
            let d = Self.point("d", at: 40)
            let second = try await store.addEvents([EventWrite(event: changedA), EventWrite(event: d), EventWrite(event: d)],
                                                   for: alice)
            #expect(second == [.existing(batch[1]), .created(d), .existing(d)])
            #expect(try await store.event(id: "a", for: alice) == batch[1])

            let all = try await store.events(matching: EventQuery(sortAscending: true), for: alice)
            #expect(all.map(\.id) == ["a", "c", "full", "d"])  // times 10, 30, 30, 40; ties in insertion order
            #expect(try await store.event(id: "zzz", for: alice) == nil)
        }
    }

    @Test(arguments: StoreKind.tested)
    func concurrentCreatesOfOneIdentifierStoreOneEvent(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            let results = try await withThrowingTaskGroup(of: EventCreation.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        var event = Self.point("same", at: Double(index))
                        event.description = "writer \(index)"
                        return try await store.addEvents([EventWrite(event: event)], for: alice)[0]
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let created = results.filter { if case .created = $0 { true } else { false } }
            #expect(created.count == 1)
            // Every caller sees the one stored event.
            #expect(Set(results.map(\.event)).count == 1)
            #expect(try await store.events(matching: EventQuery(), for: alice).count == 1)
        }
    }

    @Test(arguments: StoreKind.tested)
    func replacingChangesTheStoredEvent(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            let running = Self.period("walk", at: 0, duration: nil)
            _ = try await store.addEvents([EventWrite(event: running)], for: alice)
            #expect(try await store.events(matching: EventQuery(running: true), for: alice).map(\.id) == ["walk"])

            var stopped = running
            stopped.duration = 600
            stopped.modified = Self.t0 + 700
            try await store.replaceEvent(stopped, for: alice)
            #expect(try await store.event(id: "walk", for: alice) == stopped)
            #expect(try await store.events(matching: EventQuery(running: true), for: alice).isEmpty)
            // The new end (t0 + 600) is what a range query sees.
            #expect(try await store.events(matching: EventQuery(fromTime: Self.t0 + 600), for: alice).map(\.id) == ["walk"])
            #expect(try await store.events(matching: EventQuery(fromTime: Self.t0 + 601), for: alice).isEmpty)

            await #expect(throws: StoreError.notFound("event", id: "nope")) {
                try await store.replaceEvent(Self.point("nope", at: 0), for: alice)
            }
        }
    }

    @Test(arguments: StoreKind.tested)
    func removingDeletesTheEventAndItsAttachments(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            let upload = Self.upload(id: "photo", bytes: Array(repeating: 7, count: 100))
            var event = Self.point("pic", at: 0, type: "picture/attached")
            event.attachments = [upload.attachment]
            _ = try await store.addEvents([EventWrite(event: event, uploads: [upload])], for: alice)
            #expect(try await store.attachmentData(eventId: "pic", attachmentId: "photo", for: alice) == upload.bytes())

            #expect(try await store.removeEvent(id: "pic", for: alice))
            #expect(try await store.event(id: "pic", for: alice) == nil)
            #expect(try await store.attachmentData(eventId: "pic", attachmentId: "photo", for: alice) == nil)
            #expect(try await store.removeEvent(id: "pic", for: alice) == false)

            // The identifier is free again, and the old file does not come back with it.
            var again = Self.point("pic", at: 5)
            again.attachments = []
            #expect(try await store.addEvents([EventWrite(event: again)], for: alice) == [.created(again)])
            #expect(try await store.attachmentData(eventId: "pic", attachmentId: "photo", for: alice) == nil)
        }
    }

    @Test("A spooled file is stored byte for byte; one in the store's spool folder is taken, one elsewhere left to its owner",
          arguments: StoreKind.tested)
    func spooledUploads(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            let inSpool = store.uploadSpoolDirectory + "/upload-contract-\(UUID().uuidString)"
            let elsewhere = FileManager.default.temporaryDirectory.path + "/contract-\(UUID().uuidString)"
            defer { unlink(inSpool); unlink(elsewhere) }
            let first: [UInt8] = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let second: [UInt8] = Array("second".utf8)
            #expect(FileManager.default.createFile(atPath: inSpool, contents: Data(first)))
            #expect(FileManager.default.createFile(atPath: elsewhere, contents: Data(second)))
            let uploads = [
                AttachmentUpload(attachment: Self.upload(id: "one", bytes: first).attachment, content: .spooledFile(path: inSpool)),
                AttachmentUpload(attachment: Self.upload(id: "two", bytes: second).attachment, content: .spooledFile(path: elsewhere)),
            ]
            var event = Self.point("spooled", at: 0, type: "picture/attached")
            event.attachments = uploads.map(\.attachment)
            #expect(try await store.addEvents([EventWrite(event: event, uploads: uploads)], for: alice) == [.created(event)])
            #expect(try await store.attachmentData(eventId: "spooled", attachmentId: "one", for: alice) == first)
            #expect(try await store.attachmentData(eventId: "spooled", attachmentId: "two", for: alice) == second)
            #expect(FileManager.default.fileExists(atPath: elsewhere))
            if store is SQLiteEventStore {
                #expect(!FileManager.default.fileExists(atPath: inSpool), "moved into place, not copied")
            }
        }
    }

    @Test("A repeated write never touches the stored files; a final name taken by a stray file is still written",
          arguments: StoreKind.tested)
    func attachmentNamesAreNeverReplaced(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            let original = Self.upload(id: "photo", bytes: Array(repeating: 1, count: 500))
            var event = Self.point("pic", at: 0, type: "picture/attached")
            event.attachments = [original.attachment]
            _ = try await store.addEvents([EventWrite(event: event, uploads: [original])], for: alice)
            // The same event and attachment identifier again, other bytes: the stored event wins.
            let retry = Self.upload(id: "photo", bytes: Array(repeating: 2, count: 500))
            let results = try await store.addEvents([EventWrite(event: event, uploads: [retry])], for: alice)
            #expect(results == [.existing(event)])
            #expect(try await store.attachmentData(eventId: "pic", attachmentId: "photo", for: alice) == original.bytes())

            guard let sqlite = store as? SQLiteEventStore else { return }
            // A file left at a new event's final path (by a crash before its row committed) is
            // replaced by the event's own bytes within the transaction.
            let folder = sqlite.directory + "/attachments/\(AttachmentFiles.escape(alice))/fresh"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: folder + "/photo", contents: Data([9, 9, 9])))
            let fresh = Self.upload(id: "photo", bytes: Array(repeating: 3, count: 500))
            var freshEvent = Self.point("fresh", at: 1, type: "picture/attached")
            freshEvent.attachments = [fresh.attachment]
            #expect(try await store.addEvents([EventWrite(event: freshEvent, uploads: [fresh])], for: alice) == [.created(freshEvent)])
            #expect(try await store.attachmentData(eventId: "fresh", attachmentId: "photo", for: alice) == fresh.bytes())
            #expect(try FileManager.default.contentsOfDirectory(atPath: sqlite.uploadSpoolDirectory).isEmpty)
        }
    }

    static func upload(id: String, bytes: [UInt8]) -> AttachmentUpload {
        AttachmentUpload(attachment: Attachment(id: id, fileName: "\(id).bin", type: "application/octet-stream",
                                                size: bytes.count, integrity: "sha256-test"),
                         data: bytes)
    }

    @Test(arguments: StoreKind.tested)
    func attachmentBytesRoundTrip(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            var random = SeededRandom(seed: 42)
            let big = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &random) }
            let uploads = [Self.upload(id: "all-bytes", bytes: (0...255).map(UInt8.init)),
                           Self.upload(id: "big", bytes: big),
                           Self.upload(id: "empty", bytes: []),
                           Self.upload(id: "../../escape", bytes: [1, 2, 3])]
            // An identifier with a slash and dots must stay inside the store.
            var event = Self.point("a/../b.c", at: 0, type: "picture/attached")
            event.attachments = uploads.map(\.attachment)
            _ = try await store.addEvents([EventWrite(event: event, uploads: uploads)], for: alice)
            for upload in uploads {
                #expect(try await store.attachmentData(eventId: "a/../b.c", attachmentId: upload.attachment.id,
                                                       for: alice) == upload.bytes())
            }
            #expect(try await store.event(id: "a/../b.c", for: alice)?.attachments == event.attachments)
            if let sqlite = store as? SQLiteEventStore {
                // On disk: one folder per user and event, one file per attachment, every name
                // escaped — nothing beside or above them, whatever the identifiers hold.
                let root = URL(fileURLWithPath: sqlite.directory).standardized
                let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])?
                    .compactMap { $0 as? URL }
                    .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
                    .map { String($0.standardized.path.dropFirst(root.path.count + 1)) }
                    .filter { !$0.hasPrefix("whereabouts.sqlite") } ?? []
                let folder = "attachments/\(AttachmentFiles.escape(alice))/a%2F..%2Fb.c".replacingOccurrences(of: ".", with: "%2E")
                #expect(Set(files) == Set(uploads.map { folder + "/" + AttachmentFiles.escape($0.attachment.id) }), "\(files)")
                #expect(!files.contains { $0.contains("..") || $0.contains("escape") && !$0.hasPrefix(folder) })
                #expect(!FileManager.default.fileExists(atPath: root.deletingLastPathComponent().appendingPathComponent("escape").path))
            }
            #expect(try await store.attachmentData(eventId: "a/../b.c", attachmentId: "other", for: alice) == nil)
            #expect(try await store.attachmentData(eventId: "missing", attachmentId: "big", for: alice) == nil)

            // A second create of the same identifier keeps the first files.
            let other = Self.upload(id: "big", bytes: [9, 9, 9])
            var duplicate = event
            duplicate.attachments = [other.attachment]
            let result = try await store.addEvents([EventWrite(event: duplicate, uploads: [other])], for: alice)
            #expect(result == [.existing(event)])
            #expect(try await store.attachmentData(eventId: "a/../b.c", attachmentId: "big", for: alice) == big)

            // Replacing the event without an attachment drops it.
            var fewer = event
            fewer.attachments.removeAll { $0.id == "empty" }
            try await store.replaceEvent(fewer, for: alice)
            #expect(try await store.attachmentData(eventId: "a/../b.c", attachmentId: "empty", for: alice) == nil)
            #expect(try await store.attachmentData(eventId: "a/../b.c", attachmentId: "big", for: alice) == big)
        }
    }

    // MARK: Queries

    /// Times are offsets from t0. `long` runs 50…150, `run` started at 10 and goes on, `old`
    /// ran −1000…−990; `trash` is trashed; `mod` was changed last (modified at 1000).
    static let querySet: [Event] = [
        point("p1", at: 100),
        point("p2", at: 200, streams: ["notes"], type: "note/txt"),
        point("p3", at: 300, streams: ["position", "notes"], type: "picture/attached"),
        period("long", at: 50, duration: 100),
        period("run", at: 10, duration: nil),
        period("old", at: -1000, duration: 10),
        point("trash", at: 160, trashed: true),
        point("mod", at: 400, modified: 1000),
    ]

    static let queryCases: [(EventQuery, [String])] = [
        // Overlap with 140…250: p1 ended at 100 (out), long ends at 150 (in), run still going (in).
        (EventQuery(fromTime: t0 + 140, toTime: t0 + 250), ["p2", "long", "run"]),
        (EventQuery(fromTime: t0 + 140, toTime: t0 + 250, state: .all), ["p2", "trash", "long", "run"]),
        (EventQuery(fromTime: t0 + 140, toTime: t0 + 250, state: .trashed), ["trash"]),
        // Both bounds inclusive: long ends exactly at 150, p1 starts exactly at 100.
        (EventQuery(fromTime: t0 + 150, toTime: t0 + 150), ["long", "run"]),
        (EventQuery(fromTime: t0 + 100, toTime: t0 + 100), ["p1", "long", "run"]),
        (EventQuery(toTime: t0 + 60), ["long", "run", "old"]),
        (EventQuery(fromTime: t0 + 1000), ["run"]),
        (EventQuery(fromTime: t0 - 995, toTime: t0 - 995), ["old"]),
        (EventQuery(streamIds: ["notes"]), ["p3", "p2"]),
        (EventQuery(streamIds: ["notes"], sortAscending: true), ["p2", "p3"]),
        (EventQuery(streamIds: ["activity", "nothing"], sortAscending: true), ["old", "run", "long"]),
        (EventQuery(streamIds: []), []),
        (EventQuery(types: ["note/txt"], typeClasses: ["activity"]), ["p2", "long", "run", "old"]),
        (EventQuery(types: ["picture/attached", "position/wgs84"]), ["mod", "p3", "p1"]),
        (EventQuery(typeClasses: ["position"]), ["mod", "p1"]),
        (EventQuery(running: true), ["run"]),
        (EventQuery(running: false, sortAscending: true), ["old", "long", "p1", "p2", "p3", "mod"]),
        (EventQuery(skip: 1, limit: 2), ["p3", "p2"]),
        (EventQuery(sortAscending: true, skip: 5), ["p3", "mod"]),
        (EventQuery(limit: 0), []),
        (EventQuery(modifiedSince: t0 + 600), ["mod"]),
        (EventQuery(fromTime: t0 + 140, toTime: t0 + 250, streamIds: ["activity"], running: false), ["long"]),
    ]

    @Test(arguments: StoreKind.tested)
    func queriesReturnWhatMatchesSaysInOrder(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            _ = try await store.addEvents(Self.querySet.map { EventWrite(event: $0) }, for: alice)
            for (query, expected) in Self.queryCases {
                let found = try await store.events(matching: query, for: alice)
                #expect(found.map(\.id) == expected, "\(query)")
                // The same answer from the model's own predicate over the set.
                var reference = Self.querySet.filter(query.matches)
                reference.sort { query.sortAscending ? $0.time < $1.time : $0.time > $1.time }
                let window = Array(reference.dropFirst(query.skip).prefix(query.limit ?? .max))
                #expect(found == window, "\(query)")
            }
        }
    }

    // MARK: Isolation and lifetime

    @Test(arguments: StoreKind.tested)
    func usersNeverSeeEachOthersData(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let alice = try await harness.addUser("alice", to: store)
            let bob = try await harness.addUser("bob", to: store)
            let upload = Self.upload(id: "file", bytes: [1, 2, 3])
            var event = Self.point("shared-id", at: 0)
            event.attachments = [upload.attachment]
            _ = try await store.addEvents([EventWrite(event: event, uploads: [upload])], for: alice)
            try await store.addStream(EventStream(id: "secret", name: "Secret"), for: alice)

            #expect(try await store.events(matching: EventQuery(state: .all), for: bob).isEmpty)
            #expect(try await store.event(id: "shared-id", for: bob) == nil)
            #expect(try await store.attachmentData(eventId: "shared-id", attachmentId: "file", for: bob) == nil)
            #expect(try await store.streams(of: bob).map(\.id) == ["position"])
            #expect(try await store.removeEvent(id: "shared-id", for: bob) == false)
            await #expect(throws: StoreError.notFound("event", id: "shared-id")) {
                try await store.replaceEvent(event, for: bob)
            }
            await #expect(throws: StoreError.notFound("stream", id: "secret")) {
                try await store.replaceStream(EventStream(id: "secret", name: "Mine"), for: bob)
            }

            // Bob may use the same identifiers; each user keeps their own.
            let bobs = Self.point("shared-id", at: 50)
            #expect(try await store.addEvents([EventWrite(event: bobs)], for: bob) == [.created(bobs)])
            try await store.addStream(EventStream(id: "secret", name: "Bob's"), for: bob)
            #expect(try await store.event(id: "shared-id", for: alice) == event)
            #expect(try await store.event(id: "shared-id", for: bob) == bobs)
            #expect(try await store.streams(of: alice).first { $0.id == "secret" }?.name == "Secret")
            #expect(try await store.attachmentData(eventId: "shared-id", attachmentId: "file", for: alice) == [1, 2, 3])

            await #expect(throws: StoreError.notFound("user", id: harness.name("nobody"))) {
                _ = try await store.addEvents([EventWrite(event: bobs)], for: harness.name("nobody"))
            }
        }
    }

    @Test(arguments: StoreKind.tested)
    func migratingAgainAndReopeningKeepEverything(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        defer { harness.cleanUp() }
        let store = try await harness.open()
        let alice = try await harness.addUser("alice", to: store)
        let upload = Self.upload(id: "file", bytes: [4, 5, 6])
        var event = Self.point("kept", at: 0)
        event.attachments = [upload.attachment]
        _ = try await store.addEvents([EventWrite(event: event, uploads: [upload])], for: alice)
        try await store.migrate()
        try await store.migrate()
        #expect(try await store.event(id: "kept", for: alice) == event)
        try await store.close()

        let reopened = try await harness.open()
        #expect(try await reopened.user(named: alice) != nil)
        #expect(try await reopened.event(id: "kept", for: alice) == event)
        #expect(try await reopened.attachmentData(eventId: "kept", attachmentId: "file", for: alice) == [4, 5, 6])
        #expect(try await reopened.streams(of: alice).map(\.id) == ["position"])
        try await reopened.close()
    }
}

/// What only the SQLite store can show: its query plans.
@Suite("SQLite store")
struct SQLiteEventStoreTests {
    @Test func rangeQueriesUseAnIndexInBothHalves() async throws {
        let store = try SQLiteEventStore(directory: NSTemporaryDirectory() + "whereabouts-plan-" + AccessToken.generate())
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        try await store.migrate()
        let plan = try await store.queryPlan(
            for: EventQuery(fromTime: 1_700_000_000, toTime: 1_700_086_400, streamIds: ["position"]), userName: "alice")
        let scans = plan.filter { $0.hasPrefix("SCAN") || $0.hasPrefix("SEARCH") }
        // One SEARCH per half: starts in range, and periods still going at fromTime.
        #expect(scans.contains { $0.contains("events USING INDEX events_user_time") }, "\(plan)")
        #expect(scans.contains { $0.contains("events USING INDEX events_user_period_end") }, "\(plan)")
        #expect(!scans.contains { $0.hasPrefix("SCAN events") }, "\(plan)")
        try await store.close()
    }
}

/// What only the PostgreSQL store can show: its connections' settings.
@Suite("PostgreSQL store")
struct PostgresEventStoreTests {
    @Test("PostgreSQL statements time out after 30 s, a migration aside", .needsPostgreSQL)
    func postgresStatementTimeout() async throws {
        let harness = StoreHarness(.postgres)
        try await harness.run { store in
            let postgres = try #require(store as? PostgresEventStore)
            #expect(try await postgres.setting("statement_timeout") == "30s")
        }
    }
}

/// Reading `postgres://` URLs, and what a bad one says.
@Suite("PostgreSQL URL")
struct PostgresURLTests {
    @Test func readsEveryPart() throws {
        let url = try PostgresURL("postgresql://who%40ever:p%3Ass@db.example.org:6543/events?sslmode=require")
        #expect(url == PostgresURL.expected(host: "db.example.org", port: 6543, username: "who@ever",
                                            password: "p:ss", database: "events", sslMode: .require))
        let plain = try PostgresURL("postgres://whereabouts@127.0.0.1/whereabouts_test?sslmode=disable")
        #expect(plain == PostgresURL.expected(host: "127.0.0.1", port: 5432, username: "whereabouts",
                                              password: nil, database: "whereabouts_test", sslMode: .disable))
        #expect(try PostgresURL("postgres://u:p@[::1]:5432/d").host == "::1")
        #expect(try PostgresURL("postgres://u:p@h/d").sslMode == .prefer)
    }

    @Test(arguments: [
        ("mysql://u:p@h/d", "postgres:// or postgresql://"),
        ("postgres://u:p@h:5432/", "names no database"),
        ("postgres://h:5432/d", "no user name"),
        ("postgres://u:p@h:70000/d", "port 70000"),
        ("postgres://u:p@h/d?sslmode=sometimes", "sslmode \"sometimes\""),
        ("postgres://u:p@h/d?timeout=3", "parameter \"timeout\""),
        ("postgres://u:p@/d", "no host"),
    ])
    func namesWhatIsWrong(url: String, expected: String) {
        do {
            _ = try PostgresURL(url)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
            #expect(!error.description.contains(":p@"), "the message shows the password: \(error)")
        }
    }

    @Test func storeInitRejectsABadURL() {
        #expect(throws: PostgresURLError.self) { _ = try PostgresEventStore(url: "postgres://nobody") }
    }
}

extension PostgresURL {
    static func expected(host: String, port: Int, username: String, password: String?, database: String,
                         sslMode: SSLMode) -> PostgresURL? {
        try? PostgresURL("postgres://placeholder@h/d").with {
            $0.host = host; $0.port = port; $0.username = username; $0.password = password
            $0.database = database; $0.sslMode = sslMode
        }
    }

    func with(_ change: (inout PostgresURL) -> Void) -> PostgresURL {
        var copy = self
        change(&copy)
        return copy
    }
}

/// An acknowledged write survives the process being killed (`kill -9`): a child process (this
/// test binary, running only ``SQLiteCrashTests/childWritesUntilKilled()``) adds events and
/// prints each acknowledgement; the parent kills it mid-stream and reopens the store.
@Suite("SQLite store crash")
struct SQLiteCrashTests {
    static let childDirectoryVariable = "WHEREABOUTS_CRASH_CHILD_DIRECTORY"

    @Test func acknowledgedEventsSurviveKillMinus9() async throws {
        let directory = NSTemporaryDirectory() + "whereabouts-crash-" + AccessToken.generate()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let setup = try SQLiteEventStore(directory: directory)
        try await setup.migrate()
        try await setup.addUser(User(name: "alice", created: 0), streams: EventStream.defaults(at: 0))
        try await setup.close()

        let childTest = try ChildTestProcess(filter: "childWritesUntilKilled", environment: [Self.childDirectoryVariable: directory])
        let child = childTest.process
        let output = childTest.output

        // Read acknowledgements until 300 have arrived, then kill the child without warning (on a
        // thread of its own: the reads block until the child writes).
        let reader = output.fileHandleForReading
        let acknowledged = await DedicatedThread.run { () -> [String] in
            var acknowledged: [String] = []
            var pending = ""
            let deadline = Date().addingTimeInterval(120)
            while acknowledged.count < 300, Date() < deadline {
                let chunk = reader.availableData
                if chunk.isEmpty { break }  // the child ended
                pending += String(decoding: chunk, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = pending[..<newline]
                    if line.hasPrefix("acked ") { acknowledged.append(String(line.dropFirst(6))) }
                    pending = String(pending[pending.index(after: newline)...])
                }
            }
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            // Lines already in the pipe were acknowledged before the kill too.
            pending += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
            for line in pending.split(separator: "\n") where line.hasPrefix("acked ") {
                acknowledged.append(String(line.dropFirst(6)))
            }
            return acknowledged
        }
        try #require(acknowledged.count >= 300, "the child acknowledged only \(acknowledged.count) events")
        #expect(child.terminationReason == .uncaughtSignal)

        let reopened = try SQLiteEventStore(directory: directory)
        try await reopened.migrate()
        let stored = Set(try await reopened.events(matching: EventQuery(), for: "alice").map(\.id))
        let lost = acknowledged.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "acknowledged but lost: \(lost.prefix(10))")
        for id in acknowledged.suffix(3) {
            #expect(try await reopened.attachmentData(eventId: id, attachmentId: "file", for: "alice") == Array(id.utf8))
        }
        try await reopened.close()
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment[childDirectoryVariable] != nil,
                   "the child half of the crash test: runs only in the process that test starts and kills"))
    func childWritesUntilKilled() async throws {
        let directory = try #require(ProcessInfo.processInfo.environment[Self.childDirectoryVariable])
        let store = try SQLiteEventStore(directory: directory)
        try await store.migrate()
        // Four writers at once, so that the writes are committed in groups.
        try await withThrowingTaskGroup(of: Void.self) { writers in
            for writer in 0..<4 {
                writers.addTask {
                    for index in stride(from: writer, to: 1_000_000, by: 4) {
                        let id = "e\(index)"
                        let upload = EventStoreContractTests.upload(id: "file", bytes: Array(id.utf8))
                        var event = EventStoreContractTests.point(id, at: Double(index))
                        event.attachments = [upload.attachment]
                        _ = try await store.addEvents([EventWrite(event: event, uploads: [upload])], for: "alice")
                        FileHandle.standardOutput.write(Data("acked \(id)\n".utf8))  // unbuffered
                    }
                }
            }
            try await writers.waitForAll()
        }
    }
}
