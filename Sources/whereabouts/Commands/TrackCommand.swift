import ArgumentParser
import Foundation
import Whereabouts
import WhereaboutsTracking

/// `whereabouts track`
struct TrackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Locate sightings and keep the track on a server: fixes → acceptance policy → outbox → server.",
        discussion: HelpText.fitting("""
        Each fix goes through the acceptance policy: fixes at 0/0 and fixes whose accuracy is above \
        --max-accuracy are ignored; a fix within its accuracy plus --min-distance of the device's \
        last event extends that event's duration; any other fix starts a new event, at most once \
        every --min-interval seconds. Events and duration updates are written to the outbox \
        (synced to disk) before they count, and delivered from there in order, in batches; while \
        the server is unreachable they wait and are sent when it answers again, so nothing is lost \
        to an outage or a crash. A replay that is interrupted (killed, power cut) and started \
        again with the same recording carries on where it stopped, with the same events.

        Positions are `position/wgs84` events (latitude, longitude, horizontalAccuracy in metres) \
        when the venue has an origin, `position/local` events (x, y, accuracy in venue units) \
        otherwise; the device, floor and method are in clientData.whereabouts. Event times are the \
        server's: live scans are shifted by the offset to the server's clock; a replay keeps its \
        recorded times (--time recorded, the default for times after 2001) or is moved to the \
        present (--time now, the default for recordings that count seconds from 0).

        A line on standard error shows fixes, accepted, extended, ignored, queued and delivered; \
        at the end of a replay the command waits up to --wait seconds for the server to take \
        what is queued, then says what is left (`whereabouts sync` delivers it later).

        Examples:
          export WHEREABOUTS_TOKEN=…   # from `whereabouts users add NAME`
          whereabouts track --venue Examples/venue.json \\
              --recording Examples/visit.jsonl
          whereabouts track --venue venue.json --adapter hci0 \\
              --server https://home.example:8443 --stream phone
          whereabouts track --venue venue.json --recording walk.jsonl \\
              --min-interval 60 --max-accuracy 20 --outbox ./outbox.sqlite
        """)
    )

    @OptionGroup(title: "Positioning") var positioning: PositioningOptions

    @OptionGroup(title: "Source") var source: SightingSourceOptions

    @OptionGroup(title: "Fix pipeline") var pipeline: PipelineOptions

    @OptionGroup(title: "Server and outbox") var connection: ServerConnectionOptions

    @OptionGroup(title: "Server and outbox") var outboxOptions: OutboxOptions

    @Option(name: .long, help: ArgumentHelp("The stream positions go to (created when missing and the token may).", valueName: "id"))
    var stream: String = "position"

    @OptionGroup(title: "Acceptance policy") var policy: AcceptancePolicyOptions

    @Option(name: .long, help: ArgumentHelp(
        "The times of a replay's events: as recorded, or moved so that its first fix is now (default: recorded for times after 2001, now otherwise).",
        valueName: "recorded|now"))
    var time: ReplayTime?

    @Option(name: .long, help: ArgumentHelp(
        "At the end of a replay, wait up to this many seconds for the server to take what is queued.", valueName: "seconds"))
    var wait: Double = 10

    @Flag(name: .long, help: "Track a replay that this outbox already tracked to its end once more (new events).")
    var again = false

    /// The times of a replay's events.
    enum ReplayTime: String, CaseIterable, ExpressibleByArgument {
        /// The recording's own times.
        case recorded
        /// Moved so that the first fix is the present.
        case now
    }

    func validate() throws {
        if pipeline.smooth, source.adapter != nil {
            throw ValidationError("--smooth needs a recording or a capture: it waits for each track to end, and a live scan has no end (--lag S smooths live scans S seconds late).")
        }
        if !(wait.isFinite && wait >= 0) { throw ValidationError("--wait must be a number of seconds, 0 or more.") }
        if stream.isEmpty || stream.utf8.count > 100 { throw ValidationError("--stream must be a stream id of 1 to 100 characters.") }
    }

    func run() async throws {
        let venueValue = try positioning.venue.read()
        let reader = try source.open(lenient: positioning.recordings.lenient)
        let training = try positioning.readTraining()
        let setup = positioning.algorithm.setup(venue: venueValue, training: training, configuration: pipeline.configuration)
        if let choice = pipeline.choice(of: setup, units: venueValue.units.rawValue) { Terminal.error(choice) }
        var fixes = FixPipeline(setup: setup, timing: pipeline.timing)

        let outbox = try outboxOptions.openOutbox()
        let client = try connection.client(defaultStream: stream)
        let startError = await connect(client)
        let identity = try sourceIdentity()
        // A stream of the user's choice must exist before its events can be delivered; when the
        // server could not be asked at start, the sender asks before its first delivery.
        let preparation: (@Sendable () async throws -> Void)?
        if stream == "position" {
            preparation = nil
        } else {
            let stream = stream
            preparation = { try await client.ensureStream(stream) }
        }
        let run = try await TrackingRun(
            outbox: outbox, client: client,
            acceptor: FixAcceptor(policy: policy.policy, metresPerUnit: venueValue.units.metres ?? 1, streamIds: [stream]),
            source: identity, timeBase: timeBase(of: identity), preparation: preparation)
        let resumption = run.resumption
        if resumption.hasCheckpoint, identity.skipsDecidedFixes {
            Terminal.error("Resuming the interrupted replay of \(identity.checkpointName): its first \(resumption.decidedFixes.counted("fix", "fixes")) were decided before.")
        }
        await run.startDelivery()
        let destination = await run.destination.map(\.description) ?? client.server
        if startError != nil { Terminal.error("Events are queued in \(run.outboxPath) for \(destination) meanwhile.") }
        if resumption.wasFinished, identity.skipsDecidedFixes, !again {
            Terminal.error("\(identity.checkpointName) was tracked to its end for \(destination) already; nothing new to track (--again tracks it once more, as new events).")
            try await finishDelivery(run, tokenRefused: startError?.isTokenRefused == true)
            return
        }

        var line = TrackStatusLine()
        // A live source (an adapter, a pipe) is read as it comes and runs on the clock between
        // scans, so that each fix (a --lag one too) is on its way while the source stays open.
        var timeline = ScanTimeline(source: reader)
        try await timeline.run(&fixes) { due in
            for fix in due { try await run.record(fix) }
            if line.isDue { await line.draw(run) }
        }
        try await run.flush()
        line.clear()
        try reader.recordingReader?.requireScans(toDo: "track")
        reader.recordingReader?.warnAboutSkippedLines()

        try await finishDelivery(run, tokenRefused: startError?.isTokenRefused == true)
    }

    /// Finishes the run (a replay marked tracked to its end), waits up to --wait seconds for the
    /// outbox to drain, stops delivery and reports; exits 1 when the server refused the token, at
    /// the start or in delivery (nothing can be delivered until it is replaced).
    private func finishDelivery(_ run: TrackingRun, tokenRefused: Bool) async throws {
        let report = try await run.finish(waitingUpTo: .seconds(wait))
        try await summarize(run, report)
        let refusedInDelivery = report.lastError?.isTokenRefused == true
        if tokenRefused || refusedInDelivery { throw ExitCode.failure }
    }

    /// Checks the token and measures the server's clock; says so when the server cannot be used
    /// yet (tracking goes on, and the events wait). Returns the error, if any.
    private func connect(_ client: TrackingClient) async -> TrackingError? {
        do {
            try await client.start()
            return nil
        } catch let error as TrackingError {
            Terminal.error("warning: \(error)")
            return error
        } catch {
            Terminal.error("warning: \(error)")
            return .unreachable(server: client.server, reason: "\(error)")
        }
    }

    /// The source as the run knows it: a replay by its file (resumable), a live adapter, or
    /// standard input.
    private func sourceIdentity() throws -> SourceIdentity {
        switch try source.kind() {
        case .recording(let path) where path == "-": .standardInput
        case .recording(let path), .btsnoop(let path): .replay(ofFile: path)
        case .adapter(let name): .adapter(name)
        }
    }

    /// Live scans are on this machine's clock; anything else is dated as --time says.
    private func timeBase(of identity: SourceIdentity) -> TimeBase {
        if case .adapter = identity { return .live(refresh: .seconds(60)) }
        switch time {
        case .recorded?: return .recorded
        case .now?: return .now
        case nil: return .automatic
        }
    }

    private func summarize(_ run: TrackingRun, _ report: DeliveryReport) async throws {
        let counts = await run.counts
        let statistics = await run.statistics
        let status = try await run.outboxStatus()
        var text = "Tracked \(counts.fixes.counted("fix", "fixes")): \(counts.accepted.counted("new event")), \(counts.extended.counted("extension"))"
        if counts.ignoredTotal > 0 {
            text += ", \(counts.ignoredTotal) ignored (" + counts.ignored.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                .joined(separator: ", ") + ")"
        }
        Terminal.error(text + ". The server took \(statistics.delivered.counted("item")).")
        if let error = statistics.lastError, status.pending > 0 { Terminal.error("Delivery stopped: \(error)") }
        Terminal.error(status.report(path: run.outboxPath, destination: await run.destination))
        if status.pending > 0 { Terminal.error("`whereabouts sync` delivers them (the same --server, --token and --outbox).") }
    }
}

/// The live line of `track`: fixes, decisions, queue and delivery, redrawn at most ten times a
/// second on a terminal.
struct TrackStatusLine {
    private let enabled = Terminal.standardErrorIsTerminal
    private var lastDraw = Date.distantPast
    /// The queue's length, counted at most once a second (a count over a large backlog costs).
    private var queued = 0
    private var lastCount = Date.distantPast

    /// Whether a redraw is due.
    var isDue: Bool { enabled && Date().timeIntervalSince(lastDraw) >= 0.1 }

    /// Redraws the line.
    mutating func draw(_ run: TrackingRun) async {
        lastDraw = Date()
        let counts = await run.counts
        let statistics = await run.statistics
        if lastDraw.timeIntervalSince(lastCount) >= 1 {
            lastCount = lastDraw
            queued = (try? await run.outboxStatus().pending) ?? queued
        }
        var text = "tracking: \(counts.fixes.counted("fix", "fixes")) · \(counts.accepted) accepted · \(counts.extended) extended · "
            + "\(counts.ignoredTotal) ignored · \(queued) queued · \(statistics.delivered) delivered"
        if let error = statistics.lastError { text += " · " + String(error.description.prefix(80)) }
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(text)".utf8))
    }

    /// Clears the line.
    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
