import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes JSON Lines (one compact JSON value a line) through a buffer, so that memory stays
/// constant however many lines are written: the shared machinery of ``RecordingWriter`` and
/// ``FixWriter``.
///
/// Writing to a file goes to a hidden temporary file beside it; ``finish()`` moves it into place
/// with rename(2), so that a reader never sees a half-written file under the final name, and an
/// existing file is replaced atomically. A writer dropped before `finish()` removes its temporary
/// file.
///
/// ```swift
/// let writer = try JSONLinesWriter(url: URL(fileURLWithPath: "out.jsonl"))
/// try writer.write(.object([("t", .number(1))]))
/// try writer.finish()
/// ```
public final class JSONLinesWriter {
    private let handle: FileHandle
    private let destination: URL?
    private let temporary: URL?
    private var buffer = ""
    private var finished = false
    /// Whether ``finish()`` closes the handle although the file is not moved into place.
    private var closesHandle = false
    private static let flushThreshold = 1 << 16

    /// Lines written so far.
    public private(set) var linesWritten = 0

    /// Creates (or replaces, on ``finish()``) the file at `url`.
    public init(url: URL) throws {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).partial")
        handle = try Self.emptyFile(at: temporary, naming: url, problem: "cannot create a file in \(url.deletingLastPathComponent().path)")
        destination = url
        self.temporary = temporary
    }

    /// Creates (or empties) the file at `url` and writes into it directly, so that a reader sees
    /// each line once it is flushed (a live output); ``finish()`` flushes, syncs and closes it.
    public init(appendingLinesTo url: URL) throws {
        handle = try Self.emptyFile(at: url, naming: url, problem: "cannot create \(url.path)")
        destination = nil
        temporary = nil
        closesHandle = true
    }

    /// Creates (or empties) the file at `path` and opens it for writing; an error names `url`.
    private static func emptyFile(at path: URL, naming url: URL, problem: String) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: path.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: problem])
        }
        return try FileHandle(forWritingTo: path)
    }

    /// Writes to an open handle (standard output, a pipe); ``finish()`` flushes but does not close it.
    public init(handle: FileHandle) {
        self.handle = handle
        destination = nil
        temporary = nil
    }

    deinit {
        if !finished, let temporary {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
        }
    }

    /// Appends one line holding `value`.
    public func write(_ value: JSONValue) throws {
        guard !finished else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "the file was already finished"])
        }
        JSONWriter().write(value, to: &buffer)
        buffer += "\n"
        linesWritten += 1
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
        guard let destination, let temporary else {
            if closesHandle {
                try handle.synchronize()
                try handle.close()
            }
            return
        }
        try handle.synchronize()
        try handle.close()
        guard rename(temporary.path, destination.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSFilePathErrorKey: destination.path,
                NSLocalizedDescriptionKey: "cannot move the file into place at \(destination.path): \(String(cString: strerror(code)))",
            ])
        }
    }
}
