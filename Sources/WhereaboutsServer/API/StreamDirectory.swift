import Logging

/// Each user's stream tree, cached in memory so that permission checks on every event write cost
/// no database read.
///
/// A stream written through this server replaces the cached tree at once. Another server
/// process sharing the database may add streams this one has not seen: ``tree(for:refreshingIfMissing:)``
/// reloads the tree when a request names a stream the cache does not know, and every tree is
/// reloaded after `lifetime` seconds.
///
/// A tree loaded with streams that no root reaches — a cycle an older version let two
/// concurrent moves make, or a chain under a missing parent — is repaired as it is loaded: the
/// first listed stream of each cycle, and the top of each orphaned chain, become roots (logged as
/// a warning), so that every stream and its events are visible again.
public actor StreamDirectory {
    private let store: any EventStore
    private let lifetime: Duration
    private let logger: Logger
    private var trees: [String: (tree: StreamTree, loaded: ContinuousClock.Instant)] = [:]

    /// Creates a directory over `store`; repairs are logged to `logger`.
    public init(store: any EventStore, lifetime: Duration = .seconds(30), logger: Logger = Logger(label: "whereabouts.streams")) {
        self.store = store
        self.lifetime = lifetime
        self.logger = logger
    }

    /// The user's stream tree; reloaded from the store when it is older than the lifetime or
    /// lacks one of `streamIds`.
    public func tree(for userName: String, refreshingIfMissing streamIds: [String] = []) async throws -> StreamTree {
        let now = ContinuousClock.now
        if let cached = trees[userName], now - cached.loaded < lifetime,
           streamIds.allSatisfy({ cached.tree.streams[$0] != nil }) {
            return cached.tree
        }
        var tree = StreamTree(try await store.streams(of: userName))
        let reroot = tree.streamsToReroot
        if !reroot.isEmpty {
            for id in reroot {
                guard var stream = tree.streams[id] else { continue }
                logger.warning("Stream \"\(id)\" of \(userName) was unreachable (a cycle, or a missing parent \"\(stream.parentId ?? "")\"); it is a root stream now.")
                stream.parentId = nil
                try await store.replaceStream(stream, for: userName)
            }
            tree = StreamTree(try await store.streams(of: userName))
        }
        if trees.count > 10_000 { trees.removeAll(keepingCapacity: true) }
        trees[userName] = (tree, now)
        return tree
    }

    /// Forgets the user's cached tree (after a stream was written).
    public func invalidate(_ userName: String) {
        trees[userName] = nil
    }
}
