import Logging
import Synchronization

/// Log lines kept for a test to read, instead of printed: a server under test that meets a
/// failure on purpose (an injected store fault, a database taken away) logs it here, where the
/// test can check that the cause is there, and a green run's output stays free of errors.
/// Holds the latest 10,000 lines.
final class LogCapture: Sendable {
    let lines = Mutex<[String]>([])

    /// The most lines kept; older ones are dropped.
    static let limit = 10_000

    /// Adds a line, dropping the oldest past ``limit``.
    func append(_ line: String) {
        lines.withLock { lines in
            if lines.count >= Self.limit { lines.removeFirst(lines.count - Self.limit + 1) }
            lines.append(line)
        }
    }

    /// Whether a kept line contains `text`.
    func contains(_ text: String) -> Bool {
        lines.withLock { $0.contains { $0.contains(text) } }
    }
}

/// A log handler that keeps every line in a ``LogCapture``: the level, the message and the
/// metadata (the logger's and the event's) as `key=value`, e.g.
/// `error The store could not complete the request errorId=0655eb11 status=503`.
struct CapturingLogHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        capture.append(([event.level.rawValue, "\(event.message)"] + fields).joined(separator: " "))
    }
}
