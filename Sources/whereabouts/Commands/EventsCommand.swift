import ArgumentParser
import Foundation
import Whereabouts
import WhereaboutsTracking

/// `whereabouts events`
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Read events back from the server: a time range, a stream.",
        discussion: HelpText.fitting("""
        Without --from and --to, the last 24 hours (server time); without --stream, every stream \
        the token may read. Oldest first, at most --limit events. Times are ISO 8601 \
        (2026-11-21T08:00:00Z, or a date alone) or seconds since 1970. The text output has one \
        line an event: its time, duration, type, streams and a summary of its content; --json \
        writes the events as the API gives them, one JSON object a line.

        Examples (the token in $WHEREABOUTS_TOKEN, or --token):
          whereabouts events
          whereabouts events --from 2026-11-20 --to 2026-11-21 --stream phone
          whereabouts events --json | head
        """)
    )

    @OptionGroup var connection: ServerConnectionOptions

    @Option(name: .long, help: ArgumentHelp("The start of the range (default: 24 h before --to).", valueName: "time"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("The end of the range (default: now).", valueName: "time"))
    var to: String?

    @Option(name: .long, help: ArgumentHelp("Only this stream and its children.", valueName: "id"))
    var stream: String?

    @Option(name: .long, help: ArgumentHelp("Only this type (class/format; repeatable).", valueName: "type"))
    var type: [String] = []

    @Option(name: .long, help: ArgumentHelp("At most this many events (1 to 100,000).", valueName: "n"))
    var limit: Int = 1_000

    @Flag(name: .long, help: "Write JSON, one event a line.")
    var json = false

    func validate() throws {
        if let from { _ = try TimeArgument.seconds(from, option: "--from") }
        if let to { _ = try TimeArgument.seconds(to, option: "--to") }
        if !(1...100_000).contains(limit) { throw ValidationError("--limit must lie in 1...100000.") }
    }

    func run() async throws {
        let client = try connection.client()
        let start = try from.map { try TimeArgument.seconds($0, option: "--from") }
        var end = try to.map { try TimeArgument.seconds($0, option: "--to") }
        if start != nil, end == nil { end = await client.serverTime(forLocal: Date().timeIntervalSince1970) }
        if let start, let end, start > end { throw CommandFailure("--from (\(start)) is after --to (\(end)).") }
        let events: [TrackedEvent]
        do {
            try await client.start()
            events = try await client.events(from: start, to: end, streamId: stream, types: type, limit: limit)
        } catch let error as TrackingError {
            throw CommandFailure(error.description)
        }
        var out = ""
        for event in events {
            if json {
                out += JSONWriter().string(from: event.jsonValue) + "\n"
            } else {
                out += "\(TimeArgument.text(event.time))  \(Self.duration(event.duration))  \(event.type)  "
                    + "\(event.streamIds.joined(separator: ","))  \(Self.summary(event))\n"
            }
            if out.utf8.count > 1 << 16 {
                FileHandle.standardOutput.write(Data(out.utf8))
                out = ""
            }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
        if !json { Terminal.error("\(events.count.counted("event"))" + (events.count == limit ? " (the --limit; there may be more)." : ".")) }
        if events.isEmpty, !json {
            // An empty range most often misses the data by its dates: say where the latest is.
            let latest = try? await client.events(from: 0, to: nil, streamId: stream, types: type, limit: 1, newestFirst: true).first
            Terminal.error(TimeArgument.hint(latest: latest?.time, defaultRange: from == nil && to == nil))
        }
    }

    private static func duration(_ seconds: Double) -> String {
        seconds < 60 ? String(format: "%5.0f s", seconds) : seconds < 3_600 ? String(format: "%4.1f min", seconds / 60)
            : String(format: "%5.1f h", seconds / 3_600)
    }

    private static func summary(_ event: TrackedEvent) -> String {
        switch event.content {
        case .string(let text)?: return text.count > 80 ? String(text.prefix(80)) + "…" : text
        case .object?:
            if case .number(let latitude)? = event.content?["latitude"], case .number(let longitude)? = event.content?["longitude"] {
                let accuracy = event.content?["horizontalAccuracy"].flatMap { if case .number(let a) = $0 { a } else { nil } }
                return String(format: "%.6f, %.6f", latitude, longitude) + (accuracy.map { String(format: " ±%.1f m", $0) } ?? "")
            }
            if case .number(let x)? = event.content?["x"], case .number(let y)? = event.content?["y"] {
                return String(format: "x %.2f, y %.2f", x, y)
            }
            return JSONWriter().string(from: event.content ?? .null)
        default:
            return event.attachmentNames.isEmpty ? (event.description ?? "") : event.attachmentNames.joined(separator: ", ")
        }
    }
}
