import Hummingbird
import Logging
import Whereabouts

extension APIError {
    /// A store failure, reported without internals: the client's request was fine, the server
    /// could not complete it. The answer carries an error id, and the server's log has the cause
    /// under the same id (``unexpected(_:status:what:)``).
    static func storeFailure(_ error: any Error) -> APIError {
        if let error = error as? APIError { return error }
        if let error = error as? StoreError {
            switch error {
            case .alreadyExists: return APIError(.itemAlreadyExists, error.description)
            case .notFound: return APIError(.unknownResource, error.description)
            case .cycle: return APIError(.invalidParameters, "A stream cannot move inside itself or its descendants (\(error.description)).")
            case .changed: return APIError(.itemChanged, "The \(error.description); read it again and retry.")
            case .corrupt, .timedOut: break
            }
        }
        return unexpected(error, status: .serviceUnavailable, what: "The store could not complete the request")
    }

    /// An error the server did not expect, as the client sees it: `what`, and a fresh error id
    /// (8 hexadecimal digits) that the server's log gives with the cause. Internals never reach
    /// the client.
    static func unexpected(_ cause: any Error, status: HTTPResponse.Status, what: String,
                           logger: Logger = APIError.logger) -> APIError {
        let errorId = String(UInt32.random(in: .min ... .max), radix: 16).leftPadded(to: 8)
        logger.error("\(what)", metadata: ["errorId": "\(errorId)", "status": "\(status.code)", "error": "\(cause)"])
        return APIError(id: "unexpected-error", message: "\(what) (error \(errorId); the server's log has the cause).",
                        status: status)
    }

    /// Where ``unexpected(_:status:what:logger:)`` logs when it is given no logger: the request's
    /// logger while ``APIErrorMiddleware`` runs the request (so the server's own logger, with
    /// its level and handler, has every cause), else the process's logging system.
    @TaskLocal static var logger = Logger(label: "whereabouts.server")
}

extension String {
    /// The string with `0`s in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
