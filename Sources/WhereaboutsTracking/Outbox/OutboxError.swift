/// What can go wrong with the outbox itself.
public enum OutboxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The database cannot be opened or created.
    case cannotOpen(path: String, reason: String)
    /// A change cannot be queued as given.
    case invalidChange(String)

    /// A sentence that says what went wrong.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "Cannot open the outbox \(path): \(reason)"
        case .invalidChange(let message): "Cannot queue the change: \(message)"
        }
    }
}
