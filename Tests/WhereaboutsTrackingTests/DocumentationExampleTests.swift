import Foundation
import Testing
import Whereabouts
import WhereaboutsServer
import WhereaboutsServerTesting
@testable import WhereaboutsTracking

@Suite("Documentation/Tracking.md")
struct DocumentationExampleTests {
    /// The package's root folder, where the bundled example lives.
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("The library example tracks the bundled visit to a server and leaves the outbox empty")
    func libraryExample() async throws {
        try await LocalServer.with { server in
            let token = try await server.addUser("docs")
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let venueURL = Self.packageRoot.appendingPathComponent("Examples/venue.json")
            let visitURL = Self.packageRoot.appendingPathComponent("Examples/visit.jsonl")

            // As in Documentation/Tracking.md, "The library".
            let venue = try VenueFile.read(from: venueURL)
            let engine = LocationEngine(configuration: .init(venue: venue, algorithm: .default))
            let outbox = try Outbox(path: temporary.path)
            let client = try TrackingClient(server: server.url, token: token)
            try await client.start()
            let tracker = try await Tracker(
                outbox: outbox,
                acceptor: FixAcceptor(policy: AcceptancePolicy(maximumAccuracy: 80),
                                      metresPerUnit: venue.units.metres ?? 1, streamIds: ["position"]),
                source: "replay:visit.jsonl", skipsDecidedFixes: true)
            let sender = OutboxSender(outbox: outbox, client: client)
            let delivery = Task { await sender.run() }
            var accepted: [String] = [], extended = 0, ignored = 0
            for try await fix in engine.fixes(from: try RecordingReader(url: visitURL)) {
                switch try await tracker.record(fix) {
                case .accepted(let event): accepted.append(event.id)
                case .extended: extended += 1
                case .ignored: ignored += 1
                }
            }
            try await tracker.finish()
            delivery.cancel()
            try await sender.deliverPending()

            #expect(accepted.count > 5 && extended > 400 && accepted.count + extended + ignored == 625)
            #expect(try await outbox.status().isEmpty)
            let stored = try await server.events(of: "docs")
            #expect(Set(stored.map(\.id)) == Set(accepted))
            #expect(stored.allSatisfy { $0.type == "position/wgs84" })
            // The durations add up to the visit, less the gaps between events.
            let covered = stored.reduce(0) { $0 + ($1.duration ?? 0) }
            #expect(covered > 500 && covered < 625)
        }
    }
}
