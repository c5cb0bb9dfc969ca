import Foundation
import Hummingbird
import Whereabouts

/// Reads Pryv's multipart event upload as it arrives: an `event` part holding the event's JSON
/// and one or more file parts, which become the event's attachments.
///
/// The event's JSON is kept in memory (at most ``Limits/json`` bytes). Each file is written to
/// a file in the spool folder while it streams in, its size and SHA-256 counted on the way, so
/// that an upload costs one chunk of memory and one copy on disk, however large, and the
/// writes run on the blocking pool. On any failure the files written so far are removed.
enum MultipartEventReader {
    /// What one upload may hold.
    struct Limits: Sendable {
        /// The whole body's bytes.
        var body: Int
        /// The `event` part's bytes.
        var json: Int
        /// The number of file parts.
        var files = 100
    }

    /// The event JSON and files of a `multipart/form-data` body, read from `body` as it arrives;
    /// the files are spooled in `spoolDirectory` (the caller removes them once the create is
    /// over: ``APIService/EventCreateInput/removeSpooledFiles()``).
    static func read<Body: AsyncSequence & Sendable>(
        _ body: Body, contentType: String, limits: Limits, spoolDirectory: String
    ) async throws -> APIService.EventCreateInput where Body.Element == ByteBuffer {
        guard let boundary = boundary(in: contentType) else {
            throw APIError(.invalidRequestStructure, "A multipart request needs a `boundary` in its Content-Type.")
        }
        guard boundary.utf8.count <= 200 else {
            throw APIError(.invalidRequestStructure, "A multipart boundary has at most 70 characters (RFC 2046); this one has \(boundary.count).")
        }
        let upload = SpooledUpload(spoolDirectory: spoolDirectory, limits: limits)
        do {
            let parser = MultipartScanner(boundary: boundary)
            parser.onHeader = { name, value in upload.header(name, value) }
            parser.onBody = { bytes in upload.body(bytes) }
            parser.onPartComplete = { upload.partComplete() }
            var received = 0
            for try await chunk in body {
                received += chunk.readableBytes
                guard received <= limits.body else {
                    throw APIError(.tooLarge, "The request body is larger than this server accepts for a multipart upload (\(limits.body) bytes).")
                }
                do {
                    try chunk.withUnsafeReadableBytes { try parser.feed($0) }
                } catch {
                    throw APIError(.invalidRequestStructure, "The multipart body cannot be read: \(error).")
                }
                if let failure = upload.failure { throw failure }
                try await upload.flush()
            }
            // A body cut short (by a client that gave up, or a proxy) must not become an event
            // with the parts that happened to arrive: the close delimiter must be there (which
            // ends the last part).
            guard parser.isFinished else {
                throw APIError(.invalidRequestStructure,
                    "The multipart body ends before its closing boundary (--\(boundary)--): it was cut short; send it whole.")
            }
            guard let eventJSON = upload.eventJSON else {
                throw APIError(.invalidRequestStructure, "A multipart event upload needs a part named `event` holding the event's JSON.")
            }
            let json: JSONValue
            do {
                json = try JSONParser.parse(eventJSON)
            } catch {
                throw APIError(.invalidRequestStructure, "The `event` part is not valid JSON: \(error).")
            }
            return APIService.EventCreateInput(json: json, files: upload.files)
        } catch {
            upload.removeFiles()
            throw error
        }
    }

    /// The `boundary` parameter of a multipart Content-Type.
    static func boundary(in contentType: String) -> String? {
        parameter("boundary", in: contentType)
    }

    /// A `key=value` or `key="value"` parameter of a header value.
    static func parameter(_ key: String, in header: String) -> String? {
        for piece in header.split(separator: ";") {
            let trimmed = piece.drop { $0 == " " }
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            guard trimmed[..<equals].lowercased() == key else { continue }
            var value = trimmed[trimmed.index(after: equals)...]
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = value.dropFirst().dropLast()
            }
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }
}

