import Foundation

/// Resolves the token a request carries to the access it stands for, through the store, with a
/// short-lived cache so that a busy client costs one hash and one dictionary look-up per request.
///
/// A cached answer is at most `cacheLifetime` seconds (1 by default) older than the store, so a
/// token revoked by `whereabouts users revoke` — in this process or any other sharing the store —
/// stops working within that time. An expired token (``Access/expires``) stops at once: expiry
/// is checked on every request. Unknown tokens are never cached.
public actor TokenAuthenticator {
    private let store: any EventStore
    private let cacheLifetime: Double
    private var cache: [String: (access: Access, checked: ContinuousClock.Instant)] = [:]
    /// Token hashes that authenticated within the last ten minutes, and when: the clients a
    /// failed-attempt limit must not lock out with the guessers that share their address.
    private var recentlyValid: [String: ContinuousClock.Instant] = [:]

    /// Creates an authenticator over `store`, caching known tokens for `cacheLifetime` seconds.
    public init(store: any EventStore, cacheLifetime: Double = 1) {
        self.store = store
        self.cacheLifetime = cacheLifetime
    }

    /// The access `token` stands for, or `nil` when no access has this token, or it was revoked
    /// or has expired.
    public func access(forToken token: String) async throws -> Access? {
        try await access(tokenHash: AccessToken.hash(token))
    }

    /// Whether `token` authenticated in the last ten minutes (and so belongs to a client, not a
    /// guesser).
    public func wasRecentlyValid(token: String) -> Bool {
        guard let seen = recentlyValid[AccessToken.hash(token)] else { return false }
        return ContinuousClock.now - seen < .seconds(600)
    }

    /// Whether `access` still gives access: not revoked (as of at most `cacheLifetime` seconds
    /// ago) and not expired. What a long-lived connection (`/live`) checks as it runs.
    public func isValid(_ access: Access) async throws -> Bool {
        try await self.access(tokenHash: access.tokenHash)?.id == access.id
    }

    private func access(tokenHash: String) async throws -> Access? {
        let now = ContinuousClock.now
        let access: Access
        if let cached = cache[tokenHash], now - cached.checked < .milliseconds(Int64(cacheLifetime * 1000)) {
            access = cached.access
        } else {
            guard let stored = try await store.access(tokenHash: tokenHash) else {
                cache[tokenHash] = nil
                return nil
            }
            if cache.count > 10_000 { cache.removeAll(keepingCapacity: true) }
            cache[tokenHash] = (stored, now)
            access = stored
        }
        guard !access.hasExpired(at: Date().timeIntervalSince1970) else { return nil }
        if recentlyValid.count >= 10_000, recentlyValid[tokenHash] == nil {
            recentlyValid = recentlyValid.filter { now - $0.value < .seconds(600) }
            if recentlyValid.count >= 10_000 { recentlyValid.removeAll(keepingCapacity: true) }
        }
        recentlyValid[tokenHash] = now
        return access
    }
}
