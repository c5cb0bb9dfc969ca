import Logging
import PostgresNIO
import Whereabouts

// LISTEN/NOTIFY: how the processes sharing one database tell each other about the events they
// create or change, so that every process's live feed shows them.
extension PostgresEventStore {
    /// Sends the notifications for events created or changed in the current transaction
    /// (PostgreSQL delivers them when it commits): `{"origin", "user", "ids"}`, several when the
    /// identifiers would not fit in one payload (under 8,000 bytes).
    func notifyChanges(ids: [String], userName: String, _ connection: PostgresConnection) async throws {
        var chunk: [String] = []
        var size = 0
        func send() async throws {
            guard !chunk.isEmpty else { return }
            let payload = JSONWriter().string(from: .object([
                ("origin", .string(origin)), ("user", .string(userName)), ("ids", .array(chunk.map(JSONValue.string))),
            ]))
            try await connection.query("SELECT pg_notify(\(Self.notificationChannel), \(payload))", logger: logger)
            chunk.removeAll(keepingCapacity: true)
            size = 0
        }
        for id in ids {
            if size + id.utf8.count + 3 > 6_000 { try await send() }
            chunk.append(id)
            size += id.utf8.count + 3
        }
        try await send()
    }

    /// Listens on ``notificationChannel`` and calls `body` with the events other instances
    /// created or changed for the users `isWatched` accepts (read back by identifier), until
    /// the task is cancelled.
    public func watchChangesFromOtherProcesses(
        ofUsersWhere isWatched: @escaping @Sendable (_ userName: String) async -> Bool,
        _ body: @escaping @Sendable (_ userName: String, _ events: [Event]) async -> Void
    ) async throws {
        var retryDelay = Duration.seconds(1)
        while !Task.isCancelled {
            let started = ContinuousClock.now
            do {
                // PostgresNIO's `listen` can wait for ever when its connection closes at the wrong
                // moment (it loses its continuation; cancelling does not wake it): the session
                // runs in a task of its own, abandoned when its connection is seen closed (or
                // none came in 30 s) or when this task is cancelled, so that neither a restart of
                // the database nor the server's shutdown waits on it.
                let listening = LockedValue<PostgresConnection?>(nil)
                try await Abandonable.run(checkingEvery: Self.listenWatchInterval, abandonWhen: {
                    let stalled = listening.value?.isClosed ?? (ContinuousClock.now - started > .seconds(30))
                    return stalled ? ListenSessionStalled() : nil
                }) { [client] in
                    try await client.withConnection { connection in
                        listening.value = connection
                        try await connection.listen(on: Self.notificationChannel) { notifications in
                            for try await notification in notifications {
                                guard let notice = try? JSONParser.parse(notification.payload),
                                      case .string(let origin)? = notice["origin"], origin != self.origin,
                                      case .string(let userName)? = notice["user"],
                                      case .array(let items)? = notice["ids"],
                                      await isWatched(userName)
                                else { continue }
                                let ids = items.compactMap { item -> String? in if case .string(let id) = item { id } else { nil } }
                                let events = try await self.events("""
                                    SELECT \(unescaped: Self.eventColumns) FROM events
                                    WHERE user_name = \(userName) AND id = ANY(\(ids)) ORDER BY seq
                                    """)
                                if !events.isEmpty { await body(userName, events) }
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                // Back off from 1 s to 30 s while the database stays away; start again at 1 s
                // after a connection that lasted.
                if ContinuousClock.now - started > .seconds(60) { retryDelay = .seconds(1) }
                logger.warning("Lost the database's change notifications; listening again in \(retryDelay).",
                               metadata: ["error": "\(String(reflecting: error))"])
                try? await Task.sleep(for: retryDelay)
                retryDelay = min(retryDelay * 2, .seconds(30))
            }
        }
    }

    /// How often a listening session's connection is checked.
    static let listenWatchInterval = Duration.seconds(2)
}

/// A listening session whose connection closed without the session ending.
struct ListenSessionStalled: Error, CustomStringConvertible {
    var description: String { "the connection of the notifications' listener closed, and the listener did not end" }
}
