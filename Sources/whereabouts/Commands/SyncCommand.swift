import ArgumentParser
import Foundation
import Whereabouts
import WhereaboutsTracking

/// `whereabouts sync`
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Deliver what waits in the outbox; exit 0 only when it is empty.",
        discussion: HelpText.fitting("""
        Sends the outbox's events and duration updates for the token's user to the server, in \
        order, in batches (an outbox keeps what waits for each server and user apart). While \
        the server cannot be reached (or answers 5xx or 429) it tries again, waiting longer each \
        time, for up to --wait seconds. Items the server refuses for good (an invalid event, a \
        stream the token may not write) are kept with the server's reason: --status lists them, \
        --retry-failed sends them again, --discard-failed drops them. The exit status is 0 when \
        the outbox ends empty, 1 otherwise.

        Examples (the token in $WHEREABOUTS_TOKEN, or --token):
          whereabouts sync
          whereabouts sync --status
          whereabouts sync --server https://home.example:8443 --wait 300
          whereabouts sync --retry-failed
        """)
    )

    @OptionGroup var connection: ServerConnectionOptions

    @OptionGroup var outboxOptions: OutboxOptions

    @Flag(name: .long, help: "Only print what waits in the outbox and what failed: for the token's server and user, or everything without a token.")
    var status = false

    @Flag(name: .long, help: "Queue the items the server refused again, then deliver.")
    var retryFailed = false

    @Flag(name: .long, help: "Drop the items the server refused (they are lost), then deliver.")
    var discardFailed = false

    @Option(name: .long, help: ArgumentHelp("Keep trying an unreachable server for up to this many seconds.", valueName: "seconds"))
    var wait: Double = 60

    func validate() throws {
        if !(wait.isFinite && wait >= 0) { throw ValidationError("--wait must be a number of seconds, 0 or more.") }
        if retryFailed && discardFailed { throw ValidationError("Give --retry-failed or --discard-failed, not both.") }
    }

    func run() async throws {
        let outbox = try outboxOptions.openOutbox()
        if status {
            // With a token, what waits for its server and user (known from an earlier answer);
            // without one, everything.
            if let client = try? connection.client() { try await outbox.scope(for: client) }
            print(try await outbox.status().report(path: outbox.path, destination: await outbox.destination))
            return
        }
        let client = try connection.client()
        // The server names the token's user when it answers; otherwise the outbox remembers it.
        _ = try? await client.start()
        try await outbox.scope(for: client)
        if retryFailed { Terminal.error("\(try await outbox.retryFailed()) refused items queued again.") }
        if discardFailed { Terminal.error("\(try await outbox.discardFailed()) refused items dropped.") }
        let sender = OutboxSender(outbox: outbox, client: client)
        let report = try await sender.deliver(waitingUpTo: .seconds(wait)) { error, pause in
            Terminal.error("\(error) Next try in \(String(format: "%.1f", pause.inSeconds)) s.")
        }
        switch report.outcome {
        case .drained: break
        case .deadlinePassed: if let error = report.lastError { Terminal.error("Gave up after \(Int(wait)) s: \(error)") }
        case .stopped(let error): Terminal.error("\(error)")
        }
        let delivered = report.delivered
        let state = try await outbox.status()
        Terminal.error("The server took \(delivered.counted("item")).")
        Terminal.error(state.report(path: outbox.path, destination: await outbox.destination))
        if !state.isEmpty { throw ExitCode.failure }
    }
}
