import Foundation

/// Resolves the token a request carries to the access it stands for, through the store, with a
/// short-lived cache so that a busy client costs one hash and one dictionary look-up per request.
///
/// A cached answer is at most `cacheLifetime` seconds (1 by default) older than the store, so a
/// token revoked by `whereabouts users revoke` — in this process or any other sharing the store —
/// stops working within that time. An expired token (``Access/expires``) stops at once: expiry
/// is checked on every request. Unknown tokens are never cached.
///
/// It also limits the unknown tokens one client address may try (``resolve(token:client:)``):
/// beyond the limit the address's tokens are not looked up — except a token that authenticated
/// in the last ten minutes, so that guessing goes nowhere fast while the good clients behind the
/// same address (a NAT, a proxy) carry on.
public actor TokenAuthenticator {
    /// What a request's token comes to.
    public enum Resolution: Sendable {
        /// The access the token stands for.
        case access(Access)
        /// No access has the token (or it was revoked, or has expired).
        case unknown
        /// The client address has tried too many unknown tokens: the token was not looked up.
        case tooManyFailures
    }

    private let store: any EventStore
    private let cacheLifetime: Double
    /// Per token hash: the access, when the store was last asked, and when the token last
    /// authenticated (kept ten minutes, for the failed-attempt limit's exception).
    private var cache: [String: (access: Access, checked: ContinuousClock.Instant, used: ContinuousClock.Instant)] = [:]
    private var failures: TokenBuckets
    private static let recentUse = Duration.seconds(600)

    /// Creates an authenticator over `store`, caching known tokens for `cacheLifetime` seconds and
    /// allowing each client address the unknown tokens `failedAttempts` allows (default: 5 a
    /// second on average, bursts of 20).
    public init(store: any EventStore, cacheLifetime: Double = 1,
                failedAttempts: ServerConfiguration.RateLimit = .init(requestsPerSecond: 5, burst: 20)) {
        self.store = store
        self.cacheLifetime = cacheLifetime
        failures = TokenBuckets(requestsPerSecond: failedAttempts.requestsPerSecond, burst: failedAttempts.burst)
    }

    /// What `token`, sent from `client` (an address), comes to: its access, unknown, or refused
    /// unlooked-up because the address tried too many unknown tokens.
    public func resolve(token: String, client: String) async throws -> Resolution {
        let tokenHash = AccessToken.hash(token)
        if failures.isExhausted(client), !wasRecentlyUsed(tokenHash) { return .tooManyFailures }
        if let access = try await access(tokenHash: tokenHash) { return .access(access) }
        return failures.admit(client) == nil ? .unknown : .tooManyFailures
    }

    /// The access `token` stands for, or `nil` when no access has this token, or it was revoked
    /// or has expired.
    public func access(forToken token: String) async throws -> Access? {
        try await access(tokenHash: AccessToken.hash(token))
    }

    /// Forgets what the cache knows of these tokens (accesses deleted on this server): they stop
    /// working on this server at once, on the others within `cacheLifetime`.
    public func forget(tokenHashes: [String]) {
        for hash in tokenHashes { cache[hash] = nil }
    }

    /// Whether `access` still gives access: not revoked (as of at most `cacheLifetime` seconds
    /// ago) and not expired. What a long-lived connection (`/live`) checks as it runs.
    public func isValid(_ access: Access) async throws -> Bool {
        try await self.access(tokenHash: access.tokenHash)?.id == access.id
    }

    private func wasRecentlyUsed(_ tokenHash: String) -> Bool {
        cache[tokenHash].map { ContinuousClock.now - $0.used < Self.recentUse } ?? false
    }

    private func access(tokenHash: String) async throws -> Access? {
        let now = ContinuousClock.now
        var entry: (access: Access, checked: ContinuousClock.Instant, used: ContinuousClock.Instant)
        if let cached = cache[tokenHash], now - cached.checked < .milliseconds(Int64(cacheLifetime * 1000)) {
            entry = cached
        } else {
            guard let stored = try await store.access(tokenHash: tokenHash) else {
                cache[tokenHash] = nil
                return nil
            }
            if cache.count >= 10_000, cache[tokenHash] == nil {
                cache = cache.filter { now - $0.value.used < Self.recentUse }
                if cache.count >= 10_000 { cache.removeAll(keepingCapacity: true) }
            }
            entry = (stored, now, now)
        }
        guard !entry.access.hasExpired(at: Date().timeIntervalSince1970) else { return nil }
        entry.used = now
        cache[tokenHash] = entry
        return entry.access
    }
}
