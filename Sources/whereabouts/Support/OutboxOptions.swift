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
    /// What the outbox holds, in a sentence or a few lines.
    func report(path: String) -> String {
        var lines: [String] = []
        if isEmpty {
            lines.append("The outbox \(path) is empty: the server has everything.")
        } else {
            var first = "The outbox \(path) holds \(pending.counted("item")) to deliver"
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
        return lines.joined(separator: "\n")
    }
}
