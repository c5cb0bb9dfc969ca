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
        let reader = try source.open(lenient: positioning.lenient)
        let training = try positioning.readTraining()
        let setup = positioning.algorithm.setup(venue: venueValue, training: training, configuration: pipeline.configuration)
        if let choice = pipeline.choice(of: setup, units: venueValue.units.rawValue) { Terminal.error(choice) }
        let engine = LocationEngine(setup: setup, timing: pipeline.timing)

        let outbox = try outboxOptions.openOutbox()
        let client = try connection.client(defaultStream: stream)
        let connected = await connect(client)
        let (sourceName, isReplay, isLive) = try describeSource()
        let offset = await client.clockOffset ?? 0
        let acceptor = FixAcceptor(policy: policy.policy, metresPerUnit: venueValue.units.metres ?? 1, streamIds: [stream],
                                   timeShift: isLive ? offset : 0)
        let tracker = try await Tracker(outbox: outbox, acceptor: acceptor, source: sourceName, skipsDecidedFixes: isReplay)
        if tracker.hasResumed, isReplay {
            Terminal.error("Resuming the interrupted replay of \(sourceName): its first \(tracker.resumedFixes.counted("fix", "fixes")) were decided before.")
        }
        // A stream of the user's choice must exist before its events can be delivered; when the
        // server could not be asked at start, the sender asks before its first delivery.
        let preparation: (@Sendable () async throws -> Void)?
        if stream == "position" {
            preparation = nil
        } else {
            let stream = stream
            preparation = { try await client.ensureStream(stream) }
        }
        let sender = OutboxSender(outbox: outbox, client: client, preparation: preparation)
        let delivery = Task { await sender.run() }
        defer { delivery.cancel() }
        if !connected { Terminal.error("Events are queued in \(outbox.path) meanwhile.") }
        if tracker.wasFinished, isReplay, !again {
            Terminal.error("This outbox tracked \(sourceName) to its end already; nothing new to track (--again tracks it once more, as new events).")
            try await finishDelivery(tracker: tracker, sender: sender, outbox: outbox, delivery: delivery)
            return
        }

        var line = TrackStatusLine()
        var first = true
        var offsetRefreshed = Date()
        // A replay's fixes are decided 256 at a time, each lot written with one sync; live fixes
        // (and a pipe) one by one, as they come.
        let lot = isReplay ? 256 : 1
        var pending: [Fix] = []
        pending.reserveCapacity(lot)
        var fixes = engine.fixes(from: reader).makeAsyncIterator()
        while let fix = try await fixes.next() {
            if first, !isLive {
                first = false
                let mode = time ?? (fix.time >= 1e9 ? .recorded : .now)
                if mode == .now { await tracker.setTimeShift(await client.serverTime(forLocal: Date().timeIntervalSince1970) - fix.time) }
            }
            if isLive, Date().timeIntervalSince(offsetRefreshed) >= 60 {
                // Every answer re-measures the server's clock; live events follow it.
                offsetRefreshed = Date()
                if let offset = await client.clockOffset { await tracker.setTimeShift(offset) }
            }
            pending.append(fix)
            if pending.count >= lot {
                _ = try await tracker.record(contentsOf: pending)
                pending.removeAll(keepingCapacity: true)
            }
            if line.isDue { await line.draw(tracker: tracker, sender: sender, outbox: outbox) }
        }
        if !pending.isEmpty { _ = try await tracker.record(contentsOf: pending) }
        line.clear()
        try reader.recordingReader?.requireScans(toDo: "track")
        if isReplay { try await tracker.finish() }
        reader.recordingReader?.warnAboutSkippedLines()

        try await finishDelivery(tracker: tracker, sender: sender, outbox: outbox, delivery: delivery)
    }

    /// Waits up to --wait seconds for the outbox to drain, stops delivery and reports; exits 1
    /// when the server refused the token (nothing can be delivered until it is replaced).
    private func finishDelivery(tracker: Tracker, sender: OutboxSender, outbox: Outbox, delivery: Task<Void, Never>) async throws {
        let deadline = Date().addingTimeInterval(wait)
        while try await outbox.hasPendingItems(), Date() < deadline, await sender.statistics.lastError?.isTokenRefused != true {
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        delivery.cancel()
        await delivery.value
        try await summarize(tracker: tracker, sender: sender, outbox: outbox)
        if await sender.statistics.lastError?.isTokenRefused == true { throw ExitCode.failure }
    }

    /// Checks the token and measures the server's clock; says so when the server cannot be used
    /// yet (tracking goes on, and the events wait).
    private func connect(_ client: TrackingClient) async -> Bool {
        do {
            try await client.start()
            return true
        } catch let error as TrackingError {
            Terminal.error("warning: \(error)")
            return false
        } catch {
            Terminal.error("warning: \(error)")
            return false
        }
    }

    /// The name the checkpoint is kept under, whether the source is a replay that can be resumed,
    /// and whether it is live (its clock is this machine's).
    private func describeSource() throws -> (String, Bool, Bool) {
        switch try source.kind() {
        case .recording(let path) where path == "-":
            return ("stdin", false, false)
        case .recording(let path), .btsnoop(let path):
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            let size = (try? FileManager.default.attributesOfItem(atPath: absolute)[.size] as? NSNumber)?.intValue ?? 0
            return ("replay:\(absolute):\(size)", true, false)
        case .adapter(let name):
            return ("adapter:\(name)", false, true)
        }
    }

    private func summarize(tracker: Tracker, sender: OutboxSender, outbox: Outbox) async throws {
        let counts = await tracker.counts
        let statistics = await sender.statistics
        let status = try await outbox.status()
        var text = "Tracked \(counts.fixes.counted("fix", "fixes")): \(counts.accepted.counted("new event")), \(counts.extended.counted("extension"))"
        if counts.ignoredTotal > 0 {
            text += ", \(counts.ignoredTotal) ignored (" + counts.ignored.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                .joined(separator: ", ") + ")"
        }
        Terminal.error(text + ". The server took \(statistics.delivered.counted("item")).")
        if let error = statistics.lastError, status.pending > 0 { Terminal.error("Delivery stopped: \(error)") }
        Terminal.error(status.report(path: outbox.path))
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
    mutating func draw(tracker: Tracker, sender: OutboxSender, outbox: Outbox) async {
        lastDraw = Date()
        let counts = await tracker.counts
        let statistics = await sender.statistics
        if lastDraw.timeIntervalSince(lastCount) >= 1 {
            lastCount = lastDraw
            queued = (try? await outbox.status().pending) ?? queued
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
