import Foundation
import Logging
import ServiceLifecycle

/// Deletes the events that are past their retention: a stream's own
/// (``EventStore/streamRetentions(of:)``), else its parent's, else its user's
/// (``EventStore/retention(of:)``), else a default. An event in several streams goes by the
/// shortest of their limits: a limit on a stream promises that nothing in it is older. Events go
/// oldest first, in transactions of at
/// most ``batchSize``, each leaving its tombstone (clients that sync incrementally see them go);
/// memory stays bounded by one batch however many events go, and an interrupted purge simply
/// carries on at the next run.
///
/// ```swift
/// let purge = RetentionPurge(store: store, defaultKeep: 365 * 86_400)
/// let report = try await purge.run()
/// print(report.events, "events purged for", report.users, "users")
/// ```
public struct RetentionPurge: Sendable {
    /// What a run purged.
    public struct Report: Hashable, Sendable {
        /// Users with a retention (their own or the default).
        public var users: Int
        /// Events deleted.
        public var events: Int
    }

    /// The store purged.
    public let store: any EventStore
    /// Seconds an event is kept when its user has no retention of their own; `nil`: for ever.
    public let defaultKeep: Double?
    /// Events deleted per transaction.
    public let batchSize: Int

    /// A purge of `store`.
    public init(store: any EventStore, defaultKeep: Double? = nil, batchSize: Int = 1_000) {
        self.store = store
        self.defaultKeep = defaultKeep
        self.batchSize = max(1, batchSize)
    }

    /// Purges the events that ended more than their retention before `now`, of every user or of
    /// `users` only; `purged` hears each user's count as it is done (users with nothing to purge
    /// too). A user deleted meanwhile is passed over.
    public func run(now: Double = Date().timeIntervalSince1970, users: [String]? = nil,
                    purged: (@Sendable (_ user: String, _ events: Int) async -> Void)? = nil) async throws -> Report {
        var report = Report(users: 0, events: 0)
        let names: [String]
        if let users { names = users } else { names = try await store.users().map(\.name) }
        for name in names {
            try Task.checkCancellation()
            let own: Double?
            let streamLimits: [String: Double]
            do {
                own = try await store.retention(of: name)
                streamLimits = try await store.streamRetentions(of: name)
            } catch StoreError.notFound { continue }
            let userKeep = own ?? defaultKeep
            var count = 0
            if streamLimits.isEmpty {
                // The user's limit for all their events: one pass over them, oldest first.
                guard let keep = userKeep, keep.isFinite, keep >= 0 else { continue }
                report.users += 1
                while true {
                    try Task.checkCancellation()
                    let batch = try await store.purgeEvents(of: name, endedBefore: now - keep, limit: batchSize)
                    count += batch
                    if batch < batchSize { break }
                }
            } else {
                // Streams by the limit that applies to them; an event goes by the shortest of its streams'.
                let limits = Self.limits(of: try await store.streams(of: name), own: streamLimits, user: userKeep)
                let groups = Dictionary(grouping: limits.filter { $0.value.isFinite && $0.value >= 0 }, by: \.value)
                guard !groups.isEmpty else { continue }
                report.users += 1
                for (keep, members) in groups.sorted(by: { $0.key < $1.key }) {
                    let streamIds = members.map(\.key).sorted()
                    var start = -Double.greatestFiniteMagnitude
                    while true {
                        try Task.checkCancellation()
                        let batch = try await store.purgeEvents(of: name, inStreams: streamIds, endedBefore: now - keep,
                                                                startingAt: start, limit: batchSize)
                        count += batch.events
                        guard batch.events >= batchSize, let last = batch.lastTime else { break }
                        start = last
                    }
                }
            }
            report.events += count
            await purged?(name, count)
        }
        return report
    }

    /// The limit that applies to each of `streams`: its own (`own`), else its nearest
    /// ancestor's, else the user's (`user`; `nil`: none, the stream is left out). `.infinity`
    /// keeps for ever. Each stream's ancestry is walked once (a cycle ends the walk).
    public static func limits(of streams: [EventStream], own: [String: Double], user: Double?) -> [String: Double] {
        let parents = Dictionary(streams.map { ($0.id, $0.parentId) }, uniquingKeysWith: { first, _ in first })
        // Resolved streams: their limit, or nil when none applies.
        var resolved: [String: Double?] = [:]
        for stream in streams where resolved[stream.id] == nil {
            var path: [String] = []
            var seen: Set<String> = []
            var id: String? = stream.id
            var limit: Double? = user
            while let current = id, seen.insert(current).inserted {
                if let known = resolved[current] { limit = known; break }
                if let found = own[current] { limit = found; path.append(current); break }
                path.append(current)
                id = parents[current] ?? nil
            }
            for walked in path { resolved[walked] = limit }
        }
        return resolved.compactMapValues { $0 }.filter { parents[$0.key] != nil }
    }
}

/// The server's purge in the background: a ``RetentionPurge`` at start and every interval, each
/// user's count logged and the total in `/metrics` (`whereabouts_events_purged_total`).
struct RetentionService: Service {
    let purge: RetentionPurge
    let interval: Duration
    let clock: any Clock<Duration>
    let metrics: ServerMetrics
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let report = try await purge.run { user, events in
                        guard events > 0 else { return }
                        metrics.recordEventsPurged(events)
                        logger.info("Purged events past their retention", metadata: ["user": "\(user)", "events": "\(events)"])
                    }
                    if report.events > 0 {
                        logger.info("Retention purge done", metadata: ["users": "\(report.users)", "events": "\(report.events)"])
                    }
                } catch is CancellationError {
                    return
                } catch {
                    logger.error("Retention purge failed; it runs again later", metadata: ["error": "\(error)"])
                }
                try? await clock.sleep(for: interval)
            }
        }
    }
}
