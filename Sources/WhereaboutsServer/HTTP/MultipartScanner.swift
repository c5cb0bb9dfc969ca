#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A streaming `multipart/form-data` parser (RFC 7578, RFC 2046 §5.1) that works on raw bytes:
/// the boundary is found with the C library's `memchr` and `memcmp` and a part's body is handed on in the
/// pieces it arrived in, so that an upload costs a few memory copies a chunk rather than a step
/// of Swift code a byte (which, in a debug build, is what made a 128 MiB upload outlast the
/// body deadline).
///
/// Feed it the body's chunks in order; it calls `onHeader` for each header of a part, `onBody`
/// with the part's bytes (valid during the call only), and `onPartComplete` at each part's
/// end. ``isFinished`` says whether the close delimiter (`--boundary--`) was seen: a body that
/// ends before it was cut short.
final class MultipartScanner {
    /// Why a body is not `multipart/form-data`.
    struct Failure: Error, CustomStringConvertible {
        /// What was wrong.
        var description: String
    }

    private enum State {
        case preamble
        case headers
        case body
        case afterDelimiter
        case finished
    }

    /// The most bytes of headers one part may have, and of preamble before the first part.
    static let maximumHeaderBytes = 16_384
    static let maximumPreambleBytes = 65_536

    var onHeader: (_ name: String, _ value: String) -> Void = { _, _ in }
    var onBody: (_ bytes: UnsafeRawBufferPointer) -> Void = { _ in }
    var onPartComplete: () -> Void = {}

    /// `--boundary`, which opens the first part.
    private let dashBoundary: [UInt8]
    /// `CRLF--boundary`, which ends a part's body.
    private let delimiter: [UInt8]
    private var state = State.preamble
    private var buffer: [UInt8] = []
    private var preambleSeen = 0

    /// Whether the close delimiter was seen: the body is complete.
    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// A parser for parts separated by `boundary`.
    init(boundary: String) {
        dashBoundary = Array("--\(boundary)".utf8)
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Parses the next chunk of the body.
    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        guard !isFinished else { return }   // the epilogue is ignored
        buffer.append(contentsOf: bytes)
        var start = 0
        defer { if start > 0 { buffer.removeSubrange(0..<min(start, buffer.count)) } }
        while true {
            switch state {
            case .preamble:
                if let found = Self.find(dashBoundary, in: buffer, from: start) {
                    start = found + dashBoundary.count
                    state = .afterDelimiter
                } else {
                    let keep = dashBoundary.count - 1
                    let dropped = max(0, buffer.count - start - keep)
                    preambleSeen += dropped
                    start += dropped
                    guard preambleSeen <= Self.maximumPreambleBytes else {
                        throw Failure(description: "no boundary in the body's first \(Self.maximumPreambleBytes) bytes")
                    }
                    return
                }
            case .afterDelimiter:
                // `--` closes the body; otherwise optional padding and CRLF open the next part.
                var index = start
                while index < buffer.count, buffer[index] == 0x20 || buffer[index] == 0x09, index - start < 64 { index += 1 }
                guard index + 2 <= buffer.count else {
                    guard buffer.count - start < 64 else { throw Failure(description: "a boundary line is too long") }
                    return
                }
                if buffer[start] == 0x2D, buffer[start + 1] == 0x2D {
                    start = buffer.count
                    onPartCompleteIfInPart()
                    state = .finished
                    return
                }
                guard buffer[index] == 0x0D, buffer[index + 1] == 0x0A else {
                    throw Failure(description: "a boundary is not followed by a line break")
                }
                onPartCompleteIfInPart()
                start = index + 2
                state = .headers
            case .headers:
                if buffer.count - start >= 2, buffer[start] == 0x0D, buffer[start + 1] == 0x0A {
                    start += 2   // a part with no headers
                    state = .body
                    partOpen = true
                    continue
                }
                guard let end = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: buffer, from: start) else {
                    guard buffer.count - start <= Self.maximumHeaderBytes else {
                        throw Failure(description: "a part's headers are longer than \(Self.maximumHeaderBytes) bytes")
                    }
                    return
                }
                guard end - start <= Self.maximumHeaderBytes else {
                    throw Failure(description: "a part's headers are longer than \(Self.maximumHeaderBytes) bytes")
                }
                for line in buffer[start..<end].split(separator: 0x0A) {
                    let text = String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
                    guard let colon = text.firstIndex(of: ":") else {
                        throw Failure(description: "a part's header line has no colon")
                    }
                    onHeader(String(text[..<colon]).trimmingSpaces(), String(text[text.index(after: colon)...]).trimmingSpaces())
                }
                start = end + 4
                state = .body
                partOpen = true
            case .body:
                if let found = Self.find(delimiter, in: buffer, from: start) {
                    emit(from: start, to: found)
                    start = found + delimiter.count
                    state = .afterDelimiter
                } else {
                    // All but what could be the start of a delimiter cut by the chunk's end.
                    let end = max(start, buffer.count - (delimiter.count - 1))
                    emit(from: start, to: end)
                    start = end
                    return
                }
            case .finished:
                start = buffer.count
                return
            }
        }
    }

    private var partOpen = false

    private func onPartCompleteIfInPart() {
        guard partOpen else { return }
        partOpen = false
        onPartComplete()
    }

    private func emit(from start: Int, to end: Int) {
        guard end > start else { return }
        buffer.withUnsafeBytes { raw in onBody(UnsafeRawBufferPointer(rebasing: raw[start..<end])) }
    }

    /// Where `needle` first occurs in `buffer` at or after `from`: `memchr` finds each candidate
    /// first byte and `memcmp` checks the rest (a step of Swift code per candidate, not per byte).
    static func find(_ needle: [UInt8], in buffer: [UInt8], from: Int) -> Int? {
        guard from >= 0, buffer.count - from >= needle.count, let first = needle.first else { return nil }
        return buffer.withUnsafeBytes { haystack -> Int? in
            needle.withUnsafeBytes { pattern -> Int? in
                guard let base = haystack.baseAddress, let patternBase = pattern.baseAddress else { return nil }
                var offset = from
                let last = haystack.count - pattern.count
                while offset <= last {
                    guard let candidate = memchr(base + offset, Int32(first), last - offset + 1) else { return nil }
                    let position = base.distance(to: UnsafeRawPointer(candidate))
                    if memcmp(candidate, patternBase, pattern.count) == 0 { return position }
                    offset = position + 1
                }
                return nil
            }
        }
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
