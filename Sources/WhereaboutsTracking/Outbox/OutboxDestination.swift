/// Whom an outbox's items and checkpoints are for: a server and an account on it.
///
/// One outbox file may serve several servers and users: each item waits for its own
/// destination, and a replay tracked to one server is still new to another (or to another user
/// of the same server). ``Outbox/scope(for:)`` chooses the destination from a client.
///
/// ```swift
/// let home = OutboxDestination(server: "https://home.example", account: .user("alice"))
/// home.key   // "https://home.example alice"
/// OutboxDestination(server: "http://127.0.0.1:8080", account: .unresolved).key   // "http://127.0.0.1:8080 ?"
/// ```
public struct OutboxDestination: Hashable, Sendable, CustomStringConvertible {
    /// The account on the server.
    public enum Account: Hashable, Sendable {
        /// A user, by name (what the server's `access-info` answered for the token).
        case user(String)
        /// Not known yet: the server could not be asked, or refused the token, and the token was
        /// never seen answered. The first account of the same server that is resolved takes
        /// these items and checkpoints over (see ``Outbox/scope(for:)``).
        case unresolved
    }

    /// The server's base URL, without a trailing slash.
    public var server: String
    /// The account on it.
    public var account: Account

    /// A destination.
    public init(server: String, account: Account) {
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        self.server = base
        self.account = account
    }

    /// The text the outbox keeps with each item and checkpoint: the server, a space, and the
    /// user's name (or `?` while unresolved).
    public var key: String {
        switch account {
        case .user(let name): "\(server) \(name)"
        case .unresolved: "\(server) ?"
        }
    }

    /// The user at the server, e.g. "alice at https://home.example".
    public var description: String {
        switch account {
        case .user(let name): "\(name) at \(server)"
        case .unresolved: "\(server) (user not known yet)"
        }
    }
}
