import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a recording (`*.jsonl`, FORMATS.md §2), one scan a line, through a buffer: memory stays
/// constant however many scans are written.
///
/// Call ``finish()`` when done: it writes what is buffered and, for a file, moves the finished
/// file into place, so that a reader never sees a half-written recording under the final name.
///
/// ```swift
/// let writer = try RecordingWriter(url: URL(fileURLWithPath: "out.jsonl"))
/// for scan in scans { try writer.write(scan) }
/// try writer.finish()
/// ```
public final class RecordingWriter {
    private let handle: FileHandle
    private let destination: URL?
    private let temporary: URL?
    private var buffer = ""
    private var finished = false
    private static let flushThreshold = 1 << 16

    /// Scans written so far.
    public private(set) var scansWritten = 0

    /// Creates (or replaces, on ``finish()``) the file at `url`.
    public init(url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).partial")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: temporary)
        destination = url
        self.temporary = temporary
    }

    /// Writes to an open handle (standard output, a pipe); ``finish()`` flushes but does not close it.
    public init(handle: FileHandle) {
        self.handle = handle
        destination = nil
        temporary = nil
    }

    deinit {
        // An unfinished file is abandoned rather than left half-written under its final name.
        if !finished, let temporary {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
        }
    }

    /// Appends one scan.
    public func write(_ scan: Scan) throws {
        guard !finished else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "the recording was already finished"]) }
        JSONWriter().write(ScanCoding.encode(scan), to: &buffer)
        buffer += "\n"
        scansWritten += 1
        if buffer.utf8.count >= Self.flushThreshold { try flush() }
    }

    /// Writes the buffered lines out.
    public func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: Data(buffer.utf8))
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, and for a file closes it and moves it to its final name.
    public func finish() throws {
        guard !finished else { return }
        try flush()
        finished = true
        guard let destination, let temporary else { return }
        try handle.synchronize()
        try handle.close()
        // rename(2) replaces an existing file atomically.
        guard rename(temporary.path, destination.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSFilePathErrorKey: destination.path,
                NSLocalizedDescriptionKey: "cannot move the recording into place at \(destination.path): \(String(cString: strerror(code)))",
            ])
        }
    }
}
