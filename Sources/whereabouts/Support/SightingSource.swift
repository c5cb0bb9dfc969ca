import Foundation
import Whereabouts
import WhereaboutsBluetooth

/// An open source of scans: a recording read line by line, a capture replayed or a live scan.
/// It is an `AsyncSequence` of scans (the source itself moves on as it is read), so that it can
/// feed the library's pipeline directly: `engine.fixes(from: source)`.
final class SightingSource {
    /// Where the scans come from, with the state of reading them.
    private enum Backing {
        /// A recording read line by line.
        case recording(RecordingReader)
        /// A btsnoop capture replayed; `firstTime` is the time of its first scan, once read.
        case capture(BTSnoopReplay, BTSnoopReplay.AsyncIterator, firstTime: Double?)
        /// A live scan.
        case adapter(HCIScanner.AsyncIterator)
        /// Held only while a capture's or a scanner's iterator is taken out to move it on.
        case moving
    }

    /// The file or adapter.
    let name: String
    /// Seconds after which a capture or a live scan stops (`--duration`).
    private let duration: Double?
    private var backing: Backing

    /// A recording read line by line.
    init(name: String, recording: RecordingReader) {
        self.name = name
        duration = nil
        backing = .recording(recording)
    }

    /// A btsnoop capture replayed.
    init(name: String, replay: BTSnoopReplay, duration: Double?) {
        self.name = name
        self.duration = duration
        backing = .capture(replay, replay.makeAsyncIterator(), firstTime: nil)
    }

    /// A live scan.
    init(name: String, scanner: HCIScanner, duration: Double?) {
        self.name = name
        self.duration = duration
        backing = .adapter(scanner.makeAsyncIterator())
    }

    /// Whether scans arrive as they happen (a live adapter).
    var isLive: Bool {
        if case .adapter = backing { return true }
        return false
    }

    /// The recording's reader, when the source is a recording.
    var recordingReader: RecordingReader? {
        if case .recording(let reader) = backing { return reader }
        return nil
    }

    /// The next scan, or `nil` at the end (of the file, of the duration, or on SIGINT/SIGTERM
    /// for a live scan).
    func next() async throws -> Scan? {
        switch backing {
        case .recording(let reader):
            return try reader.next()
        case .capture(let replay, var scans, var firstTime):
            backing = .moving
            defer { backing = .capture(replay, scans, firstTime: firstTime) }
            guard let scan = try await scans.next() else { return nil }
            // A capture's duration counts on its own clock, from its first beacon event.
            let first = firstTime ?? scan.time
            firstTime = first
            if let duration, scan.time - first > duration { return nil }
            return scan
        case .adapter(var scans):
            backing = .moving
            defer { backing = .adapter(scans) }
            return try await scans.next()
        case .moving:
            return nil
        }
    }

    /// Bytes of a recording read so far (0 for other sources).
    var bytesRead: Int { recordingReader?.bytesRead ?? 0 }

    /// The size of the input for a progress bar, or 0 when unknown.
    var progressTotal: Int {
        guard recordingReader != nil, name != "-" else { return 0 }
        return URL(fileURLWithPath: name).fileSize
    }

    /// A line about what a capture held, for standard error.
    var summary: String? {
        guard case .capture(let replay, _, _) = backing else { return nil }
        let statistics = replay.readStatistics
        return "\(name): \(statistics.records.counted("record")), \(statistics.events.counted("event")), \(statistics.reports.counted("advertising report"))"
            + (statistics.malformedEvents > 0 ? ", \(statistics.malformedEvents) malformed events skipped" : "")
    }
}

extension SightingSource: AsyncSequence {
    /// Scans.
    typealias Element = Scan

    /// Reads the source's scans one by one (see ``SightingSource/next()``).
    struct AsyncIterator: AsyncIteratorProtocol {
        let source: SightingSource

        /// The next scan, or `nil` at the end.
        mutating func next() async throws -> Scan? {
            try await source.next()
        }
    }

    /// An iterator over the source's scans (the source itself moves on).
    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self)
    }
}
