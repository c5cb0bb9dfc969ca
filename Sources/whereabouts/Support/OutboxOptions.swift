import ArgumentParser
import Foundation
import WhereaboutsTracking

/// Where events wait until the server has them: `--outbox`. Shared by `track`, `sync` and `note`.
struct OutboxOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The outbox, where events wait until the server has them (default: \(Outbox.defaultPath)).",
        valueName: "path"))
    var outbox: String?

    /// The outbox's path.
    var outboxPath: String { outbox ?? Outbox.defaultPath }

    /// Opens the outbox.
    func openOutbox() throws -> Outbox {
        do {
            return try Outbox(path: outboxPath)
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}

extension OutboxStatus {
    /// What the outbox holds for `destination` (a server and user, when known), in a sentence or
    /// a few lines.
    func report(path: String, destination: OutboxDestination?) -> String {
        var lines: [String] = []
        let whom = destination.map { " for \($0)" } ?? ""
        if isEmpty {
            lines.append("Nothing waits in the outbox \(path)\(whom): the server has everything.")
        } else {
            var first = "The outbox \(path) holds \(pending.counted("item"))\(whom) to deliver"
            if pending > 0 { first += " (\(pendingCreates.counted("new event")), \(pendingUpdates.counted("duration update")))" }
            if let oldestQueuedAt { first += ", the oldest queued \(TimeArgument.text(oldestQueuedAt))" }
            lines.append(first + ".")
            if failed > 0 {
                lines.append("\(failed) item\(failed == 1 ? " was" : "s were") refused by the server and wait\(failed == 1 ? "s" : "") "
                             + "(`whereabouts sync --retry-failed` sends them again, `--discard-failed` drops them):")
                for failure in failures {
                    lines.append("  \(failure.kind.rawValue) \(failure.eventId): \(failure.errorId): \(failure.message)")
                }
                if failed > failures.count { lines.append("  … and \(failed - failures.count) more") }
            }
        }
        if elsewhere > 0 {
            lines.append("\(elsewhere.counted("other item")) wait\(elsewhere == 1 ? "s" : "") for other servers or users "
                         + "(`whereabouts sync` with their --server and --token delivers them).")
        }
        return lines.joined(separator: "\n")
    }
}
