import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a recording (`*.jsonl`, FORMATS.md §2) one scan at a time, in constant memory whatever
/// the file's size: the file is read in chunks and only the current line is held.
///
/// By default the first bad line stops reading with a ``FormatError`` that names the file, the line
/// and the key. With `Options.lenient` bad lines are skipped and counted (the first few are kept
/// in ``problems``), so that one damaged line does not lose the rest of a long recording.
/// Readings with an RSSI of 0 dBm or more are invalid: they are always skipped and counted in
/// ``skippedReadings``. A scan whose time is earlier than the one before it of the same device
/// and track is a bad line too (FORMATS.md §2: each device's clock never goes back).
///
/// ```swift
/// let reader = try RecordingReader(url: URL(fileURLWithPath: "walk.jsonl"))
/// while let scan = try reader.next() {
///     print(scan.time, scan.readings.count)
/// }
/// ```
///
/// It is also an `AsyncSequence`: `for try await scan in reader { … }`.
public final class RecordingReader {
    /// How to treat bad lines.
    public struct Options: Sendable {
        /// Skip and count bad lines instead of stopping at the first.
        public var lenient: Bool
        /// Longest line accepted, in bytes; a longer line is an error (it bounds the memory used).
        public var maximumLineLength: Int
        /// How many skipped-line errors ``problems`` keeps.
        public var problemsKept: Int
        /// Whether a scan whose time goes back for its device and track is a bad line (the
        /// default); off for a reader whose caller checks the order itself, as
        /// ``RecordingSummary`` does.
        public var checksTimeOrder: Bool

        /// Creates options; by default strict, lines up to 16 MiB, time order checked.
        public init(lenient: Bool = false, maximumLineLength: Int = 16 << 20, problemsKept: Int = 20,
                    checksTimeOrder: Bool = true) {
            self.lenient = lenient
            self.maximumLineLength = maximumLineLength
            self.problemsKept = problemsKept
            self.checksTimeOrder = checksTimeOrder
        }

        /// Skip and count bad lines.
        public static let lenient = Options(lenient: true)
    }

    /// The name used in error messages (the path, or `<stdin>`).
    public let name: String
    /// The options in force.
    public let options: Options
    /// The number of the last line read (1-based).
    public private(set) var lineNumber = 0
    /// Scans returned so far.
    public private(set) var scansRead = 0
    /// Readings returned so far (not counting skipped ones).
    public private(set) var readingsRead = 0
    /// Readings skipped because their RSSI was 0 dBm or more.
    public private(set) var skippedReadings = 0
    /// Lines skipped in lenient mode.
    public private(set) var skippedLines = 0
    /// The first ``Options/problemsKept`` errors of the skipped lines.
    public private(set) var problems: [FormatError] = []
    /// Bytes consumed so far, for progress reports.
    public private(set) var bytesRead = 0
    /// The keys the format does not know (ignored), one entry per key pattern: where it was
    /// first seen (file, line, column), the known key it most likely meant, and on how many
    /// lines it was (at most ``maximumUnknownKeyPatterns`` patterns are kept).
    public private(set) var unknownKeys: [UnknownKey] = []
    /// The most unknown key patterns ``unknownKeys`` keeps: hostile input with a new key on
    /// every line must not grow it without bound.
    public static let maximumUnknownKeyPatterns = 100

    private let handle: FileHandle
    private let closesHandle: Bool
    private var buffer: [UInt8] = []
    /// Where one read(2) lands (a chunk, allocated at the first read).
    private var scratch: [UInt8] = []
    private var start = 0
    private var endOfFile = false
    private var clocks = TrackClocks()
    private var unknownKeyIndex: [String: Int] = [:]
    private static let chunkSize = 1 << 20

