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
    /// The identifiers in list order.
    private let order: [String]

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
        order = streams.map(\.id)
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

    /// The stream followed by its ancestors up to the root (at most ``maximumDepth`` of them, and
    /// each once, whatever the store holds).
    public func lineage(of id: String) -> [String] {
        var result: [String] = []
        var seen: Set<String> = []
        var current: String? = id
        while let next = current, result.count < Self.maximumDepth, seen.insert(next).inserted {
            result.append(next)
            current = streams[next]?.parentId
        }
        return result
    }

    /// The deepest a stream may lie: a root is at depth 1. Creating or moving a stream deeper is
    /// refused, and walks of the tree stop there.
    public static let maximumDepth = 100

    /// How many levels the stream's subtree spans (1 for a stream without children).
    public func height(of id: String) -> Int {
        var height = 0
        var level = [id]
        var seen: Set<String> = []
        while !level.isEmpty, height < Self.maximumDepth * 2 {
            height += 1
            level = level.flatMap(childIds).filter { seen.insert($0).inserted }
        }
        return height
    }

    /// The streams no root reaches — those of a cycle (`a` under `b` under `a`), of a chain under
    /// a parent the store lacks, or below either — in list order.
    public var unreachableIds: [String] {
        var reached: Set<String> = []
        var pending = rootIds
        while let next = pending.popLast() {
            guard reached.insert(next).inserted else { continue }
            pending.append(contentsOf: childIds(of: next))
        }
        return order.filter { !reached.contains($0) }
    }

    /// The streams to make roots so that every stream is reached again: the top of each chain
    /// whose parent is missing, and the first listed stream of each cycle.
    public var streamsToReroot: [String] {
        let unreachable = unreachableIds
        guard !unreachable.isEmpty else { return [] }
        let index = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var chosen: [String] = []
        var settled: Set<String> = []
        for id in unreachable where !settled.contains(id) {
            // Walk up from `id` until the chain leaves the tree, meets a settled stream, or loops.
            var path: [String] = []
            var onPath: Set<String> = []
            var current = id
            while !settled.contains(current) {
                guard onPath.insert(current).inserted else {
                    // A cycle: from `current`'s first place on the path; its first listed stream becomes a root.
                    if let start = path.firstIndex(of: current),
                       let first = path[start...].min(by: { (index[$0] ?? 0) < (index[$1] ?? 0) }) {
                        chosen.append(first)
                    }
                    break
                }
                path.append(current)
                guard let parent = streams[current]?.parentId, streams[parent] != nil else {
                    chosen.append(current)   // the parent is missing: this stream becomes a root
                    break
                }
                current = parent
            }
            settled.formUnion(path)
        }
        return chosen
    }
}
