import ServiceLifecycle

/// Publishes to a process's ``LiveFeed`` the events that the *other* server processes on the
/// same database store, so that a `/live` client sees every event whichever process took it.
/// Only the events of users someone watches in this process are read back from the database.
///
/// ``makeServerApplication(configuration:store:liveFeed:logger:onServerRunning:)`` runs one when
/// the store is a ``SharedEventStore`` (PostgreSQL); it stops at graceful shutdown.
///
/// ```swift
/// let relay = LiveRelay(store: postgresStore, feed: liveFeed)
/// let group = ServiceGroup(services: [app, relay], logger: logger)
/// ```
public struct LiveRelay: Service {
    /// The shared store to watch.
    public let store: any SharedEventStore
    /// The feed to publish to.
    public let feed: LiveFeed

    /// Creates a relay.
    public init(store: any SharedEventStore, feed: LiveFeed) {
        self.store = store
        self.feed = feed
    }

    /// Relays until graceful shutdown or cancellation.
    public func run() async throws {
        let store = store, feed = feed
        try await cancelWhenGracefulShutdown {
            // Only what someone here watches is read back from the database.
            try await store.watchChangesFromOtherProcesses(ofUsersWhere: { await feed.subscriberCount(for: $0) > 0 }) {
                userName, events in
                await feed.publish(events, for: userName)
            }
        }
    }
}
