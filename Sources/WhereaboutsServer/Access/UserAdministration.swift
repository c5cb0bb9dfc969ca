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

        /// A sentence saying what is wrong and what to do.
        public var description: String {
            switch self {
            case .invalidUserName(let name):
                "\"\(name)\" cannot be a user name: use 1 to 60 lowercase letters, digits and '-'."
            case .unknownUser(let name):
                "There is no user \"\(name)\"; add one with `whereabouts users add \(name)`."
            case .unknownStream(let user, let stream):
                "User \"\(user)\" has no stream \"\(stream)\"; create it first (POST /streams)."
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
                                         permissions: [Permission(streamId: Permission.allStreams, level: .manage)])
        return (user, token)
    }

    /// Issues a new token for an existing user with `permissions`; returns the token, which is
    /// shown only now (the store keeps its hash).
    public func issueToken(for userName: String, name: String, permissions: [Permission]) async throws -> String {
        guard try await store.user(named: userName) != nil else { throw Failure.unknownUser(userName) }
        let streams = Set(try await store.streams(of: userName).map(\.id))
        for permission in permissions where permission.streamId != Permission.allStreams && !streams.contains(permission.streamId) {
            throw Failure.unknownStream(user: userName, stream: permission.streamId)
        }
        let token = AccessToken.generate()
        let access = Access(id: AccessToken.generateIdentifier(), userName: userName, name: name,
                            tokenHash: AccessToken.hash(token), permissions: permissions,
                            created: Date().timeIntervalSince1970)
        try await store.addAccess(access)
        return token
    }
}
