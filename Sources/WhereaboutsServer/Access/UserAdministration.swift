import Foundation

/// Adding users and issuing tokens — what `whereabouts users` does, as a library.
///
/// ```swift
/// let admin = UserAdministration(store: store)
/// let (_, token) = try await admin.addUser(named: "alice")          // a personal token
/// let phone = try await admin.issueToken(for: "alice", name: "phone",
///                                        permissions: [Permission(streamId: "position", level: .contribute)])
/// ```
public struct UserAdministration: Sendable {
    /// Why an administration request was refused.
    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// The name cannot be a user name.
        case invalidUserName(String)
        /// No such user.
        case unknownUser(String)
        /// A permission names a stream the user does not have.
        case unknownStream(user: String, stream: String)
        /// No access has this token (it was revoked already, or never issued).
        case unknownToken
        /// The user has no token with this label.
        case unknownLabel(user: String, name: String)
        /// The expiry is not in the future.
        case expiryInThePast

        /// A sentence saying what is wrong and what to do.
        public var description: String {
            switch self {
            case .invalidUserName(let name):
                "\"\(name)\" cannot be a user name: use 1 to 60 lowercase letters, digits and '-'."
            case .unknownUser(let name):
                "There is no user \"\(name)\"; add one with `whereabouts users add \(name)`."
            case .unknownStream(let user, let stream):
                "User \"\(user)\" has no stream \"\(stream)\"; create it first (POST /streams)."
            case .unknownToken:
                "No access has this token: it was revoked already, or it was never issued by this store."
            case .unknownLabel(let user, let name):
                "User \"\(user)\" has no token labelled \"\(name)\"; `whereabouts users list --tokens` shows the labels."
            case .expiryInThePast:
                "The expiry must be in the future."
            }
        }
    }

    /// The store users and accesses are kept in.
    public let store: any EventStore

    /// Creates the administration over `store`.
    public init(store: any EventStore) {
        self.store = store
    }

    /// Adds a user with the default streams and returns a personal token: one that manages
    /// every stream of the user.
    public func addUser(named name: String) async throws -> (User, token: String) {
        guard User.isValidName(name) else { throw Failure.invalidUserName(name) }
        let now = Date().timeIntervalSince1970
        let user = User(name: name, created: now)
        try await store.addUser(user, streams: EventStream.defaults(at: now))
        let token = try await issueToken(for: name, name: "personal",
                                         permissions: [Permission(streamId: Permission.allStreams, level: .manage)],
                                         type: .personal)
        return (user, token)
    }

    /// Issues a new token for an existing user with `permissions`, working until `expires`
    /// (seconds since 1970; `nil` for ever), of `type` (an app's or device's by default); returns
    /// the token, which is shown only now (the store keeps its hash).
    public func issueToken(for userName: String, name: String, permissions: [Permission], expires: Double? = nil,
                           type: AccessType = .app) async throws -> String {
        if let expires, !(expires > Date().timeIntervalSince1970) { throw Failure.expiryInThePast }
        guard try await store.user(named: userName) != nil else { throw Failure.unknownUser(userName) }
        let streams = Set(try await store.streams(of: userName).map(\.id))
        for permission in permissions
        where permission.streamId != Permission.allStreams && permission.streamId != Permission.receiversReports
            && !streams.contains(permission.streamId) {
            throw Failure.unknownStream(user: userName, stream: permission.streamId)
        }
        let token = AccessToken.generate()
        let access = Access(id: AccessToken.generateIdentifier(), userName: userName, name: name,
                            tokenHash: AccessToken.hash(token), permissions: permissions,
                            created: Date().timeIntervalSince1970, expires: expires, type: type)
        try await store.addAccess(access)
        return token
    }

    /// Revokes a token: it stops working within a second on every server sharing the store, and
    /// the `/live` connections it opened are closed.
    public func revoke(token: String) async throws {
        guard try await store.removeAccess(tokenHash: AccessToken.hash(token)) else { throw Failure.unknownToken }
    }

    /// Erases a user and everything the store holds about them — events, attachments, streams,
    /// tokens, tombstones (``EventStore/removeUser(named:)``). Their tokens stop working within a
    /// second on every server sharing the store, and their `/live` connections are closed. It
    /// cannot be undone: export the user's data first if it is wanted.
    ///
    /// ```swift
    /// let removed = try await admin.deleteUser(named: "alice")
    /// print(removed.events, "events erased")
    /// ```
    @discardableResult
    public func deleteUser(named name: String) async throws -> UserRemoval {
        guard let removal = try await store.removeUser(named: name) else { throw Failure.unknownUser(name) }
        return removal
    }

    /// Revokes every token of `userName` labelled `name`; returns how many there were.
    @discardableResult
    public func revoke(user userName: String, name: String) async throws -> Int {
        guard try await store.user(named: userName) != nil else { throw Failure.unknownUser(userName) }
        let removed = try await store.removeAccesses(of: userName, named: name)
        guard removed > 0 else { throw Failure.unknownLabel(user: userName, name: name) }
        return removed
    }
}
