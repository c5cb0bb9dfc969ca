import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Whereabouts

/// Talks to a Whereabouts (or Pryv) server for one token: keeps the offset to the server's
/// clock, creates and updates events, sends notes and pictures, reads events and streams.
///
/// Every answer's `meta.serverTime` refreshes the clock offset, so ``serverTime(forLocal:)``
/// turns this machine's time into the server's. Errors are ``TrackingError``s that tell
/// "try again later" (``TrackingError/isRetryable``) from "fix the request".
///
/// ```swift
/// let client = try TrackingClient(server: "http://127.0.0.1:8080", token: token)
/// let serverTime = try await client.start()
/// let note = try await client.sendNote("Arrived")
/// let today = try await client.events(from: nil, to: nil, streamId: nil)   // the last 24 hours
/// ```
public actor TrackingClient {
    /// The server's base URL, without a trailing slash.
    public nonisolated let server: String
    /// The stream events go to when no other is named.
    public nonisolated let defaultStream: String
    /// How long one request may take.
    public nonisolated let timeout: Double
    /// The largest answer read, in bytes (64 MiB).
    public static let maximumAnswerSize = 64 << 20

    /// The token's SHA-256, in hexadecimal: how an outbox knows the token again without keeping it.
    public nonisolated let tokenDigest: String
    private let token: String
    private let httpClient: HTTPClient
    /// Server time minus local time, seconds, from the last answer (`nil` before the first).
    public private(set) var clockOffset: Double?
    /// The token's user, once ``start()`` has run.
    public private(set) var userName: String?

    /// Creates a client; nothing is sent until a call.
    ///
    /// - Parameters:
    ///   - server: The server's URL, e.g. `http://127.0.0.1:8080`.
    ///   - token: The access token.
    ///   - defaultStream: The stream notes, pictures and reads go to when none is named.
    ///   - timeout: Seconds one request may take (default 30).
    ///   - httpClient: The HTTP client (default: ``sharedHTTPClient``).
    public init(server: String, token: String, defaultStream: String = "position", timeout: Double = 30,
                httpClient: HTTPClient = TrackingClient.sharedHTTPClient) throws {
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil else {
            throw TrackingError.invalidRequest("\"\(server)\" is not a server URL (expected e.g. http://127.0.0.1:8080)")
        }
        guard !token.isEmpty, !token.contains(where: { $0.isNewline }) else {
            throw TrackingError.invalidRequest("the token is empty or holds a line break")
        }
        self.server = base
        self.token = token
        tokenDigest = SHA256.hash(data: Array(token.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
        self.defaultStream = defaultStream
        self.timeout = timeout
        self.httpClient = httpClient
    }

    /// The HTTP client tracking clients share unless given another: like `HTTPClient.shared`,
    /// but a server that refuses connections fails the request at once (connect timeout 5 s)
    /// instead of being retried until the request's deadline: the outbox does the retrying.
    public static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(5)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    // MARK: Time

    /// Checks the token (`GET /access-info`) and measures the server's clock; returns the
    /// server's time.
    @discardableResult
    public func start() async throws -> Double {
        let answer = try await send(.GET, "/access-info")
        if case .string(let name)? = answer["user"]?["username"] { userName = name }
        return serverTime(forLocal: Date().timeIntervalSince1970)
    }

    /// Measures the server's clock again; returns the server's time.
    @discardableResult
    public func synchronizeTime() async throws -> Double {
        try await start()
    }

    /// The server's time at local time `local` (seconds since 1970), by the last measured
    /// offset (none measured: `local`).
    public func serverTime(forLocal local: Double) -> Double {
        local + (clockOffset ?? 0)
    }

    // MARK: Events

    /// Creates `event` (`POST /events`). A repeated id answers with the stored event.
    public func create(_ event: TrackedEvent) async throws -> TrackedEvent {
        try Self.event(in: try await send(.POST, "/events", json: event.jsonValue))
    }

    /// Sets an event's duration (`PUT /events/{id}`).
    public func updateDuration(ofEvent id: String, to duration: Double) async throws -> TrackedEvent {
        try Self.event(in: try await send(.PUT, "/events/" + Self.pathComponent(id),
                                          json: .object([("duration", .number(duration))])))
    }

    /// Sends a `note/txt` event: `text` at `time` (default: now, server time) in `streamId`
    /// (default: ``defaultStream``).
    public func sendNote(_ text: String, time: Double? = nil, streamId: String? = nil, id: String? = nil) async throws -> TrackedEvent {
        var identifiers = EventIdentifiers.random
        let when = time ?? serverTime(forLocal: Date().timeIntervalSince1970)
        let event = TrackedEvent(id: id ?? identifiers.next(now: when), streamIds: [streamId ?? defaultStream], time: when,
                                 type: "note/txt", content: .string(text))
        return try await create(event)
    }

    /// Creates `event` with `file` attached (multipart `POST /events`): how a `picture/attached`
    /// event is sent.
    public func create(_ event: TrackedEvent, attaching file: URL, fileName: String? = nil) async throws -> TrackedEvent {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue
        guard let size else { throw TrackingError.invalidRequest("cannot read \(file.path)") }
        guard size <= Outbox.maximumAttachmentSize else {
            throw TrackingError.invalidRequest("\(file.path) has \(size) bytes; at most \(Outbox.maximumAttachmentSize) are sent")
        }
        let data: Data
        do { data = try Data(contentsOf: file) } catch { throw TrackingError.invalidRequest("cannot read \(file.path): \(error.localizedDescription)") }
        let boundary = "whereabouts-" + UUID().uuidString
        var body = ByteBuffer()
        body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"event\"\r\nContent-Type: application/json\r\n\r\n")
        body.writeBytes(JSONWriter().bytes(from: event.jsonValue))
        let name = Self.quotedFileName(fileName ?? file.lastPathComponent)
        body.writeString("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\n")
        body.writeString("Content-Type: application/octet-stream\r\n\r\n")
        body.writeBytes(data)
        body.writeString("\r\n--\(boundary)--\r\n")
        return try Self.event(in: try await send(.POST, "/events", body: body, contentType: "multipart/form-data; boundary=\(boundary)"))
    }

    /// Sends a `picture/attached` event carrying `file`.
    public func sendPicture(_ file: URL, time: Double? = nil, streamId: String? = nil, description: String? = nil) async throws -> TrackedEvent {
        var identifiers = EventIdentifiers.random
        let when = time ?? serverTime(forLocal: Date().timeIntervalSince1970)
        let event = TrackedEvent(id: identifiers.next(now: when), streamIds: [streamId ?? defaultStream], time: when,
                                 type: "picture/attached", description: description)
        return try await create(event, attaching: file)
    }

    /// The events between `from` and `to` (seconds since 1970, server time) in `streamId` and its
    /// children, oldest first (newest first with `newestFirst`: `limit: 1` is then the latest).
    ///
    /// As Pryv's position client documents: `nil` and `nil` give the last 24 hours (and the
    /// minute ahead of the server's clock), a `nil` end alone up to that minute ahead; a `nil`
    /// stream gives every stream the token may read.
    /// At most `limit` events (default 1,000); when the server answers in parts (it caps the
    /// events of one answer), the parts are fetched in turn.
    public func events(from: Double?, to: Double?, streamId: String?, types: [String] = [], limit: Int = 1_000,
                       newestFirst: Bool = false) async throws -> [TrackedEvent] {
        var query: [(String, String)] = []
        var start = from, end = to
        if end == nil {
            // Up to the minute ahead, not the server's now: an event stamped "now" by a clock a
            // little ahead (or by the offset measured on another answer, which is off by up to
            // half that answer's round trip) is still in. With no start either, the last 24 hours.
            let now = serverTime(forLocal: Date().timeIntervalSince1970)
            end = now + 60
            if start == nil { start = now - 86_400 }
        }
        if let start { query.append(("fromTime", Self.numberText(start))) }
        if let end { query.append(("toTime", Self.numberText(end))) }
        if let streamId { query.append(("streams[]", streamId)) }
        for type in types { query.append(("types[]", type)) }
        query.append(("sortAscending", newestFirst ? "false" : "true"))
        query.append(("limit", String(max(1, limit))))
        // A server answers at most its cap of events at once and says where to go on (`next`).
        var events: [TrackedEvent] = []
        var cursor: String?
        repeat {
            let answer = try await send(.GET, "/events", query: query + (cursor.map { [("cursor", $0)] } ?? []))
            guard case .array(let items)? = answer["events"] else { throw TrackingError.invalidAnswer("no `events` array") }
            events += items.compactMap(TrackedEvent.init(json:))
            guard case .string(let next)? = answer["next"], next != cursor, !items.isEmpty else { break }
            cursor = next
        } while events.count < limit
        return events
    }

    // MARK: Streams

    /// The streams the token may read, as a forest.
    public func streams() async throws -> [TrackedStream] {
        let answer = try await send(.GET, "/streams")
        guard case .array(let items)? = answer["streams"] else { throw TrackingError.invalidAnswer("no `streams` array") }
        return items.compactMap { TrackedStream(json: $0) }
    }

    /// Creates a stream.
    public func createStream(id: String, name: String? = nil, parentId: String? = nil) async throws -> TrackedStream {
        var members: [(key: String, value: JSONValue)] = [("id", .string(id)), ("name", .string(name ?? id))]
        if let parentId { members.append(("parentId", .string(parentId))) }
        let answer = try await send(.POST, "/streams", json: .object(members))
        guard let stream = answer["stream"].flatMap({ TrackedStream(json: $0) }) else { throw TrackingError.invalidAnswer("no `stream`") }
        return stream
    }

    /// Creates `id` unless the token already sees a stream of that id.
    public func ensureStream(_ id: String) async throws {
        if try await streams().contains(where: { $0.flattened.contains { $0.id == id } }) { return }
        _ = try await createStream(id: id)
    }

    // MARK: Batches

    /// One answer of a batch: the call's result or its error.
    public enum BatchAnswer: Sendable {
        /// The call's result (`{"event": …}` for events calls).
        case result(JSONValue)
        /// The call's error: the Pryv error id and message.
        case error(id: String, message: String)
    }

    /// Sends a batch (`POST /`), each call already in its `{"method", "params"}` form; the
    /// answers come in the calls' order.
    public func batch(_ calls: [[UInt8]]) async throws -> [BatchAnswer] {
        var body = ByteBuffer()
        body.reserveCapacity(calls.reduce(2) { $0 + $1.count + 1 })
        body.writeInteger(UInt8(ascii: "["))
        for (index, call) in calls.enumerated() {
            if index > 0 { body.writeInteger(UInt8(ascii: ",")) }
            body.writeBytes(call)
        }
        body.writeInteger(UInt8(ascii: "]"))
        let answer = try await send(.POST, "/", body: body, contentType: "application/json")
        guard case .array(let results)? = answer["results"], results.count == calls.count else {
            throw TrackingError.invalidAnswer("a batch of \(calls.count) calls was not answered with as many results")
        }
        return results.map { result in
            if let error = result["error"] {
                let id: String = if case .string(let id)? = error["id"] { id } else { "unknown" }
                let message: String = if case .string(let message)? = error["message"] { message } else { "" }
                return .error(id: id, message: message)
            }
            return .result(result)
        }
    }

    /// What the server did with receivers' reports (``sendReceiverReports(_:)``).
    public struct ReceiverReportsAnswer: Sendable {
        /// Reports the server took into its fusion.
        public var accepted: Int
        /// Reports it refused.
        public var refused: Int
        /// The first refusals' reasons, by index in the request (at most 20).
        public var reasons: [(index: Int, message: String)]
    }

    /// Sends fixed receivers' reports (`POST /receivers/reports`: each scan's `device` is the
    /// receiver, its readings the tags heard; FORMATS.md §8). The token needs the `receivers`
    /// grant (`whereabouts users token NAME --stream receivers --level contribute`).
    ///
    /// - Throws: ``TrackingError/refused(status:errorId:message:)`` when the server refuses the
    ///   whole request (a 4xx: none taken), ``TrackingError/unreachable(server:reason:)`` when it
    ///   cannot be reached.
    public func sendReceiverReports(_ reports: [Scan]) async throws -> ReceiverReportsAnswer {
        var body: [UInt8] = [UInt8(ascii: "[")]
        for (index, report) in reports.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += Array(ScanCoding.line(for: report).utf8)
        }
        body.append(UInt8(ascii: "]"))
        let answer = try await send(.POST, "/receivers/reports", body: ByteBuffer(bytes: body), contentType: "application/json")
        guard case .number(let accepted)? = answer["accepted"], case .number(let refused)? = answer["refusedCount"] else {
            throw TrackingError.invalidAnswer("POST /receivers/reports did not say how many reports were taken")
        }
        var reasons: [(index: Int, message: String)] = []
        if case .array(let listed)? = answer["refused"] {
            for item in listed.prefix(20) {
                if case .number(let index)? = item["index"], case .string(let message)? = item["message"] {
                    reasons.append((Int(index), message))
                }
            }
        }
        return ReceiverReportsAnswer(accepted: Int(accepted), refused: Int(refused), reasons: reasons)
    }

    // MARK: Transport

    private func send(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], json: JSONValue) async throws -> JSONValue {
        try await send(method, path, query: query, body: ByteBuffer(bytes: JSONWriter().bytes(from: json)), contentType: "application/json")
    }

    private func send(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: ByteBuffer? = nil,
                      contentType: String? = nil) async throws -> JSONValue {
        var url = server + path
        if !query.isEmpty {
            url += "?" + query.map { Self.queryComponent($0.0) + "=" + Self.queryComponent($0.1) }.joined(separator: "&")
        }
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: token)
        request.headers.add(name: "Accept", value: "application/json")
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        if let body { request.body = .bytes(body) }
        let sent = Date().timeIntervalSince1970
        let status: Int
        let bytes: ByteBuffer
        do {
            let response = try await httpClient.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
            status = Int(response.status.code)
            bytes = try await response.body.collect(upTo: Self.maximumAnswerSize)
        } catch let error as TrackingError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw TrackingError.unreachable(server: server, reason: Self.reason(error))
        }
        let received = Date().timeIntervalSince1970
        let answer = (try? JSONParser.parse(bytes.readableBytesView)) ?? .null
        if case .number(let serverTime)? = answer["meta"]?["serverTime"] {
            clockOffset = serverTime - (sent + received) / 2
        }
        guard (200..<300).contains(status) else {
            let id: String = if case .string(let id)? = answer["error"]?["id"] { id } else { "http-\(status)" }
            let message: String = if case .string(let message)? = answer["error"]?["message"] { message } else {
                String(decoding: bytes.readableBytesView.prefix(200), as: UTF8.self)
            }
            throw TrackingError.refused(status: status, errorId: id, message: message)
        }
        guard case .object = answer else { throw TrackingError.invalidAnswer("\(method) \(path) did not answer with a JSON object") }
        return answer
    }

    private static func event(in answer: JSONValue) throws -> TrackedEvent {
        guard let json = answer["event"], let event = TrackedEvent(json: json) else { throw TrackingError.invalidAnswer("no `event`") }
        return event
    }

    private static func reason(_ error: any Error) -> String {
        let text = "\(error)"
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    private static func pathComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? text
    }

    private static func queryComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// A number as the API's query strings take it (JSON's spelling).
    private static func numberText(_ value: Double) -> String {
        var bytes: [UInt8] = []
        JSONWriter.appendNumber(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func quotedFileName(_ name: String) -> String {
        String(name.filter { $0 != "\"" && $0 != "\r" && $0 != "\n" && $0 != "\\" }.prefix(200))
    }
}
