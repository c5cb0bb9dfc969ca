/// A person (or device owner) whose events the server keeps. The name is the Pryv username.
public struct User: Hashable, Sendable {
    /// The user's name: letters, digits and `-`, 1 to 60 characters.
    public var name: String
    /// When the user was added (seconds since 1970).
    public var created: Double

    /// Creates a user.
    public init(name: String, created: Double) {
        self.name = name
        self.created = created
    }

    /// Whether `name` is acceptable as a user name: 1 to 60 lowercase letters, digits and `-`
    /// (it appears in URLs and file names), and not one of ``reservedNames``.
    public static func isValidName(_ name: String) -> Bool {
        (1...60).contains(name.utf8.count)
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
            && !reservedNames.contains(name)
    }

    /// Names no user may have: the first segments of the server's own paths (a user's API
    /// endpoint is `/{username}/`, beside them).
    public static let reservedNames: Set<String> = [
        "events", "streams", "accesses", "access-info", "service", "pub", "health", "metrics", "map", "venue",
        "live", "reg", "access", "auth", "account", "system", "webhooks", "audit", "users", "receivers",
        "retention",
    ]
}

/// How much a token may do within a stream (and its descendants), in increasing order.
public enum AccessLevel: String, Comparable, Sendable, CaseIterable {
    /// See the stream's events and the stream itself.
    case read
    /// Also create, change and delete events.
    case contribute
    /// Also create and change streams.
    case manage

    private var rank: Int {
        switch self {
        case .read: 0
        case .contribute: 1
        case .manage: 2
        }
    }

    /// Orders levels from `read` to `manage`.
    public static func < (lhs: AccessLevel, rhs: AccessLevel) -> Bool { lhs.rank < rhs.rank }
}

/// One grant of a token: a level on a stream and its descendants, or on every stream (`*`).
public struct Permission: Hashable, Sendable {
    /// The stream the grant covers, or `*` for all of the user's streams.
    public var streamId: String
    /// What the grant allows.
    public var level: AccessLevel

    /// The stream identifier that stands for every stream.
    public static let allStreams = "*"
    /// The grant to send fixed receivers' reports (`contribute` on it): a token whose only grant
    /// it is may send reports (`POST /{username}/receivers/reports`) and do nothing else. It
    /// names no stream and may be granted without one.
    public static let receiversReports = "receivers"

    /// Creates a grant.
    public init(streamId: String, level: AccessLevel) {
        self.streamId = streamId
        self.level = level
    }
}

/// What kind of access a token is, as Pryv's access model has them.
public enum AccessType: String, Sendable, CaseIterable {
    /// The user's own token (`whereabouts users add`): every stream, every access.
    case personal
    /// An application's or a device's token (`whereabouts users token`, or `accesses.create`
    /// with a personal token): it may create shared accesses within its own permissions.
    case app
    /// A token given to someone else (`accesses.create`, the default type): it may create no
    /// access and list none.
    case shared
}

/// An access: a token (stored as its hash) that acts for one user with some permissions.
///
/// Tokens issued by `whereabouts users` are kept only as their SHA-256 hash. An access created
/// through the API (`accesses.create`) also keeps its token, as Pryv does, so that
/// `accesses.get` can hand it on again; deleting the access ends it.
public struct Access: Hashable, Sendable {
    /// The access's identifier (appears as `createdBy`/`modifiedBy` on what it writes).
    public var id: String
    /// The user the token acts for.
    public var userName: String
    /// A label for people (e.g. "phone", "gateway-3").
    public var name: String
    /// The SHA-256 hash of the token, in lowercase hexadecimal.
    public var tokenHash: String
    /// What the token may do.
    public var permissions: [Permission]
    /// When the access was created (seconds since 1970).
    public var created: Double
    /// When the token stops working (seconds since 1970), or `nil` for never.
    public var expires: Double?
    /// Its kind: personal, app or shared.
    public var type: AccessType
    /// The access that created it (empty for tokens the command line issued).
    public var createdBy: String
    /// When it was last changed (seconds since 1970).
    public var modified: Double
    /// The access that last changed it (empty for the command line).
    public var modifiedBy: String
    /// The token itself, for accesses created through the API; `nil` where only the hash is kept.
    public var token: String?

    /// Creates an access.
    public init(id: String, userName: String, name: String, tokenHash: String,
                permissions: [Permission], created: Double, expires: Double? = nil,
                type: AccessType = .app, createdBy: String = "", modified: Double? = nil, modifiedBy: String = "",
                token: String? = nil) {
        self.id = id
        self.userName = userName
        self.name = name
        self.tokenHash = tokenHash
        self.permissions = permissions
        self.created = created
        self.expires = expires
        self.type = type
        self.createdBy = createdBy
        self.modified = modified ?? created
        self.modifiedBy = modifiedBy
        self.token = token
    }

    /// Whether the token has expired at `time` (seconds since 1970; an access expires at its
    /// ``expires`` time exactly).
    public func hasExpired(at time: Double) -> Bool {
        expires.map { time >= $0 } ?? false
    }

    /// The highest level this access has on `streamId`, given the user's stream tree
    /// (a grant on a stream covers its descendants), or `nil` when it has none.
    public func level(on streamId: String, in tree: StreamTree) -> AccessLevel? {
        var best: AccessLevel?
        let lineage = tree.lineage(of: streamId)
        for permission in permissions
        where permission.streamId == Permission.allStreams || lineage.contains(permission.streamId) {
            best = max(best ?? permission.level, permission.level)
        }
        return best
    }

    /// Whether the access reaches `level` on `streamId`.
    public func allows(_ level: AccessLevel, on streamId: String, in tree: StreamTree) -> Bool {
        guard let granted = self.level(on: streamId, in: tree) else { return false }
        return granted >= level
    }

    /// Whether the access has a grant on every stream, current and future, at `level` or above.
    public func allowsEverywhere(_ level: AccessLevel) -> Bool {
        permissions.contains { $0.streamId == Permission.allStreams && $0.level >= level }
    }

    /// The streams the access may read, expanded to their descendants; `nil` means all.
    public func readableStreams(in tree: StreamTree) -> Set<String>? {
        if allowsEverywhere(.read) { return nil }
        var result: Set<String> = []
        for permission in permissions { result.formUnion(tree.subtree(of: permission.streamId)) }
        return result
    }
}
