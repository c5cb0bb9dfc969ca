import Foundation

/// Writes a recording (`*.jsonl`, FORMATS.md §2), one scan a line, through a buffer: memory stays
/// constant however many scans are written.
///
/// Call ``finish()`` when done: it writes what is buffered and, for a file, moves the finished
/// file into place, so that a reader never sees a half-written recording under the final name
/// (see ``JSONLinesWriter``).
///
/// ```swift
/// let writer = try RecordingWriter(url: URL(fileURLWithPath: "out.jsonl"))
/// for scan in scans { try writer.write(scan) }
/// try writer.finish()
/// ```
public final class RecordingWriter {
    private let lines: JSONLinesWriter

    /// Scans written so far.
    public var scansWritten: Int { lines.linesWritten }

    /// Creates (or replaces, on ``finish()``) the file at `url`.
    public init(url: URL) throws {
        lines = try JSONLinesWriter(url: url)
    }

    /// Writes to an open handle (standard output, a pipe); ``finish()`` flushes but does not close it.
    public init(handle: FileHandle) {
        lines = JSONLinesWriter(handle: handle)
    }

    /// Appends one scan.
    public func write(_ scan: Scan) throws {
        try lines.write(ScanCoding.encode(scan))
    }

    /// Writes the buffered lines out.
    public func flush() throws {
        try lines.flush()
    }

    /// Flushes, and for a file closes it and moves it to its final name.
    public func finish() throws {
        try lines.finish()
    }
}
