import Foundation
import Hummingbird
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

    /// Appends `"events":[…]` to a body being written.
    public static func writeEvents(_ events: [Event], to out: inout [UInt8]) {
        JSONWriter.appendRaw(#""events":["#, to: &out)
        for (index, event) in events.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            event.writeJSON(to: &out)
        }
        out.append(UInt8(ascii: "]"))
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
