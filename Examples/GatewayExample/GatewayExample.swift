// A Linux gateway in one file: sightings (a recording, a btsnoop capture or a live adapter) →
// positions → the acceptance policy → a durable outbox → a Whereabouts server.
//
//   swift run GatewayExample --server http://127.0.0.1:8080 --token TOKEN
//   swift run GatewayExample --btsnoop capture.log --venue venue.json --server … --token …
//   swift run GatewayExample --adapter hci0 --venue venue.json --server … --token …
//
// `whereabouts track` is the full-featured version of the same chain; both keep their outbox in
// the same place (Outbox.defaultPath, outside the working copy), so a replay that one tracked is
// resumed by the other rather than sent twice.

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
    @Option(help: "A recording to replay (the default source; \"-\" reads standard input as it comes).") var recording = "Examples/visit.jsonl"
    @Option(help: "A btsnoop capture to replay instead.") var btsnoop: String?
    @Option(help: "A Bluetooth adapter to scan live instead (Linux, CAP_NET_RAW and CAP_NET_ADMIN).") var adapter: String?
    @Option(help: "The server.") var server = ProcessInfo.processInfo.environment["WHEREABOUTS_SERVER"] ?? "http://127.0.0.1:8080"
    @Option(help: "The access token (default: $WHEREABOUTS_TOKEN).") var token = ProcessInfo.processInfo.environment["WHEREABOUTS_TOKEN"] ?? ""
    @Option(help: "The outbox: events wait here until the server has them (default: `whereabouts track`'s).")
    var outbox = Outbox.defaultPath
    @Flag(help: "Send a replay that this outbox tracked to its end once more, as new events.") var again = false
    @Option(help: "Seconds to wait at the end for the server to take what waits.") var wait: Double = 30

    func run() async throws {
        let venue = try VenueFile.read(from: URL(fileURLWithPath: venue))

        // The run owns the chain: the acceptance policy, the durable outbox (every accepted fix is
        // on disk before it counts), and the sender that delivers in the background, in order,
        // retrying while the server is away. A replay is decided in lots of 256; a live scan
        // fix by fix, each delivered as it comes.
        let source: SourceIdentity = if let adapter {
            .adapter(adapter)
        } else if btsnoop == nil, recording == "-" {
            .standardInput
        } else {
            .replay(ofFile: btsnoop ?? recording)
        }
        let client = try TrackingClient(server: server, token: token)
        _ = try? await client.start()   // measures the server's clock; the sender retries if it is away
        let run = try await TrackingRun(
            outbox: try Outbox(path: outbox), client: client,
            acceptor: FixAcceptor(policy: AcceptancePolicy(), metresPerUnit: venue.units.metres ?? 1),
            source: source, timeBase: adapter == nil ? .automatic : .live(refresh: .seconds(60)))
        await run.startDelivery()
        let name = btsnoop ?? recording
        if run.resumption.wasFinished, source.skipsDecidedFixes, !again {
            // Tracked to its end already (by this example or `whereabouts track`): the server has
            // its events, or they wait in the outbox; sending it again would store it twice.
            print("\(name) was tracked to its end with the outbox \(outbox) already; nothing new to send (--again sends it once more, as new events).")
        } else {
            if run.resumption.hasCheckpoint, source.skipsDecidedFixes {
                print("Resuming \(name) where it stopped: its first \(run.resumption.decidedFixes) fixes were decided before.")
            }
            try await replay(into: run, venue: venue)
        }

        // Marks the replay tracked to its end and waits, woken by the sender, until the server
        // has everything or `--wait` has passed.
        let report = try await run.finish(waitingUpTo: .seconds(wait))
        let counts = await run.counts
        print("\(counts.accepted) events, \(counts.extended) extended; \(report.pending) waiting, \(report.refused) refused")
        for refusal in report.refusals { print("refused \(refusal.eventId): \(refusal.errorId) \(refusal.message)") }
        if report.pending > 0 { throw ExitCode.failure }
    }

    /// Locates every sighting of the source and records each fix in the run.
    private func replay(into run: TrackingRun, venue: Venue) async throws {
        // The same source `whereabouts track` opens: a recording (a pipe or standard input read
        // live), a capture, or an adapter scanned live.
        let source: ScanSource = if let adapter {
            try ScanSource.adapter(.init(adapter: adapter))
        } else if let btsnoop {
            try ScanSource.capture(atPath: btsnoop)
        } else {
            try ScanSource.recording(atPath: recording)
        }
        var pipeline = FixPipeline(setup: LocationEngine.Configuration(venue: venue).makeSetup(), timing: .immediate)
        var fixes = 0
        func show(_ decided: [TrackingRun.DecidedFix]) {
            for item in decided {
                guard case .accepted(let event) = item.decision else { continue }
                print("\(Int(item.fix.time))  \(event.id)  ±\((item.fix.accuracy * 10).rounded() / 10) m")
            }
        }
        // A live source runs on the clock between scans, so each fix is on its way as it comes.
        var timeline = ScanTimeline(source: source)
        try await timeline.run(&pipeline) { due in
            for fix in due {
                show(try await run.record(fix))
                fixes += 1
            }
        }
        show(try await run.flush())
        print("\(fixes) fixes")
    }
}
