import Foundation
import Hummingbird
import Logging
import NIOCore
import Whereabouts

/// Building the server's JSON responses: every one carries Pryv's `meta` member.
public enum APIResponse {
    /// The API version the server announces (the Pryv API generation it follows).
    public static let apiVersion = "1.9.0"

    /// The `meta` member: `{apiVersion, serverTime, serial}`. `serverTime` is in seconds since
    /// 1970, for clients that keep their offset to the server's clock; `serial` changes when the
    /// server's API changes (it is the Whereabouts version).
    public static func meta(serverTime: Double = Date().timeIntervalSince1970) -> JSONValue {
        .object([
            ("apiVersion", .string(apiVersion)),
            ("serverTime", .number(serverTime)),
            ("serial", .string("whereabouts-\(WhereaboutsInfo.version)")),
        ])
    }

    /// A JSON response whose body is an object with `members` followed by `meta`.
    public static func json(
        _ members: [(key: String, value: JSONValue)], status: HTTPResponse.Status = .ok
    ) -> Response {
        let body = JSONWriter().bytes(from: .object(members + [("meta", meta())]))
        return json(bytes: body, status: status)
    }

    /// A JSON response whose body is an object with the members `writeMembers` appends (as
    /// `"key":value` pairs separated by commas), followed by `meta`: for answers too large to
    /// build as a `JSONValue` tree first, such as a batch or a day of events.
    public static func json(
        status: HTTPResponse.Status = .ok, reservingCapacity capacity: Int = 0,
        writingMembers writeMembers: (inout [UInt8]) -> Void
    ) -> Response {
        var body: [UInt8] = []
        body.reserveCapacity(capacity + 128)
        body.append(UInt8(ascii: "{"))
        writeMembers(&body)
        JSONWriter.appendRaw(#","meta":"#, to: &body)
        JSONWriter().write(meta(), to: &body)
        body.append(UInt8(ascii: "}"))
        return json(bytes: body, status: status)
    }

    /// The answer to `events.get` as `{"events":[…],"eventDeletions":[…],"next":…,"meta":…}`
    /// (`eventDeletions` with `includeDeletions` only), written as the events
    /// are read from the store, a page at a time (`first` is the first page, read already):
    /// memory holds one page, however long the answer. `next` is there when the answer was cut
    /// at the server's cap and more events match. `present` shows each event as the reading access
    /// sees it (its attachments' read tokens). `whenWritten` is called with each page's
    /// count once the page is sent (the rate limit's charge for the events read).
    ///
    /// A store failure after the first page cannot change the status any more: the body stops
    /// short (not valid JSON, so no client takes it for a whole answer) and the log has the cause.
    public static func events(
        _ answer: EventAnswer, first: [Event]?, presenting present: @escaping @Sendable (Event) -> Event = { $0 },
        whenWritten: @escaping @Sendable (_ pageCount: Int) async -> Void = { _ in }
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        // The body is written after the middleware has returned: it keeps the request's logger.
        let logger = APIError.logger
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            var answer = answer
            var out: [UInt8] = []
            out.reserveCapacity(64 * 1024)
            JSONWriter.appendRaw(#"{"events":["#, to: &out)
            var page = first
            var written = 0
            do {
                while let events = page {
                    for event in events {
                        if written > 0 { out.append(UInt8(ascii: ",")) }
                        present(event).writeJSON(to: &out)
                        written += 1
                    }
                    Self.escapeNonASCII(&out)
                    try await writer.write(ByteBuffer(bytes: out))
                    await whenWritten(events.count)
                    out.removeAll(keepingCapacity: true)
                    page = try await answer.next()
                }
                out.append(UInt8(ascii: "]"))
                if answer.deletionsSince != nil {
                    // Right after the events, as Pryv's clients parse them.
                    JSONWriter.appendRaw(#","eventDeletions":["#, to: &out)
                    var listed = 0
                    while let deletions = try await answer.nextDeletions() {
                        for deletion in deletions {
                            if listed > 0 { out.append(UInt8(ascii: ",")) }
                            JSONWriter().write(deletion.jsonValue, to: &out)
                            listed += 1
                        }
                        try await writer.write(ByteBuffer(bytes: out))
                        out.removeAll(keepingCapacity: true)
                    }
                    out.append(UInt8(ascii: "]"))
                }
                if let next = try await answer.continuation() {
                    JSONWriter.appendRaw(#","next":"#, to: &out)
                    JSONWriter().write(.string(next), to: &out)
                }
            } catch {
                throw streamFailure(error, what: "An answer to GET /events stopped before its end", logger: logger)
            }
            JSONWriter.appendRaw(#","meta":"#, to: &out)
            JSONWriter().write(meta(), to: &out)
            out.append(UInt8(ascii: "}"))
            try await writer.write(ByteBuffer(bytes: out))
            try await writer.finish(nil)
        })
    }

    /// Rewrites every non-ASCII character of JSON text as `\uXXXX` (a surrogate pair above
    /// U+FFFF), leaving the text's meaning as it was: outside strings JSON is ASCII already.
    /// A streamed answer is then ASCII throughout, so that a client that decodes each chunk it
    /// receives on its own (Pryv's JavaScript library does) never sees a character cut in two.
    /// Text that is ASCII already is only scanned.
    static func escapeNonASCII(_ text: inout [UInt8]) {
        guard let first = firstNonASCII(in: text) else { return }
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 64)
        out.append(contentsOf: text[..<first])
        let hex = Array("0123456789abcdef".utf8)
        func appendEscape(_ unit: UInt16) {
            out.append(contentsOf: [0x5C, 0x75, hex[Int(unit >> 12)], hex[Int(unit >> 8 & 0xF)], hex[Int(unit >> 4 & 0xF)], hex[Int(unit & 0xF)]])
        }
        for scalar in String(decoding: text[first...], as: UTF8.self).unicodeScalars {
            if scalar.isASCII {
                out.append(UInt8(scalar.value))
            } else {
                for unit in String(scalar).utf16 { appendEscape(unit) }
            }
        }
        text = out
    }

    /// The index of the first byte of `text` above 0x7F, looked for eight bytes at a time.
    static func firstNonASCII(in text: [UInt8]) -> Int? {
        text.withUnsafeBytes { raw -> Int? in
            var index = 0
            while index + 8 <= raw.count {
                if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
            while index < raw.count {
                if raw[index] >= 0x80 { return index }
                index += 1
            }
            return nil
        }
    }

    /// A failure while a response body was being written (its status already sent): logged with
    /// an error id, as every unexpected failure is, and returned to be thrown, which closes the
    /// connection with the body cut short.
    /// A client that goes away mid-answer (its connection closed or reset) is not a failure of
    /// the server: that is logged at debug level only. `logger` is the request's, taken before
    /// the body is written.
    static func streamFailure(_ error: any Error, what: String, logger: Logger) -> any Error {
        if error is CancellationError { return error }
        if error is ChannelError || error is IOError {
            logger.debug("\(what): the client went away", metadata: ["error": "\(error)"])
            return error
        }
        return APIError.unexpected(error, status: .internalServerError, what: what, logger: logger)
    }

    /// A JSON response with a body already written, as UTF-8 bytes.
    public static func json(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        json(body: ByteBuffer(bytes: bytes), status: status)
    }

    /// A JSON response with a body already written.
    public static func json(text: String, status: HTTPResponse.Status = .ok) -> Response {
        json(body: ByteBuffer(string: text), status: status)
    }

    private static func json(body: ByteBuffer, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// The response for an error.
    public static func error(_ error: APIError) -> Response {
        json([("error", error.jsonValue)], status: error.status)
    }
}
