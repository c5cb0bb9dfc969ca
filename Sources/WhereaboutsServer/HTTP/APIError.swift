import Hummingbird
import Whereabouts

/// An error the API reports to the client in Pryv's shape:
/// `{"error": {"id": "invalid-parameters-format", "message": "…"}, "meta": {…}}`.
///
/// Handlers throw it; ``APIErrorMiddleware`` turns it (and every other error) into a response,
/// so that no client input can produce a 5xx.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// Pryv's error identifier, e.g. `unknown-resource`.
    public var id: String
    /// A sentence for people saying what was wrong and, where it helps, what to do.
    public var message: String
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// Per-item details (e.g. which batch call failed), when any.
    public var data: JSONValue?

    /// Creates an error.
    public init(id: String, message: String, status: HTTPResponse.Status, data: JSONValue? = nil) {
        self.id = id
        self.message = message
        self.status = status
        self.data = data
    }

    /// The error as the `error` member of a response.
    public var jsonValue: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("id", .string(id)), ("message", .string(message))]
        if let data { members.append(("data", data)) }
        return .object(members)
    }

    /// A summary for logs.
    public var description: String { "\(status.code) \(id): \(message)" }

    /// The body is not valid JSON or not the expected structure.
    public static func invalidRequestStructure(_ message: String) -> APIError {
        APIError(id: "invalid-request-structure", message: message, status: .badRequest)
    }

    /// A batch call names a method the server does not have (Pryv's `invalid-method`).
    public static func invalidMethod(_ message: String) -> APIError {
        APIError(id: "invalid-method", message: message, status: .badRequest)
    }

    /// A parameter or field has the wrong type or value.
    public static func invalidParameters(_ message: String) -> APIError {
        APIError(id: "invalid-parameters-format", message: message, status: .badRequest)
    }

    /// The event, stream, attachment or route does not exist (or is not visible to the token).
    public static func unknownResource(_ message: String) -> APIError {
        APIError(id: "unknown-resource", message: message, status: .notFound)
    }

    /// The request refers to something (e.g. a stream) that does not exist.
    public static func unknownReferencedResource(_ message: String) -> APIError {
        APIError(id: "unknown-referenced-resource", message: message, status: .badRequest)
    }

    /// Something with this identifier already exists.
    public static func itemAlreadyExists(_ message: String) -> APIError {
        APIError(id: "item-already-exists", message: message, status: .conflict)
    }

    /// No token, or a token the server does not know.
    public static func invalidAccessToken(_ message: String) -> APIError {
        APIError(id: "invalid-access-token", message: message, status: .unauthorized)
    }

    /// The token is valid but does not allow this.
    public static func forbidden(_ message: String) -> APIError {
        APIError(id: "forbidden", message: message, status: .forbidden)
    }

    /// The client's precondition failed: the item changed after the time it gave
    /// (`If-Unmodified-Since`, or `ifUnmodifiedSince` in a batch call).
    public static func preconditionFailed(_ message: String) -> APIError {
        APIError(id: "precondition-failed", message: message, status: .preconditionFailed)
    }

    /// The item kept changing while the server tried to apply the request to it.
    public static func itemChanged(_ message: String) -> APIError {
        APIError(id: "item-changed", message: message, status: .conflict)
    }

    /// The body exceeds the server's limit.
    public static func tooLarge(_ message: String) -> APIError {
        APIError(id: "request-too-large", message: message, status: .contentTooLarge)
    }

    /// The token sent more requests than its rate allows.
    public static func tooManyRequests(_ message: String) -> APIError {
        APIError(id: "too-many-requests", message: message, status: .tooManyRequests)
    }
}
