/// An outbox scoped to a client's server and user.
extension Outbox {
    /// Works for the server and user of `client`, and returns that destination.
    ///
    /// The user is the one the server named for the client's token (call
    /// ``TrackingClient/start()`` first); the outbox remembers it, by the token's SHA-256, so that
    /// a later run that cannot reach the server still finds its items and checkpoints. A token
    /// the server never answered for is ``OutboxDestination/Account/unresolved``: its items wait
    /// under the server alone, and the first user of that server who is resolved takes them over,
    /// with their checkpoints (a replay tracked while the token was refused is then that user's,
    /// and is not tracked twice). See ``scope(toServer:tokenDigest:user:)``.
    ///
    /// ```swift
    /// let client = try TrackingClient(server: "http://127.0.0.1:8080", token: token)
    /// try await client.start()
    /// let destination = try await outbox.scope(for: client)   // e.g. "ann at http://127.0.0.1:8080"
    /// ```
    @discardableResult
    public func scope(for client: TrackingClient) async throws -> OutboxDestination {
        try await scope(toServer: client.server, tokenDigest: client.tokenDigest, user: await client.userName)
    }
}