    /// Opens a recording file.
    public init(url: URL, options: Options = Options()) throws(FormatError) {
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw FormatError(file: url.path, message: "cannot open the file: \(error.localizedDescription)")
        }
        closesHandle = true
        name = url.path
        self.options = options
    }

    /// Reads from an open file handle (standard input, a pipe); the handle is not closed.
    public init(handle: FileHandle, name: String = "<stdin>", options: Options = Options()) {
        self.handle = handle
        closesHandle = false
        self.name = name
        self.options = options
    }

    deinit {
        if closesHandle { try? handle.close() }
    }

    /// The next scan, or `nil` at the end of the file.
    public func next() throws(FormatError) -> Scan? {
        while let line = try nextLine() {
            if isBlank(line) { continue }
            switch decodeLine(line).flatMap(inTimeOrder) {
            case .success(let decoded):
                if !decoded.unknownKeys.isEmpty { note(decoded.unknownKeys, on: line) }
                scansRead += 1
                readingsRead += decoded.scan.readings.count
                skippedReadings += decoded.skippedReadings
                return decoded.scan
            case .failure(let error):
                let located = error.located(file: name, line: lineNumber)
                guard options.lenient else { throw located }
                skippedLines += 1
                if problems.count < options.problemsKept { problems.append(located) }
            }
        }
        return nil
    }

    /// The decoded scan, or a problem when its time goes back for its device and track.
    private func inTimeOrder(_ decoded: ScanCoding.Decoded) -> Result<ScanCoding.Decoded, FormatError> {
        guard options.checksTimeOrder else { return .success(decoded) }
        if let problem = clocks.admit(decoded.scan, line: nil) { return .failure(problem) }
        return .success(decoded)
    }

    private func decodeLine(_ line: Range<Int>) -> Result<ScanCoding.Decoded, FormatError> {
        let parsed = buffer.withUnsafeBufferPointer { all -> Result<JSONValue, JSONSyntaxError> in
            JSONParser.outcome(of: UnsafeBufferPointer(rebasing: all[line]))
        }
        switch parsed {
        case .failure(let error):
            if scansRead == 0, skippedLines == 0, let document = wholeDocumentKind(from: line.lowerBound) {
                return .failure(FormatError(
                    message: "this is \(document), a single JSON document, not a recording (JSON Lines: one scan, "
                        + "with \"readings\", a line; FORMATS.md §2); check which file goes with which option"))
            }
            return .failure(FormatError(
                syntax: error, advice: "each line of a recording is one scan, a JSON object (FORMATS.md §2)"))
        case .success(let value):
            do throws(FormatError) {
                return .success(try ScanCoding.decode(value))
            } catch {
                // The column of the key at fault, on its line.
                return .failure(JSONDocument.placed(error, in: buffer[line]))
            }
        }
    }

    /// What the text from `offset` on looks like when it is one of the other formats' single
    /// documents spread over lines (a venue, a walk, a model), judged from its first 64 KiB.
    private func wholeDocumentKind(from offset: Int) -> String? {
        let text = buffer[offset..<Swift.min(buffer.count, offset + (64 << 10))]
        guard text.first(where: { ![0x20, 0x09, 0x0D, 0x0A].contains($0) }) == UInt8(ascii: "{") else { return nil }
        func has(_ needle: String) -> Bool {
            let pattern = Array(needle.utf8)
            guard text.count >= pattern.count else { return false }
            var index = text.startIndex
            while index <= text.endIndex - pattern.count {
                if text[index] == pattern[0], text[index..<index + pattern.count].elementsEqual(pattern) { return true }
                index += 1
            }
            return false
        }
        if has("\"whereabouts-place-model\"") { return "a place model" }
        if has("\"beacons\"") { return "a venue (it lists \"beacons\")" }
        if has("\"waypoints\"") { return "a walk (it lists \"waypoints\")" }
        return nil
    }

    /// Counts the unknown keys of the line `line`, each pattern once with where it was first seen.
    private func note(_ keys: [String], on line: Range<Int>) {
        for key in keys {
            let pattern = KeyLedger.pattern(of: key)
            if let index = unknownKeyIndex[pattern] {
                unknownKeys[index].occurrences += 1
                continue
            }
            guard unknownKeys.count < Self.maximumUnknownKeyPatterns else { continue }
            var unknown = UnknownKey(file: name, line: lineNumber, column: JSONKeyLocation.find(key, in: buffer[line])?.column,
                                     key: key)
            let known = ScanCoding.knownKeys(at: JSONDocument.parent(of: pattern))
            unknown.suggestion = NearestName.suggestion(for: unknown.name, among: known)
            unknownKeyIndex[pattern] = unknownKeys.count
            unknownKeys.append(unknown)
        }
    }

    /// Calls `body` with each remaining scan.
    public func forEach(_ body: (Scan) throws -> Void) throws {
        while let scan = try next() { try body(scan) }
    }

    /// Lends `body` the remaining scans as a plain `Sequence`, for algorithms written against
    /// `Sequence`; a format error stops the sequence and is thrown once `body` returns.
    public func withScans<Result>(_ body: (ScanSequence) throws -> Result) throws -> Result {
        let sequence = ScanSequence(reader: self)
        let result = try body(sequence)
        if let error = sequence.box.error { throw error }
        return result
    }

    /// The remaining scans of a ``RecordingReader`` as a `Sequence` (see ``RecordingReader/withScans(_:)``).
    public struct ScanSequence: Sequence, IteratorProtocol {
        final class Box { var error: FormatError? }
        let reader: RecordingReader
        let box = Box()

        init(reader: RecordingReader) { self.reader = reader }

        /// The next scan; `nil` at the end or after an error.
        public mutating func next() -> Scan? {
            guard box.error == nil else { return nil }
            do { return try reader.next() } catch {
                box.error = error
                return nil
            }
        }
    }

    // MARK: Lines

    private func isBlank(_ range: Range<Int>) -> Bool {
        for i in range {
            switch buffer[i] {
            case 0x20, 0x09, 0x0D: continue
            default: return false
            }
        }
        return true
    }

    /// Appends what one read(2) gives, up to a chunk, to `buffer`; returns the bytes read (0 at
    /// the end of the file). A pipe or a terminal gives each line as soon as it is written,
    /// rather than once a whole chunk is there. The read goes into `scratch`, allocated once,
    /// and only what came is copied: a live pipe's line costs its own bytes, not a chunk's.
    private func readChunk() throws(FormatError) -> Int {
        let descriptor = handle.fileDescriptor
        if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: Self.chunkSize) }
        while true {
            let count = scratch.withUnsafeMutableBytes { bytes in
                read(descriptor, bytes.baseAddress, Self.chunkSize)
            }
            if count >= 0 {
                buffer.append(contentsOf: scratch[0..<count])
                return count
            }
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                throw FormatError(file: name, message: "cannot read the file: \(reason)")
            }
        }
    }

    private func overlong() -> FormatError {
        FormatError(file: name, line: lineNumber,
                    message: "line longer than \(options.maximumLineLength) bytes (is this a JSON Lines recording?)")
    }

    /// The byte range of the next line in `buffer` (without its newline), reading more when needed.
    private func nextLine() throws(FormatError) -> Range<Int>? {
        var searchFrom = start
        while true {
            if let newline = buffer[searchFrom...].firstIndex(of: 0x0A) {
                lineNumber += 1
                bytesRead += newline + 1 - start
                let line = start..<newline
                start = newline + 1
                guard line.count <= options.maximumLineLength else { throw overlong() }
                return line
            }
            if endOfFile {
                guard start < buffer.count else { return nil }
                lineNumber += 1
                bytesRead += buffer.count - start
                let line = start..<buffer.count
                start = buffer.count
                guard line.count <= options.maximumLineLength else { throw overlong() }
                return line
            }
            if buffer.count - start > options.maximumLineLength {
                lineNumber += 1
                throw overlong()
            }
            // Drop what was consumed, then read more.
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            searchFrom = buffer.count
            if try readChunk() == 0 { endOfFile = true }
        }
    }
}

extension RecordingReader: AsyncSequence {
    /// Scans.
    public typealias Element = Scan
    /// Format errors.
    public typealias Failure = FormatError

    /// An iterator that reads the next scans of the reader.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: self) }

    /// Reads scans one after the other from a ``RecordingReader``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: RecordingReader

        /// The next scan, or `nil` at the end of the file.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(FormatError) -> Scan? {
            try reader.next()
        }

        /// The next scan, or `nil` at the end of the file.
        public mutating func next() async throws(FormatError) -> Scan? {
            try reader.next()
        }
    }
}
