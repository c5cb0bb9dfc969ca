import Foundation
import Testing
@testable import Whereabouts
@testable import WhereaboutsBluetooth

/// The library's one source of scans: recordings (files as replays, pipes live), captures and
/// adapters, each with its pace.
@Suite struct ScanSourceTests {
    private static func line(_ time: Double) -> String {
        #"{"t":\#(time),"device":"phone","readings":[{"beacon":"a","rssi":-60}]}"#
    }

    private static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("scan-source-\(UUID().uuidString)-\(name)").path
    }

    /// A file is a replay, read to its end, with its reader's counts and its size for progress.
    @Test func aRecordingFileIsAReplay() async throws {
        let path = Self.temporaryPath("visit.jsonl")
        let text = [Self.line(1), "not json", Self.line(2)].joined(separator: "\n") + "\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = try ScanSource.recording(atPath: path, options: .lenient)
        #expect(!source.isLive)
        #expect(source.size == text.utf8.count)
        var times: [Double] = []
        for try await scan in source { times.append(scan.time) }
        #expect(times == [1, 2])
        #expect(source.recordingReader?.skippedLines == 1)
        #expect(source.bytesRead == text.utf8.count)
        #expect(source.captureStatistics == nil)
    }

    /// A missing file is named in the error, before anything is read.
    @Test func aMissingFileIsRefused() throws {
        let path = Self.temporaryPath("missing.jsonl")
        #expect(throws: ScanSourceError.noSuchFile(path)) { try ScanSource.recording(atPath: path) }
        #expect(throws: ScanSourceError.noSuchFile(path)) { try ScanSource.capture(atPath: path) }
        #expect(ScanSourceError.noSuchFile(path).description == "\(path): no such file")
    }

    /// A FIFO is live: its lines are read as they are written, on the pace's clock.
    @Test func aFIFOIsLive() async throws {
        let path = Self.temporaryPath("live.fifo")
        #expect(mkfifo(path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(ScanSource.isStream(atPath: path))
        // Opening a FIFO waits for its writer: the writer is a thread of its own, not a task.
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            handle.write(Data((Self.line(5) + "\n" + Self.line(6) + "\n").utf8))
            try? handle.close()
        }
        writer.start()
        let source = try ScanSource.recording(atPath: path, clock: ManualClock())
        #expect(source.isLive)
        #expect(source.size == 0)
        var times: [Double] = []
        for try await scan in source { times.append(scan.time) }
        #expect(times == [5, 6])
    }

    /// A capture stops after its duration, counted on its own clock from its first scan, and says
    /// what it read.
    @Test func aCaptureStopsAfterItsDuration() async throws {
        var writer = BTSnoopWriter(datalink: .h4)
        for (minor, time) in [(1, 10.0), (2, 10.9), (3, 11.2)] {
            writer.append(.event(Vectors.legacyEvent(data: Vectors.iBeacon(major: 1, minor: UInt16(minor))), time: time, datalink: .h4))
        }
        let source = ScanSource(name: "capture.log", capture: try BTSnoopReplay(bytes: writer.bytes), duration: 1)
        #expect(!source.isLive)
        var times: [Double] = []
        for try await scan in source { times.append(scan.time) }
        #expect(times == [10, 10.9])
        #expect(source.captureStatistics?.events == 3)
        #expect(source.recordingReader == nil)
        let live = ScanSource(name: "capture.log", capture: try BTSnoopReplay(bytes: writer.bytes, pace: .live(ManualClock())))
        #expect(live.isLive)
    }
}
