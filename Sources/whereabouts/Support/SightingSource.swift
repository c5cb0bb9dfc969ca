import Foundation
import Whereabouts
import WhereaboutsBluetooth

/// An open source of scans: a recording read line by line, a capture replayed or a live scan.
/// It is an `AsyncSequence` of scans (the source itself moves on as it is read), so that it can
/// feed the library's pipeline directly: `engine.fixes(from: source)`, or a ``ScanTimeline`` at
/// the source's ``pace``.
///
/// One task reads it at a time: a live timeline's reading task while the scans last, the
/// command afterwards (for the counts).
final class SightingSource: @unchecked Sendable {
    /// Where the scans come from, with the state of reading them.
    private enum Backing {
        /// A recording read line by line.
        case recording(RecordingReader)
        /// A recording read from a pipe, a FIFO or a terminal, on a thread of its own.
        case pipe(ThreadedRecording)
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
    /// Whether scans arrive as they happen, so that time passes between them too.
    let isLive: Bool
    private var backing: Backing

    /// A recording read line by line; `live` when it comes from a pipe, a FIFO or a terminal
    /// (read on a thread of its own, so that waiting for a line blocks no task).
    init(name: String, recording: RecordingReader, live: Bool = false) {
        self.name = name
        duration = nil
        isLive = live
        backing = live ? .pipe(ThreadedRecording(reader: recording)) : .recording(recording)
    }

    /// A btsnoop capture replayed; live when replayed at its recorded pace.
    init(name: String, replay: BTSnoopReplay, duration: Double?, live: Bool) {
        self.name = name
        self.duration = duration
        isLive = live
        backing = .capture(replay, replay.makeAsyncIterator(), firstTime: nil)
    }

    /// A live scan.
    init(name: String, scanner: HCIScanner, duration: Double?) {
        self.name = name
        self.duration = duration
        isLive = true
        backing = .adapter(scanner.makeAsyncIterator())
    }

    /// How a pipeline's time moves with this source: with the wall clock between scans when the
    /// scans come as they happen, with the scans alone for a replay.
    var pace: ScanTimeline<SightingSource>.Pace {
        isLive ? .live(ContinuousClock()) : .replay
    }

    /// The recording's reader, when the source is a recording.
    var recordingReader: RecordingReader? {
        switch backing {
        case .recording(let reader): reader
        case .pipe(let threaded): threaded.reader
        default: nil
        }
    }

    /// The next scan, or `nil` at the end (of the file, of the duration, or on SIGINT/SIGTERM
    /// for a live scan).
    func next() async throws -> Scan? {
        switch backing {
        case .recording(let reader):
            return try reader.next()
        case .pipe(let threaded):
            return try await threaded.next()
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
        guard case .recording = backing, name != "-" else { return 0 }
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
