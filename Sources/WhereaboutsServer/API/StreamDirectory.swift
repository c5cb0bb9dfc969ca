/// Each user's stream tree, cached in memory so that permission checks on every event write cost
/// no database read.
///
/// A stream written through this server replaces the cached tree at once. Another server
/// process sharing the database may add streams this one has not seen: ``tree(for:refreshingIfMissing:)``
/// reloads the tree when a request names a stream the cache does not know, and every tree is
/// reloaded after `lifetime` seconds.
public actor StreamDirectory {
    private let store: any EventStore
    private let lifetime: Duration
    private var trees: [String: (tree: StreamTree, loaded: ContinuousClock.Instant)] = [:]

    /// Creates a directory over `store`.
    public init(store: any EventStore, lifetime: Duration = .seconds(30)) {
        self.store = store
        self.lifetime = lifetime
    }

    /// The user's stream tree; reloaded from the store when it is older than the lifetime or
    /// lacks one of `streamIds`.
    public func tree(for userName: String, refreshingIfMissing streamIds: [String] = []) async throws -> StreamTree {
        let now = ContinuousClock.now
        if let cached = trees[userName], now - cached.loaded < lifetime,
           streamIds.allSatisfy({ cached.tree.streams[$0] != nil }) {
            return cached.tree
        }
        let tree = StreamTree(try await store.streams(of: userName))
        if trees.count > 10_000 { trees.removeAll(keepingCapacity: true) }
        trees[userName] = (tree, now)
        return tree
    }

    /// Forgets the user's cached tree (after a stream was written).
    public func invalidate(_ userName: String) {
        trees[userName] = nil
    }
}
