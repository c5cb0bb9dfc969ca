import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Moving in from OwnTracks Recorder: every location of a store becomes a position event once,
/// however often imported; other messages are passed over; bad lines are named and skipped.
@Suite("OwnTracks Recorder import")
struct OwnTracksRecorderImportTests {
    /// A Recorder store: `rec/jane/phone/2024-05.rec` and `rec/jane/tablet/2024-06.rec`.
    static func makeStore() throws -> String {
        let root = NSTemporaryDirectory() + "whereabouts-owntracks-" + UUID().uuidString
        let phone = """
            2024-05-01T08:00:00Z\t*                 \t{"_type":"location","tid":"jp","lat":46.5191,"lon":6.6323,"tst":1714550400,"acc":12,"alt":380,"vel":18,"cog":90,"batt":81}
            2024-05-01T08:05:00Z\t*                 \t{"_type":"transition","event":"enter","desc":"home","tst":1714550700}
            2024-05-01T08:10:00Z\t*                 \t{"_type":"location","tid":"jp","lat":46.5200,"lon":6.6400,"tst":1714551000,"acc":8}
            this is not a Recorder line
            2024-05-01T08:20:00Z\t*                 \t{"_type":"location","tid":"jp","lon":6.6400,"tst":1714551600}
            2024-05-01T08:30:00Z\t*                 \t{"_type":"location", "lat":
            """
        let tablet = """
            2024-06-02T10:00:00Z\t*                 \t{"_type":"location","tid":"jt","lat":47.3769,"lon":8.5417,"tst":1717322400,"acc":30}

            """
        for (folder, name, text) in [("phone", "2024-05.rec", phone), ("tablet", "2024-06.rec", tablet)] {
            let directory = root + "/rec/jane/" + folder
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        return root
    }

    @Test(arguments: StoreKind.tested)
    func eachLocationOnceOtherMessagesPassedOverBadLinesNamed(kind: StoreKind) async throws {
        let root = try Self.makeStore()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let jane = try await harness.addUser("jane", to: store)
            let report = try await OwnTracksRecorderImport.run(at: root + "/rec/jane", into: store, user: jane, stream: "owntracks")
            #expect(report.files == 2 && report.imported == 3 && report.existing == 0 && report.otherMessages == 1)
            let phoneFile = root + "/rec/jane/phone/2024-05.rec"
            #expect(report.refused == 3)
            #expect(report.refusals.map(\.line) == [4, 5, 6] && report.refusals.allSatisfy { $0.file == phoneFile })
            #expect(report.refusals[0].reason.contains("TIME<tab>TOPIC<tab>JSON"))
            #expect(report.refusals[1].reason.contains("`lat` and `lon`"), "\(report.refusals[1])")
            #expect(report.refusals[2].reason.contains("does not parse"))

            let events = try await store.events(matching: EventQuery(sortAscending: true), for: jane)
            #expect(events.map(\.time) == [1_714_550_400, 1_714_551_000, 1_717_322_400])
            #expect(events.allSatisfy { $0.streamIds == ["owntracks"] && $0.type == "position/wgs84" })
            let first = try #require(events.first)
            #expect(first.content?["horizontalAccuracy"] == .number(12) && first.content?["altitude"] == .number(380))
            #expect(first.content?["speed"] == .number(5) && first.content?["bearing"] == .number(90))
            #expect(first.clientData?["owntracks"]?["device"] == .string("phone"))
            #expect(events.last?.clientData?["owntracks"]?["device"] == .string("tablet"))
            #expect(try await store.streams(of: jane).contains { $0.id == "owntracks" })

            // Again: nothing new.
            let again = try await OwnTracksRecorderImport.run(at: root + "/rec/jane", into: store, user: jane, stream: "owntracks")
            #expect(again.imported == 0 && again.existing == 3)
            #expect(try await store.events(matching: EventQuery(), for: jane).count == 3)
            // One file alone: its location is the same event (same device, time and fix), there already.
            let one = try await OwnTracksRecorderImport.run(at: root + "/rec/jane/tablet/2024-06.rec", into: store, user: jane)
            #expect(one.files == 1 && one.imported == 0 && one.existing == 1)
            await #expect(throws: StoreError.notFound("user", id: harness.name("nobody"))) {
                _ = try await OwnTracksRecorderImport.run(at: root, into: store, user: harness.name("nobody"))
            }
        }
    }
}
