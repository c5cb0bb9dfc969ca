/// Resolves the token a request carries to the access it stands for, through the store, with a
/// short-lived cache so that a busy client costs one hash and one dictionary look-up per request.
///
/// Accesses are only ever added (by `whereabouts users token`), so a cached answer is at most
/// `cacheLifetime` seconds older than the store; unknown tokens are never cached.
public actor TokenAuthenticator {
    private let store: any EventStore
    private let cacheLifetime: Double
    private var cache: [String: (access: Access, expires: ContinuousClock.Instant)] = [:]

    /// Creates an authenticator over `store`, caching known tokens for `cacheLifetime` seconds.
    public init(store: any EventStore, cacheLifetime: Double = 60) {
        self.store = store
        self.cacheLifetime = cacheLifetime
    }

    /// The access `token` stands for, or `nil` when no access has this token.
    public func access(forToken token: String) async throws -> Access? {
        let now = ContinuousClock.now
        if let cached = cache[token], cached.expires > now { return cached.access }
        guard let access = try await store.access(tokenHash: AccessToken.hash(token)) else { return nil }
        if cache.count > 10_000 { cache.removeAll(keepingCapacity: true) }
        cache[token] = (access, now + .milliseconds(Int64(cacheLifetime * 1000)))
        return access
    }
}
