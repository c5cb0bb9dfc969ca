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

    /// Creates an error of a kind of Pryv's, with its identifier and status.
    ///
    /// ```swift
    /// throw APIError(.unknownResource, "Unknown event \"\(id)\".")
    /// ```
    public init(_ kind: Kind, _ message: String, data: JSONValue? = nil) {
        self.init(id: kind.rawValue, message: message, status: kind.status, data: data)
    }

    /// The kinds of errors the API reports: Pryv's error identifier (the raw value) and the
    /// HTTP status that goes with it.
    public enum Kind: String, CaseIterable, Sendable {
        /// The body is not valid JSON or not the expected structure. 400.
        case invalidRequestStructure = "invalid-request-structure"
        /// A batch call names a method the server does not have. 400.
        case invalidMethod = "invalid-method"
        /// A parameter or field has the wrong type or value. 400.
        case invalidParameters = "invalid-parameters-format"
        /// The event, stream, attachment or route does not exist (or is not visible to the
        /// token). 404.
        case unknownResource = "unknown-resource"
        /// The request refers to something (e.g. a stream) that does not exist. 400.
        case unknownReferencedResource = "unknown-referenced-resource"
        /// Something with this identifier already exists. 409.
        case itemAlreadyExists = "item-already-exists"
        /// No token, or a token the server does not know. 401.
        case invalidAccessToken = "invalid-access-token"
        /// The token is valid but does not allow this. 403.
        case forbidden = "forbidden"
        /// The client's precondition failed: the item changed after the time it gave
        /// (`If-Unmodified-Since`, or `ifUnmodifiedSince` in a batch call). 412.
        case preconditionFailed = "precondition-failed"
        /// The item kept changing while the server tried to apply the request to it. 409.
        case itemChanged = "item-changed"
        /// The body exceeds the server's limit. 413.
        case tooLarge = "request-too-large"
        /// The token sent more requests than its rate allows. 429.
        case tooManyRequests = "too-many-requests"

        /// The HTTP status of this kind of error.
        public var status: HTTPResponse.Status {
            switch self {
            case .invalidRequestStructure, .invalidMethod, .invalidParameters, .unknownReferencedResource: .badRequest
            case .unknownResource: .notFound
            case .itemAlreadyExists, .itemChanged: .conflict
            case .invalidAccessToken: .unauthorized
            case .forbidden: .forbidden
            case .preconditionFailed: .preconditionFailed
            case .tooLarge: .contentTooLarge
            case .tooManyRequests: .tooManyRequests
            }
        }
    }
}
