import Foundation

/// The lines of a file (or of standard input for `-`), read 64 KiB at a time: memory holds one
/// line however long the file. A line longer than ``maximumLineLength`` ends the reading: it is
/// given as a text that says so (which no JSON reader takes), so a reader refuses it by its
/// number rather than stopping short as at the file's end.
struct FileLines: Sequence {
    /// The longest line read: 1 GiB (an event's attachments in base 64 are on its line).
    static let maximumLineLength = 1 << 30

    private let handle: FileHandle

    /// Opens `path` (`-`: standard input).
    init(path: String) throws {
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard FileManager.default.fileExists(atPath: path) else { throw CocoaError(.fileNoSuchFile) }
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        }
    }

    func makeIterator() -> Iterator { Iterator(handle: handle) }

    /// Reads on as lines are asked for.
    struct Iterator: IteratorProtocol {
        let handle: FileHandle
        private var buffer: [UInt8] = []
        private var start = 0
        private var ended = false

        init(handle: FileHandle) { self.handle = handle }

        mutating func next() -> String? {
            while true {
                if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    defer { start = newline + 1 }
                    var end = newline
                    if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                    return String(decoding: buffer[start..<end], as: UTF8.self)
                }
                if ended {
                    guard start < buffer.count else { return nil }
                    defer { start = buffer.count }
                    return String(decoding: buffer[start...], as: UTF8.self)
                }
                if start > 0 {
                    buffer.removeFirst(start)
                    start = 0
                }
                guard buffer.count <= FileLines.maximumLineLength else {
                    ended = true
                    buffer.removeAll()
                    return "(a line longer than \(FileLines.maximumLineLength) bytes)"
                }
                let chunk = (try? handle.read(upToCount: 1 << 16)) ?? nil
                if let chunk, !chunk.isEmpty { buffer += chunk } else { ended = true }
            }
        }
    }
}
