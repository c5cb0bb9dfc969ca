import Testing
@testable import WhereaboutsServer

/// The multipart parser gives the same parts however the body is cut into chunks: a delimiter,
/// a CRLF or a header cut between two chunks at any byte.
@Suite("Multipart scanner")
struct MultipartScannerTests {
    /// The parts a scanner reads from `body` fed in chunks of `size` bytes: each part's headers
    /// and bytes, and whether the close delimiter was seen.
    static func parts(_ body: [UInt8], boundary: String, chunk size: Int) throws -> (parts: [([String], [UInt8])], finished: Bool) {
        let scanner = MultipartScanner(boundary: boundary)
        var parts: [([String], [UInt8])] = []
        var headers: [String] = []
        var bytes: [UInt8] = []
        scanner.onHeader = { name, value in headers.append("\(name)=\(value)") }
        scanner.onBody = { bytes.append(contentsOf: $0) }
        scanner.onPartComplete = {
            parts.append((headers, bytes))
            headers = []
            bytes = []
        }
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + size)
            try body[offset..<end].withUnsafeBytes { try scanner.feed($0) }
            offset = end
        }
        return (parts, scanner.isFinished)
    }

    static let boundary = "XyZ"
    /// A preamble, a part with headers whose data hold near-delimiters and CRLFs, a part with
    /// no headers and no data, then the close delimiter and an epilogue.
    static let body = Array((
        "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"event\"\r\nContent-Type: application/json\r\n\r\n"
        + "{\"a\": 1}\r\n--XyZ  \r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\r\n"
        + "\r\n-XyZ\r\n--Xy\r\r\n--x\r\n--XyZ\r\n\r\n\r\n--XyZ--\r\nepilogue --XyZ\r\n"
    ).utf8)

    @Test("Every chunk size gives the same parts")
    func everyChunkSizeGivesTheSameParts() throws {
        let whole = try Self.parts(Self.body, boundary: Self.boundary, chunk: Self.body.count)
        #expect(whole.finished)
        #expect(whole.parts.count == 3)
        #expect(whole.parts[0].0 == ["Content-Disposition=form-data; name=\"event\"", "Content-Type=application/json"])
        #expect(whole.parts[0].1 == Array("{\"a\": 1}".utf8))
        #expect(whole.parts[1].1 == Array("\r\n-XyZ\r\n--Xy\r\r\n--x".utf8))
        #expect(whole.parts[2].0.isEmpty && whole.parts[2].1.isEmpty)
        for size in 1..<Self.body.count {
            let cut = try Self.parts(Self.body, boundary: Self.boundary, chunk: size)
            #expect(cut.finished, "chunks of \(size)")
            #expect(cut.parts.map(\.0) == whole.parts.map(\.0) && cut.parts.map(\.1) == whole.parts.map(\.1), "chunks of \(size)")
        }
    }

    @Test("A body cut before its close delimiter is not finished; a malformed one is refused")
    func cutAndMalformedBodies() throws {
        let cut = Array(Self.body.prefix(Self.body.count - 30))
        #expect(try !Self.parts(cut, boundary: Self.boundary, chunk: 7).finished)
        #expect(throws: MultipartScanner.Failure.self) {
            _ = try Self.parts(Array("--XyZ\r\nno colon here\r\n\r\ndata\r\n--XyZ--".utf8), boundary: Self.boundary, chunk: 5)
        }
        #expect(throws: MultipartScanner.Failure.self) {
            _ = try Self.parts(Array("--XyZ garbage\r\n".utf8), boundary: Self.boundary, chunk: 3)
        }
        #expect(throws: MultipartScanner.Failure.self) {
            _ = try Self.parts([UInt8](repeating: 0x61, count: 70_000), boundary: Self.boundary, chunk: 4_096)
        }
    }
}
