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
        var body = ""
        JSONWriter().write(.object(members + [("meta", meta())]), to: &body)
        return json(text: body, status: status)
    }

    /// A JSON response with a body already written.
    public static func json(text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The response for an error.
    public static func error(_ error: APIError) -> Response {
        json([("error", error.jsonValue)], status: error.status)
    }
}
