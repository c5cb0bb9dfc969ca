/// What can go wrong between a tracking client and its server, sorted by what to do about it:
/// ``isRetryable`` errors pass (try again later); the others need the request or the setup
/// fixed.
public enum TrackingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No answer: the server is down, unreachable, or too slow.
    case unreachable(server: String, reason: String)
    /// The server answered with an error: its HTTP status, Pryv error id and message.
    case refused(status: Int, errorId: String, message: String)
    /// The server's answer was not what the API promises.
    case invalidAnswer(String)
    /// The request cannot be made as asked (a malformed URL, a file too large, …).
    case invalidRequest(String)

    /// Whether trying again later may succeed: no answer, a server error (5xx), too many requests
    /// (429) or a timeout (408).
    public var isRetryable: Bool {
        switch self {
        case .unreachable: true
        case .refused(let status, _, _): status >= 500 || status == 429 || status == 408
        case .invalidAnswer, .invalidRequest: false
        }
    }

    /// Whether the token itself was refused (401): nothing can be delivered until it is replaced.
    public var isTokenRefused: Bool {
        if case .refused(401, _, _) = self { return true }
        return false
    }

    /// A sentence that says what went wrong and what to do.
    public var description: String {
        switch self {
        case .unreachable(let server, let reason):
            "The server \(server) did not answer (\(reason))."
        case .refused(401, _, let message):
            "The server refused the token (\(message)). Check --token: `whereabouts users token NAME` issues one."
        case .refused(403, _, let message):
            "The token may not do this (\(message)). Issue one with contribute on the stream: `whereabouts users token NAME --stream S --level contribute`."
        case .refused(let status, let id, let message):
            "The server answered \(status) \(id): \(message)"
        case .invalidAnswer(let message):
            "The server's answer is not one the API gives: \(message)"
        case .invalidRequest(let message):
            "Cannot make the request: \(message)"
        }
    }
}
