// A Linux gateway in one file: sightings (a recording, a btsnoop capture or a live adapter) →
// positions → the acceptance policy → a durable outbox → a Whereabouts server.
//
//   swift run GatewayExample --server http://127.0.0.1:8080 --token TOKEN
//   swift run GatewayExample --btsnoop capture.log --venue venue.json --server … --token …
//   swift run GatewayExample --adapter hci0 --venue venue.json --server … --token …
//
// `whereabouts track` is the full-featured version of the same chain.

import ArgumentParser
import Foundation
import Whereabouts
import WhereaboutsBluetooth
import WhereaboutsTracking

@main
struct GatewayExample: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "GatewayExample",
        abstract: "Locate beacon sightings and keep the track on a Whereabouts server.")

    @Option(help: "The venue.") var venue = "Examples/venue.json"
    @Option(help: "A recording to replay (the default source).") var recording = "Examples/visit.jsonl"
    @Option(help: "A btsnoop capture to replay instead.") var btsnoop: String?
    @Option(help: "A Bluetooth adapter to scan live instead (Linux, CAP_NET_RAW and CAP_NET_ADMIN).") var adapter: String?
    @Option(help: "The server.") var server = ProcessInfo.processInfo.environment["WHEREABOUTS_SERVER"] ?? "http://127.0.0.1:8080"
    @Option(help: "The access token (default: $WHEREABOUTS_TOKEN).") var token = ProcessInfo.processInfo.environment["WHEREABOUTS_TOKEN"] ?? ""
    @Option(help: "The outbox: events wait here until the server has them.") var outbox = "gateway-outbox.sqlite"
    @Option(help: "Seconds to wait at the end for the server to take what waits.") var wait: Double = 30

    func run() async throws {
        let venue = try VenueFile.read(from: URL(fileURLWithPath: venue))
        let engine = LocationEngine(configuration: .init(venue: venue))

        // Every accepted fix is in the outbox, synced to disk, before `record` returns.
        let outbox = try Outbox(path: outbox)
        let acceptor = FixAcceptor(policy: AcceptancePolicy(), metresPerUnit: venue.units.metres ?? 1)
        let tracker = try await Tracker(outbox: outbox, acceptor: acceptor, source: "gateway")
        // The sender delivers in the background, in order, and retries while the server is away.
        let client = try TrackingClient(server: server, token: token)
        let sender = OutboxSender(outbox: outbox, client: client)
        let delivery = Task { await sender.run() }

        var fixes = 0
        func track<Scans: AsyncSequence>(_ scans: Scans) async throws where Scans.Element == Scan {
            for try await fix in engine.fixes(from: scans) {
                let decision = try await tracker.record(fix)
                fixes += 1
                if case .accepted(let event) = decision {
                    print("\(Int(fix.time))  \(event.id)  ±\((fix.accuracy * 10).rounded() / 10) m")
                }
            }
        }
        if let adapter {
            try await track(HCIScanner(configuration: .init(adapter: adapter)))
        } else if let btsnoop {
            try await track(BTSnoopReplay(url: URL(fileURLWithPath: btsnoop)))
        } else {
            try await track(RecordingReader(url: URL(fileURLWithPath: recording)))
        }
        try await tracker.finish()

        let deadline = Date().addingTimeInterval(wait)
        while try await outbox.hasPendingItems(), Date() < deadline { try await Task.sleep(nanoseconds: 100_000_000) }
        delivery.cancel()
        await delivery.value
        let status = try await outbox.status()
        let counts = await tracker.counts
        print("\(fixes) fixes, \(counts.accepted) events, \(counts.extended) extended; \(status.pending) waiting, \(status.failed) refused")
        if status.pending > 0 { throw ExitCode.failure }
    }
}
