import Foundation
import Whereabouts

/// A recording read on a thread of its own: waiting for the next line of a pipe, a FIFO or a
/// terminal then blocks no task, so the pipeline's timers keep running while the input is silent.
/// At most 256 scans are read ahead of the pipeline.
final class ThreadedRecording: @unchecked Sendable {
    /// The reader, for its counts once the scans have ended.
    let reader: RecordingReader
    private var scans: AsyncThrowingStream<Scan, any Error>.AsyncIterator
    private let room = DispatchSemaphore(value: 256)

    /// Starts reading `reader` on a new thread.
    init(reader: RecordingReader) {
        self.reader = reader
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Scan.self, throwing: (any Error).self)
        scans = stream.makeAsyncIterator()
        // Only the thread reads the reader until the scans end (then the command reads its counts).
        let thread = Thread { [self] in
            do {
                while let scan = try self.reader.next() {
                    self.room.wait()
                    continuation.yield(scan)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        thread.name = "Whereabouts recording reader"
        thread.start()
    }

    /// The next scan, or `nil` at the end of the input.
    func next() async throws -> Scan? {
        let scan = try await scans.next()
        if scan != nil { room.signal() }
        return scan
    }
}
