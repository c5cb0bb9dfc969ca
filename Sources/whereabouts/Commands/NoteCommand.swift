import ArgumentParser
import Foundation
import WhereaboutsTracking

/// `whereabouts note`
struct NoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note",
        abstract: "Queue a note (note/txt) or a picture (picture/attached) in the outbox and send it.",
        discussion: HelpText.fitting("""
        The note or picture is written to the outbox first (a picture is copied there), then the \
        outbox is delivered. When the server cannot be reached, it waits there and the next \
        `whereabouts sync` or `track` sends it; the command says so and exits 0. It exits 1 when \
        the server refuses it or the token.

        Examples (the token in $WHEREABOUTS_TOKEN, or --token):
          whereabouts note "Arrived at the library"
          whereabouts note "The view from hall 3" --picture view.jpg
          whereabouts note "Met Ana" --stream diary --time 2026-11-21T10:30:00Z
        """)
    )

    @Argument(help: ArgumentHelp("The note's text (with --picture: its description; may be empty).", valueName: "text"))
    var text: String

    @Option(name: .long, help: ArgumentHelp("Send this file as a picture/attached event.", valueName: "file"))
    var picture: String?

    @Option(name: .long, help: ArgumentHelp("The stream.", valueName: "id"))
    var stream: String = "position"

    @Option(name: .long, help: ArgumentHelp("When it happened (ISO 8601 or seconds since 1970; default: now, server time).", valueName: "time"))
    var time: String?

    @OptionGroup var connection: ServerConnectionOptions

    @OptionGroup var outboxOptions: OutboxOptions

    func validate() throws {
        if let time { _ = try TimeArgument.seconds(time, option: "--time") }
        if picture == nil, text.isEmpty { throw ValidationError("A note needs text.") }
        if text.utf8.count > 100_000 { throw ValidationError("A note may have at most 100,000 bytes.") }
        if let picture, !FileManager.default.isReadableFile(atPath: picture) {
            throw ValidationError("\(picture): no such file, or not readable (the picture).")
        }
    }

    func run() async throws {
        let outbox = try outboxOptions.openOutbox()
        let client = try connection.client(defaultStream: stream)
        let reachable: Bool
        do {
            try await client.start()
            reachable = true
        } catch let error as TrackingError where error.isRetryable {
            Terminal.error("warning: \(error)")
            reachable = false
        }
        try await outbox.scope(for: client)
        let now = await client.serverTime(forLocal: Date().timeIntervalSince1970)
        let when = try time.map { try TimeArgument.seconds($0, option: "--time") } ?? now
        var identifiers = EventIdentifiers.random
        let id = identifiers.next(now: when)
        let change: OutboxChange
        if let picture {
            change = .create(TrackedEvent(id: id, streamIds: [stream], time: when, type: "picture/attached",
                                          description: text.isEmpty ? nil : text),
                             attachment: URL(fileURLWithPath: picture))
        } else {
            change = .create(TrackedEvent(id: id, streamIds: [stream], time: when, type: "note/txt", content: .string(text)))
        }
        do {
            try await outbox.enqueue(change)
        } catch {
            throw CommandFailure("\(error)")
        }
        guard reachable else {
            Terminal.error("Queued \(id) in \(outbox.path); `whereabouts sync` sends it once the server answers.")
            return
        }
        let sender = OutboxSender(outbox: outbox, client: client)
        do {
            try await sender.deliverPending()
        } catch let error as TrackingError where error.isRetryable {
            Terminal.error("Queued \(id) in \(outbox.path) (\(error)); `whereabouts sync` sends it later.")
            return
        }
        let status = try await outbox.status()
        if let failure = status.failures.first(where: { $0.eventId == id }) {
            throw CommandFailure("The server refused the \(picture == nil ? "note" : "picture"): \(failure.errorId): \(failure.message) (kept in the outbox; see `whereabouts sync --status`).")
        }
        print(id)
        Terminal.error("Sent \(picture == nil ? "note" : "picture") \(id)" + (status.pending > 0 ? "; \(status.pending) older items still wait." : "."))
    }
}
