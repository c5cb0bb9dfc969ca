import Whereabouts

/// A stream: a named folder of events, in a tree per user (Pryv's streams). Every user starts
/// with a `position` stream.
public struct EventStream: Hashable, Sendable {
    /// The stream's identifier, unique per user.
    public var id: String
    /// The name shown to people.
    public var name: String
    /// The parent stream's identifier, `nil` at the root.
    public var parentId: String?
    /// Data a client keeps with the stream (a JSON object), opaque to the server.
    public var clientData: JSONValue?
    /// Whether the stream is in the trash.
    public var trashed: Bool
    /// When the stream was created (seconds since 1970).
    public var created: Double
    /// The access that created the stream.
    public var createdBy: String
    /// When the stream was last changed.
    public var modified: Double
    /// The access that last changed the stream.
    public var modifiedBy: String

    /// Creates a stream.
    public init(
        id: String, name: String, parentId: String? = nil, clientData: JSONValue? = nil,
        trashed: Bool = false, created: Double = 0, createdBy: String = "",
        modified: Double = 0, modifiedBy: String = ""
    ) {
        self.id = id
        self.name = name
        self.parentId = parentId
        self.clientData = clientData
        self.trashed = trashed
        self.created = created
        self.createdBy = createdBy
        self.modified = modified
        self.modifiedBy = modifiedBy
    }

    /// The streams every new user has.
    public static func defaults(at time: Double) -> [EventStream] {
        [EventStream(id: "position", name: "Position", created: time, createdBy: "system",
                     modified: time, modifiedBy: "system")]
    }
}

/// A user's streams as a tree, for permission checks and for expanding a stream to its
/// descendants.
public struct StreamTree: Sendable {
    /// Every stream by identifier.
    public let streams: [String: EventStream]
    private let childrenByParent: [String: [String]]

    /// Builds the tree from a flat list (the order of children follows the list).
    public init(_ streams: [EventStream]) {
        var byId: [String: EventStream] = [:]
        var children: [String: [String]] = [:]
        for stream in streams {
            byId[stream.id] = stream
            children[stream.parentId ?? "", default: []].append(stream.id)
        }
        self.streams = byId
        self.childrenByParent = children
    }

    /// The identifiers of the root streams, in list order.
    public var rootIds: [String] { childrenByParent[""] ?? [] }

    /// The identifiers of a stream's direct children.
    public func childIds(of id: String) -> [String] { childrenByParent[id] ?? [] }

    /// The stream and all its descendants.
    public func subtree(of id: String) -> Set<String> {
        var result: Set<String> = []
        var pending = [id]
        while let next = pending.popLast() {
            guard result.insert(next).inserted else { continue }
            pending.append(contentsOf: childIds(of: next))
        }
        return result
    }

    /// The stream followed by its ancestors up to the root.
    public func lineage(of id: String) -> [String] {
        var result: [String] = []
        var current: String? = id
        while let next = current, !result.contains(next) {
            result.append(next)
            current = streams[next]?.parentId
        }
        return result
    }
}
