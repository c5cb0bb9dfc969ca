import Foundation
import Whereabouts

/// An open source of scans — a recording read line by line, a btsnoop capture replayed or a live
/// scan — with the pace time moves at with it: what `whereabouts locate`, `track`, `watch` and
/// the examples read from, and what a `ScanTimeline` or `LocationEngine.fixes(from:)`
/// runs over.
///
/// A recording from a file is a replay: time moves with its scans alone, as fast as they can be
/// read. One from a pipe, a FIFO or a terminal is live: it is read on a thread of its own (so
/// that waiting for a line blocks no task) and time passes between its lines on the clock. A
/// capture is live when replayed at its recorded pace, and a Bluetooth adapter always is.
///
/// ```swift
/// let source = try ScanSource.recording(atPath: "visit.jsonl")         // or "-" for standard input
/// var pipeline = ScanPipeline(setup: setup, places: places, monitor: MonitorPipeline(venue: venue))
/// var timeline = ScanTimeline(source: source)
/// try await timeline.run(&pipeline) { events in for event in events { print(event.event.topic) } }
/// ```
///
/// It is an `AsyncSequence` whose iterators share the source, which moves on as it is read: one
/// task reads it at a time (a live timeline's reading task while the scans last, the caller
/// afterwards, for ``recordingReader``'s counts).
public final class ScanSource: PacedScans, @unchecked Sendable {
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

    /// The file (`-` for standard input) or the adapter.
    public let name: String
    /// How time moves with these scans: live for a pipe, an adapter or a capture at its recorded
    /// pace, a replay for a file or a capture replayed as fast as possible.
    public let pace: ScanPace
    /// The adapter's scanner, whose radio pauses; `nil` for recordings and captures.
    private let radio: HCIScanner?
    /// Seconds after which a capture stops (on the capture's own clock, from its first scan).
    private let duration: Double?
    private var backing: Backing

    /// A recording read by `recording`; `live` when it comes from a pipe, a FIFO or a terminal
    /// (read on a thread of its own, time passing between its lines on `clock`).
    public init(name: String, recording: RecordingReader, live: Bool = false, clock: any Clock<Duration> = ContinuousClock()) {
        self.name = name
        duration = nil
        pace = live ? .live(clock) : .replay
        backing = live ? .pipe(ThreadedRecording(reader: recording)) : .recording(recording)
        radio = nil
    }

    /// A btsnoop capture replayed at the capture's own pace (``BTSnoopReplay/pace``), ending after
    /// `duration` seconds of the capture when one is given.
    public init(name: String, capture: BTSnoopReplay, duration: Double? = nil) {
        self.name = name
        self.duration = duration
        pace = capture.pace
        backing = .capture(capture, capture.makeAsyncIterator(), firstTime: nil)
        radio = nil
    }

    /// A live scan (its duration is the scanner's ``HCIScanner/Configuration/duration``).
    public init(name: String, scanner: HCIScanner) {
        self.name = name
        duration = nil
        pace = scanner.pace
        backing = .adapter(scanner.makeAsyncIterator())
        radio = scanner
    }

    /// The recording at `path`, or standard input for `-`: live when it is a pipe, a FIFO, a
    /// terminal or a socket (``isStream(atPath:)``), a replay otherwise.
    ///
    /// - Throws: ``ScanSourceError/noSuchFile(_:)`` when there is no such file, or the recording's
    ///   `FormatError` when it cannot be opened.
    public static func recording(atPath path: String, options: RecordingReader.Options = RecordingReader.Options(),
                                 clock: any Clock<Duration> = ContinuousClock()) throws -> ScanSource {
        let reader: RecordingReader
        if path == "-" {
            reader = RecordingReader(handle: FileHandle.standardInput, options: options)
        } else {
            guard FileManager.default.fileExists(atPath: path) else { throw ScanSourceError.noSuchFile(path) }
            reader = try RecordingReader(url: URL(fileURLWithPath: path), options: options)
        }
        return ScanSource(name: path, recording: reader, live: isStream(atPath: path), clock: clock)
    }

