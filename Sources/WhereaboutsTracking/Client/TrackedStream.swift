import Whereabouts

/// A stream of the server's tree, as the tracking client reads it.
public struct TrackedStream: Hashable, Sendable {
    /// The stream's id.
    public var id: String
    /// Its name.
    public var name: String
    /// Its parent's id (`nil` at the root).
    public var parentId: String?
    /// Its children.
    public var children: [TrackedStream]

    /// Creates a stream value.
    public init(id: String, name: String, parentId: String? = nil, children: [TrackedStream] = []) {
        self.id = id
        self.name = name
        self.parentId = parentId
        self.children = children
    }

    /// Reads a stream (and, to a depth of 64, its children) from the server's JSON.
    public init?(json: JSONValue, depth: Int = 0) {
        guard case .string(let id)? = json["id"] else { return nil }
        self.id = id
        if case .string(let name)? = json["name"] { self.name = name } else { self.name = id }
        if case .string(let parent)? = json["parentId"] { parentId = parent } else { parentId = nil }
        if depth < 64, case .array(let items)? = json["children"] {
            children = items.compactMap { TrackedStream(json: $0, depth: depth + 1) }
        } else {
            children = []
        }
    }

    /// This stream and its descendants, depth first.
    public var flattened: [TrackedStream] {
        var result: [TrackedStream] = []
        var stack = [self]
        while let next = stack.popLast() {
            result.append(next)
            stack.append(contentsOf: next.children.reversed())
        }
        return result
    }
}