/// The parts of one multipart upload as the parser hands them over: headers, then body pieces,
/// then the part's end. The parser's callbacks cannot throw or wait, so they record what is to
/// be written (``flush()`` writes it on the blocking pool) and the first failure.
private final class SpooledUpload {
    private struct OpenFile {
        var fileName: String
        var type: String
        var path: String
        var size = 0
        var digest = IntegrityDigest()
    }

    private enum Part {
        case awaitingBody
        case event
        case file(OpenFile)
    }

    private let spoolDirectory: String
    private let limits: MultipartEventReader.Limits
    private var headers: [(String, String)] = []
    private var part: Part = .awaitingBody
    private(set) var eventJSON: [UInt8]?
    private(set) var files: [APIService.IncomingFile] = []
    private var paths: [String] = []
    /// Bytes to append to files (path, bytes), in order; a path's first entry creates it.
    private var pending: [(path: String, bytes: [UInt8], create: Bool)] = []
    private(set) var failure: APIError?

    init(spoolDirectory: String, limits: MultipartEventReader.Limits) {
        self.spoolDirectory = spoolDirectory
        self.limits = limits
    }


    func header(_ name: String, _ value: String) {
        guard headers.count < 64 else {
            fail(APIError(.invalidRequestStructure, "A multipart part has more than 64 headers."))
            return
        }
        headers.append((name.lowercased(), value))
    }

    func body(_ buffer: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        if case .awaitingBody = part { begin() }
        switch part {
        case .awaitingBody:
            break
        case .event:
            guard (eventJSON?.count ?? 0) + buffer.count <= limits.json else {
                fail(APIError(.tooLarge, "The `event` part is larger than \(limits.json) bytes."))
                return
            }
            eventJSON?.append(contentsOf: buffer)
        case .file(var file):
            file.digest.update(buffer)
            file.size += buffer.count
            if let last = pending.last, last.path == file.path {
                pending[pending.count - 1].bytes.append(contentsOf: buffer)
            } else {
                pending.append((file.path, Array(buffer), false))
            }
            part = .file(file)
        }
    }

    func partComplete() {
        guard failure == nil else { return }
        if case .awaitingBody = part { begin() }  // a part with no body at all
        if case .file(let file) = part {
            files.append(APIService.IncomingFile(
                fileName: file.fileName, type: file.type, content: .spooledFile(path: file.path),
                size: file.size, integrity: file.digest.finish()))
        }
        headers = []
        part = .awaitingBody
    }

    /// Decides from the headers what the part is: the event (`name="event"`, no file name) or
    /// a file, which gets its spool file.
    private func begin() {
        let disposition = headers.first { $0.0 == "content-disposition" }?.1 ?? ""
        let name = MultipartEventReader.parameter("name", in: disposition)
        let fileName = MultipartEventReader.parameter("filename", in: disposition)
        if name == "event" && fileName == nil {
            guard eventJSON == nil else {
                fail(APIError(.invalidRequestStructure, "A multipart event upload holds one `event` part; this one has several."))
                return
            }
            eventJSON = []
            part = .event
            return
        }
        guard paths.count < limits.files else {
            fail(APIError(.invalidRequestStructure, "A multipart event upload holds at most \(limits.files) files."))
            return
        }
        let type = headers.first { $0.0 == "content-type" }?.1 ?? "application/octet-stream"
        let path = spoolDirectory + "/upload-" + AccessToken.generate()
        paths.append(path)
        pending.append((path, [], true))
        part = .file(OpenFile(fileName: fileName ?? name ?? "file", type: type, path: path))
    }

    private func fail(_ error: APIError) {
        if failure == nil { failure = error }
    }

    /// Writes the pending bytes on the blocking pool.
    func flush() async throws {
        guard !pending.isEmpty else { return }
        let writes = pending
        pending = []
        try await BlockingFileWork.run {
            for write in writes {
                try BlockingFileWork.write(write.bytes, to: write.path, creating: write.create, exclusive: true,
                                           what: "an uploaded file")
            }
        }
    }

    /// Removes every file written so far (an upload that failed).
    func removeFiles() {
        for path in paths { unlink(path) }
    }
}
