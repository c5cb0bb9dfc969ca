import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Multipart uploads are spooled to disk as they arrive: stored byte for byte, and nothing left
/// in the spool folder whatever becomes of the request.
@Suite("Upload spooling")
struct UploadSpoolingTests {
    static let boundary = "spool-boundary"
    static let headers = [("Content-Type", "multipart/form-data; boundary=\(boundary)")]

    /// A multipart body: the event's JSON, then one part per file.
    static func body(event: String, files: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"event\"\r\n\r\n".utf8) + Array(event.utf8)
        for file in files {
            body += Array("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(file.name)\"\r\n".utf8)
            body += Array("Content-Type: application/octet-stream\r\n\r\n".utf8) + file.bytes
        }
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return body
    }

    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// The files in the SQLite store's spool folder (the PostgreSQL store spools to the shared
    /// temporary folder, where other tests' files may be).
    static func spooled(in server: TestServer) -> [String]? {
        guard server.store is SQLiteEventStore else { return nil }
        return (try? FileManager.default.contentsOfDirectory(atPath: server.store.uploadSpoolDirectory)) ?? []
    }

    @Test("Files of megabytes, boundaries and CRLFs inside them, arrive byte for byte; the spool is left empty",
          arguments: StoreKind.tested)
    func largeFilesRoundTrip(kind: StoreKind) async throws {
        var configuration = ServerConfiguration()
        configuration.bodyLimits = .init(json: 1 << 20, attachments: 16 << 20)
        try await TestServer.run(kind, configuration: configuration) { server in
            let (_, token) = try await server.addUser("spool")
            // Bytes that look like the start of a boundary, split across the file.
            let tricky = Array("\r\n--spool-bound\r\n--\r\n".utf8)
            let files = [("big.bin", Self.randomBytes(3_000_000, seed: 1)),
                         ("tricky.bin", tricky + Self.randomBytes(70_000, seed: 2) + tricky),
                         ("empty.bin", [])]
            let body = Self.body(event: #"{"id":"big","streamIds":["position"],"type":"picture/attached"}"#,
                                 files: files.map { (name: $0.0, bytes: $0.1) })
            let created = try await server.request(.POST, "/events", token: token, body: body, headers: Self.headers)
            #expect(created.status == 201, "\(created.text)")
            let attachments = try #require(created.json["event"]?["attachments"]?.arrayValue)
            #expect(attachments.count == 3)
            for (attachment, (name, bytes)) in zip(attachments, files) {
                #expect(attachment["fileName"]?.stringValue == name)
                #expect(attachment["size"]?.numberValue == Double(bytes.count))
                #expect(attachment["integrity"]?.stringValue == AttachmentUpload.integrity(of: bytes))
                let id = try #require(attachment["id"]?.stringValue)
                let download = try await server.request(.GET, "/events/big/\(id)", token: token)
                #expect(download.status == 200)
                #expect(download.body == bytes, "\(name)")
            }
            if let left = Self.spooled(in: server) { #expect(left.isEmpty, "\(left)") }
        }
    }

    @Test("A repeated upload of a stored event keeps the stored files and leaves no other", arguments: StoreKind.tested)
    func repeatedUpload(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (user, token) = try await server.addUser("again")
            let event = #"{"id":"twice","streamIds":["position"],"type":"picture/attached"}"#
            let first = Self.body(event: event, files: [("a.bin", Self.randomBytes(5_000, seed: 3))])
            let second = Self.body(event: event, files: [("a.bin", Self.randomBytes(5_000, seed: 4))])
            let created = try await server.request(.POST, "/events", token: token, body: first, headers: Self.headers)
            #expect(created.status == 201)
            let repeated = try await server.request(.POST, "/events", token: token, body: second, headers: Self.headers)
            #expect(repeated.status == 200, "\(repeated.text)")
            #expect(repeated.json["event"] == created.json["event"])
            let id = try #require(created.json["event"]?["attachments"]?.arrayValue?.first?["id"]?.stringValue)
            let download = try await server.request(.GET, "/events/twice/\(id)", token: token)
            #expect(download.body == Self.randomBytes(5_000, seed: 3))
            if let sqlite = server.store as? SQLiteEventStore {
                let folder = sqlite.directory + "/attachments/\(AttachmentFiles.escape(user))/twice"
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [AttachmentFiles.escape(id)])
                #expect(Self.spooled(in: server)?.isEmpty == true)
            }
        }
    }

    @Test("An upload refused — too large, unknown stream, too many files, cut short — leaves no file behind",
          arguments: StoreKind.tested)
    func refusedUploads(kind: StoreKind) async throws {
        var configuration = ServerConfiguration()
        configuration.bodyLimits = .init(json: 1 << 20, attachments: 1 << 20)
        try await TestServer.run(kind, configuration: configuration) { server in
            let (_, token) = try await server.addUser("refused")
            let good = #"{"streamIds":["position"],"type":"picture/attached"}"#

            // Over the limit: refused as it arrives, after part of the file was spooled.
            let large = Self.body(event: good, files: [("a.bin", Self.randomBytes(1_100_000, seed: 5))])
            let tooLarge = try await server.request(.POST, "/events", token: token, body: large, headers: Self.headers)
            #expect(tooLarge.status == 413, "\(tooLarge.text)")
            #expect(tooLarge.errorId == "request-too-large")

            let unknownStream = Self.body(event: #"{"streamIds":["nowhere"],"type":"picture/attached"}"#,
                                          files: [("a.bin", Self.randomBytes(10_000, seed: 6))])
            let refused = try await server.request(.POST, "/events", token: token, body: unknownStream, headers: Self.headers)
            #expect(refused.status == 400, "\(refused.text)")

            let many = Self.body(event: good, files: (0...100).map { (name: "f\($0).bin", bytes: [UInt8($0)]) })
            let tooMany = try await server.request(.POST, "/events", token: token, body: many, headers: Self.headers)
            #expect(tooMany.status == 400, "\(tooMany.text)")
            #expect(tooMany.text.contains("at most 100 files"), "\(tooMany.text)")

            let whole = Self.body(event: good, files: [("a.bin", Self.randomBytes(10_000, seed: 7))])
            let cut = try await server.request(.POST, "/events", token: token, body: Array(whole.dropLast(40)),
                                               headers: Self.headers)
            #expect(cut.status == 400, "\(cut.text)")

            let twoEvents = Self.body(event: good, files: []) .dropLast(Array("--\r\n".utf8).count)
                + Array("\r\nContent-Disposition: form-data; name=\"event\"\r\n\r\n{}\r\n--\(Self.boundary)--\r\n".utf8)
            let doubled = try await server.request(.POST, "/events", token: token, body: Array(twoEvents), headers: Self.headers)
            #expect(doubled.status == 400, "\(doubled.text)")

            if let left = Self.spooled(in: server) { #expect(left.isEmpty, "\(left)") }
            let events = try await server.request(.GET, "/events", token: token)
            #expect(events.json["events"]?.arrayValue?.isEmpty == true, "\(events.text)")
        }
    }
}
