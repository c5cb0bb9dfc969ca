import Foundation
import Whereabouts

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The scans of a recording that comes through a pipe (`--recording -`), each returned as soon
/// as its line has arrived: a live feed must not wait for the pipe to fill a buffer or to close.
///
/// Lines are checked as ``RecordingReader`` checks them (FORMATS.md §2): blank lines are passed
/// over, a bad line stops reading unless lenient (then it is counted), and each device's (and
/// track's) clock must not go back.
final class PipeScans: AsyncSequence {
    typealias Element = Scan

    /// The name in messages.
    let name = "<stdin>"
    /// Scans returned so far.
    private(set) var scansRead = 0
    /// Lines skipped in lenient mode, and the first of their errors.
    private(set) var skippedLines = 0
    private(set) var firstProblem: FormatError?

    private let descriptor: Int32
    private let lenient: Bool
    private var buffer: [UInt8] = []
    private var lineNumber = 0
    private var endOfFile = false
    private var latest: [String: Double] = [:]
    private static let maximumLineLength = 16 << 20

    /// Reads `descriptor` (standard input by default); it is not closed.
    init(descriptor: Int32 = 0, lenient: Bool) {
        self.descriptor = descriptor
        self.lenient = lenient
    }

    /// The next scan, or `nil` once the pipe is closed.
    func next() throws -> Scan? {
        while let line = try nextLine() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            do {
                let scan = try decode(line)
                scansRead += 1
                return scan
            } catch {
                let located = error.located(file: name, line: lineNumber)
                guard lenient else { throw located }
                skippedLines += 1
                if firstProblem == nil { firstProblem = located }
            }
        }
        return nil
    }

    private func decode(_ line: ArraySlice<UInt8>) throws(FormatError) -> Scan {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw FormatError(syntax: error, advice: "each line of a recording is one scan, a JSON object (FORMATS.md §2)")
        }
        let scan = try ScanCoding.decode(value).scan
        let key = "\(scan.device ?? "")\u{0}\(scan.track ?? "")"
        if let previous = latest[key], scan.time < previous {
            throw FormatError(key: "t", message: "time goes back from \(previous) to \(scan.time) — each device's scans must be in time order (FORMATS.md §2)")
        }
        latest[key] = scan.time
        return scan
    }

    /// The next line without its newline, reading what the pipe holds (one `read`, which returns
    /// as soon as anything has arrived) when no whole line is buffered.
    private func nextLine() throws -> ArraySlice<UInt8>? {
        var searchFrom = 0
        while true {
            if let newline = buffer[searchFrom...].firstIndex(of: 0x0A) {
                lineNumber += 1
                let line = buffer[..<newline]
                buffer.removeSubrange(...newline)
                return line
            }
            if endOfFile {
                guard !buffer.isEmpty else { return nil }
                lineNumber += 1
                defer { buffer.removeAll() }
                return buffer[...]
            }
            guard buffer.count <= Self.maximumLineLength else {
                throw FormatError(file: name, line: lineNumber + 1, message: "line longer than \(Self.maximumLineLength) bytes (is this a JSON Lines recording?)")
            }
            searchFrom = buffer.count
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
            } else if count == 0 {
                endOfFile = true
            } else if errno != EINTR {
                throw FormatError(file: name, message: "cannot read standard input: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Fails, saying so, when the pipe brought no scan at all.
    func requireScans(toDo task: String) throws {
        guard scansRead == 0 else { return }
        let skipped = skippedLines > 0 ? " (\(skippedLines.counted("malformed line")) skipped)" : ""
        throw CommandFailure("\(name): the recording holds no scans\(skipped); nothing to \(task).")
    }

    /// Writes a warning to standard error when lenient reading skipped lines.
    func warnAboutSkippedLines() {
        guard skippedLines > 0 else { return }
        Terminal.error("warning: \(name): skipped \(skippedLines.counted("malformed line"))"
                       + " (first: \(firstProblem.map(String.init(describing:)) ?? "?"))")
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let scans: PipeScans
        mutating func next() async throws -> Scan? { try scans.next() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(scans: self) }
}
