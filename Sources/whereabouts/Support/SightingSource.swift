import Foundation
import Whereabouts
import WhereaboutsBluetooth

/// An open source of scans: a recording read line by line, a capture replayed or a live scan.
final class SightingSource {
    /// The file or adapter.
    let name: String
    /// Whether scans arrive as they happen (a live adapter).
    let isLive: Bool
    /// The recording's reader, when the source is a recording.
    let recordingReader: RecordingReader?
    /// The capture, when the source is a btsnoop capture.
    private let replay: BTSnoopReplay?
    /// The capture's scans, when the source is a btsnoop capture.
    private var replayIterator: BTSnoopReplay.AsyncIterator?
    /// The live scans, when the source is an adapter.
    private var scannerIterator: HCIScanner.AsyncIterator?
    /// How advertisements become readings.
    private let decoder: SightingDecoder
    /// The time of a capture's first scan, once read.
    private var firstTime: Double?
    /// Seconds after which a capture or a live scan stops (`--duration`).
    private let duration: Double?

    /// A recording read line by line.
    init(name: String, recording: RecordingReader, decoder: SightingDecoder, duration: Double?) {
        self.name = name
        isLive = false
        recordingReader = recording
        replay = nil
        self.decoder = decoder
        self.duration = nil
    }

    /// A btsnoop capture replayed.
    init(name: String, replay: BTSnoopReplay, duration: Double?) {
        self.name = name
        isLive = false
        recordingReader = nil
        self.replay = replay
        replayIterator = replay.makeAsyncIterator()
        decoder = replay.decoder
        self.duration = duration
    }

    /// A live scan.
    init(name: String, scanner: HCIScanner, duration: Double?) {
        self.name = name
        isLive = true
        recordingReader = nil
        replay = nil
        scannerIterator = scanner.makeAsyncIterator()
        decoder = scanner.configuration.decoder
        self.duration = duration
    }

    /// The next scan, or `nil` at the end (of the file, of the duration, or on SIGINT/SIGTERM
    /// for a live scan).
    func next() async throws -> Scan? {
        if let recordingReader { return try recordingReader.next() }
        if replayIterator != nil {
            guard let scan = try await replayIterator?.next() else { return nil }
            // A capture's duration counts on its own clock, from its first beacon event.
            let first = firstTime ?? scan.time
            firstTime = first
            if let duration, scan.time - first > duration { return nil }
            return scan
        }
        return try await scannerIterator?.next()
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
        guard let replay else { return nil }
        let statistics = replay.readStatistics
        return "\(name): \(statistics.records) records, \(statistics.events) events, \(statistics.reports) advertising reports"
            + (statistics.malformedEvents > 0 ? ", \(statistics.malformedEvents) malformed events skipped" : "")
    }
}