    /// The btsnoop capture at `path`, replayed at `pace` (`ScanPace/live(_:)` keeps its own
    /// gaps between events), for `duration` seconds of it when one is given.
    ///
    /// - Throws: ``ScanSourceError/noSuchFile(_:)``, or the capture's ``BTSnoopError``.
    public static func capture(atPath path: String, decoder: SightingDecoder = SightingDecoder(), pace: ScanPace = .replay,
                               duration: Double? = nil) throws -> ScanSource {
        guard FileManager.default.fileExists(atPath: path) else { throw ScanSourceError.noSuchFile(path) }
        let replay = try BTSnoopReplay(url: URL(fileURLWithPath: path), decoder: decoder, pace: pace)
        return ScanSource(name: path, capture: replay, duration: duration)
    }

    /// A live scan with an adapter, checked at once, so that a missing adapter or a missing
    /// permission fails before any work.
    ///
    /// - Throws: the ``BluetoothError`` that says what to do.
    public static func adapter(_ configuration: HCIScanner.Configuration) throws(BluetoothError) -> ScanSource {
        let scanner = HCIScanner(configuration: configuration)
        try scanner.checkAdapter()
        return ScanSource(name: configuration.adapter, scanner: scanner)
    }

    /// Whether the recording at `path` (`-` for standard input) is a stream whose lines come as
    /// they are written — a pipe, a FIFO, a terminal, a socket — rather than a file read as fast
    /// as possible.
    public static func isStream(atPath path: String) -> Bool {
        var status = stat()
        let result = path == "-" ? fstat(FileHandle.standardInput.fileDescriptor, &status) : stat(path, &status)
        guard result == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFCHR || kind == S_IFSOCK
    }

    /// Whether scans arrive as they happen, so that time passes between them too.
    public var isLive: Bool { pace.isLive }

    /// The recording's reader, when the source is a recording: its counts (lines, skipped lines,
    /// unknown keys) once the scans have ended.
    public var recordingReader: RecordingReader? {
        switch backing {
        case .recording(let reader): reader
        case .pipe(let threaded): threaded.reader
        default: nil
        }
    }

    /// What a capture's replay read (records, events, reports, malformed events), when the
    /// source is a capture.
    public var captureStatistics: BTSnoopReplay.Statistics? {
        guard case .capture(let replay, _, _) = backing else { return nil }
        return replay.readStatistics
    }

    /// Bytes of a recording read so far (0 for other sources).
    public var bytesRead: Int { recordingReader?.bytesRead ?? 0 }

    /// The size of a recording file in bytes, for a progress bar; 0 when unknown (standard
    /// input, a pipe, another kind of source).
    public var size: Int {
        guard case .recording = backing, name != "-" else { return 0 }
        return (try? FileManager.default.attributesOfItem(atPath: name)[.size] as? Int) ?? 0
    }

    /// The next scan, or `nil` at the end (of the file, of the duration, or on SIGINT/SIGTERM
    /// for a live scan that stops on signals).
    public func next() async throws -> Scan? {
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

    /// Scans.
    public typealias Element = Scan

    /// Reads the source's scans one by one (see ``ScanSource/next()``).
    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: ScanSource

        /// The next scan, or `nil` at the end.
        public mutating func next() async throws -> Scan? {
            try await source.next()
        }
    }

    /// An iterator over the source's scans (the source itself moves on).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self)
    }
}

/// Why a ``ScanSource`` could not be opened.
public enum ScanSourceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No file at this path.
    case noSuchFile(String)

    /// What went wrong, naming the file.
    public var description: String {
        switch self {
        case .noSuchFile(let path): "\(path): no such file"
        }
    }
}

extension ScanSource: PausableScanning {
    /// Turns an adapter's scanning off until ``resumeScanning()`` (the scans wait meanwhile);
    /// a recording or a capture has no radio, and goes on.
    public func pauseScanning() { radio?.pauseScanning() }

    /// Turns an adapter's scanning on again.
    public func resumeScanning() { radio?.resumeScanning() }
}
