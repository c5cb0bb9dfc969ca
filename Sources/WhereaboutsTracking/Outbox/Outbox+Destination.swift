import Foundation
import GRDB

/// Which server and user an outbox handle works for (``OutboxDestination``), and how it knows.
extension Outbox {
    /// Works for `destination` from now on: what this handle queues carries it, delivery and
    /// ``status()`` see its items only, and checkpoints are its own. `nil` sees everything.
    public func scope(to destination: OutboxDestination?) {
        self.destination = destination
    }

    /// Works for `user` at `server` and returns that destination; `tokenDigest` is the SHA-256
    /// of the token in use (``TrackingClient/tokenDigest``).
    ///
    /// With a `user` (what the server answered for the token), the outbox remembers the token as
    /// theirs and takes over what waits for the server's unresolved account, with its
    /// checkpoints (a checkpoint the user already has for the same source wins). Without one,
    /// the user the token was last seen as, or ``OutboxDestination/Account/unresolved``.
    /// ``scope(for:)`` calls this with a client's server, token and user.
    @discardableResult
    public func scope(toServer server: String, tokenDigest digest: String, user: String?) async throws -> OutboxDestination {
        let server = OutboxDestination(server: server, account: .unresolved).server
        let destination: OutboxDestination
        if let user {
            destination = OutboxDestination(server: server, account: .user(user))
            let unresolved = OutboxDestination(server: server, account: .unresolved)
            let claimed = try await database.write { db -> Int in
                try db.execute(sql: """
                    INSERT INTO account (server, tokenDigest, username, seenAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT (server, tokenDigest) DO UPDATE SET username = excluded.username, seenAt = excluded.seenAt
                    """, arguments: [server, digest, user, Date().timeIntervalSince1970])
                try db.execute(sql: "UPDATE item SET destination = ? WHERE destination = ?",
                               arguments: [destination.key, unresolved.key])
                let claimed = db.changesCount
                let from = unresolved.key + "\t", to = destination.key + "\t"
                // A checkpoint the user has already wins over the unresolved one of the same source.
                try db.execute(sql: """
                    UPDATE OR IGNORE checkpoint SET source = ? || substr(source, ?)
                    WHERE substr(source, 1, ?) = ?
                    """, arguments: [to, from.unicodeScalars.count + 1, from.unicodeScalars.count, from])
                try db.execute(sql: "DELETE FROM checkpoint WHERE substr(source, 1, ?) = ?",
                               arguments: [from.unicodeScalars.count, from])
                return claimed
            }
            if claimed > 0 { arrivalSignal.yield() }
        } else if let known = try await database.read({ db in
            try String.fetchOne(db, sql: "SELECT username FROM account WHERE server = ? AND tokenDigest = ?",
                                arguments: [server, digest])
        }) {
            destination = OutboxDestination(server: server, account: .user(known))
        } else {
            destination = OutboxDestination(server: server, account: .unresolved)
        }
        self.destination = destination
        return destination
    }

    /// How many items wait (or were refused) for other destinations than this handle's.
    public func itemsForOtherDestinations() throws -> Int {
        guard let destination else { return 0 }
        return try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE destination NOT IN (?, '')", arguments: [destination.key]) ?? 0
        }
    }

    /// The SQL condition that selects this handle's items, and its arguments: its destination's
    /// and those queued before destinations were kept, or every item when it has none.
    var destinationCondition: (sql: String, arguments: StatementArguments) {
        guard let destination else { return ("1", []) }
        return ("destination IN (?, '')", [destination.key])
    }

    /// The name a checkpoint of `source` is kept under: the destination's key, a tab and the
    /// source, or the source alone when the handle has no destination.
    func checkpointKey(_ source: String) -> String {
        guard let destination else { return source }
        return destination.key + "\t" + source
    }
}
