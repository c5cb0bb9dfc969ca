/// A file operation of a store failed (a full disk, a permission, a missing directory).
public struct StorageIOError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file or directory involved.
    public var path: String
    /// What the store was doing ("write an attachment", …).
    public var operation: String
    /// The system's reason.
    public var reason: String

    /// Creates an error.
    public init(path: String, operation: String, reason: String) {
        self.path = path
        self.operation = operation
        self.reason = reason
    }

    /// A sentence saying what failed.
    public var description: String {
        "cannot \(operation) at \(path): \(reason); check the data directory's permissions and free space"
    }
}
