/// A token bucket per key (an access, a client address), as a value: each key may spend `rate`
/// a second on average, with bursts of up to `burst`. At most ``maximumKeys`` buckets are kept:
/// beyond that, the buckets that have refilled (whose keys have been quiet) are forgotten. The
/// state of ``RateLimiter``, and of ``TokenAuthenticator``'s failed-attempt limit.
public struct TokenBuckets: Sendable {
    /// The most buckets kept at once.
    public static let maximumKeys = 100_000
    private let rate: Double
    private let burst: Double
    private var buckets: [String: (tokens: Double, updated: ContinuousClock.Instant)] = [:]

    /// Buckets allowing `requestsPerSecond` on average and `burst` at once.
    public init(requestsPerSecond: Double, burst: Double) {
        rate = max(requestsPerSecond, 0.001)
        self.burst = max(burst, 1)
    }

    /// Takes one request from `key`'s bucket: `nil` when admitted, otherwise the whole seconds
    /// to wait before the next request would be. What the request turns out to cost beyond
    /// that is charged afterwards (``charge(_:cost:)``).
    public mutating func admit(_ key: String) -> Int? {
        let now = ContinuousClock.now
        var bucket = current(key, at: now)
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            buckets[key] = bucket
            return nil
        }
        buckets[key] = bucket
        return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
    }

    /// Takes `cost` from `key`'s bucket without refusing: the work a request turned out to do
    /// once admitted (the calls of a batch, the events of an answer), paid by the requests after it.
    public mutating func charge(_ key: String, cost: Double) {
        guard cost > 0, cost.isFinite else { return }
        var bucket = current(key, at: .now)
        bucket.tokens -= cost
        buckets[key] = bucket
    }

    /// `key`'s bucket refilled up to `now` (a full one for a new key).
    private mutating func current(_ key: String, at now: ContinuousClock.Instant) -> (tokens: Double, updated: ContinuousClock.Instant) {
        if buckets[key] == nil, buckets.count >= Self.maximumKeys { forgetRefilled(at: now) }
        var bucket = buckets[key] ?? (burst, now)
        bucket.tokens = tokens(of: bucket, at: now)
        bucket.updated = now
        return bucket
    }

    /// Whether `key` has no whole request left now (without spending one).
    public func isExhausted(_ key: String) -> Bool {
        guard let bucket = buckets[key] else { return false }
        return tokens(of: bucket, at: .now) < 1
    }

    /// A bucket's tokens at `now`, refilled since it was last updated.
    private func tokens(of bucket: (tokens: Double, updated: ContinuousClock.Instant), at now: ContinuousClock.Instant) -> Double {
        min(burst, bucket.tokens + (now - bucket.updated).inSeconds * rate)
    }

    /// Drops the buckets that are full again (their keys sent nothing for burst/rate seconds);
    /// when every key is active, all of them (a flood of new keys must not grow memory).
    private mutating func forgetRefilled(at now: ContinuousClock.Instant) {
        let quiet = Duration.milliseconds(Int64(burst / rate * 1000))
        buckets = buckets.filter { now - $0.value.updated < quiet }
        if buckets.count >= Self.maximumKeys { buckets.removeAll(keepingCapacity: true) }
    }
}

/// ``TokenBuckets`` shared by concurrent requests: the per-token rate limit.
public actor RateLimiter {
    private var buckets: TokenBuckets

    /// Creates a limiter allowing `requestsPerSecond` on average and `burst` at once.
    public init(requestsPerSecond: Double, burst: Double) {
        buckets = TokenBuckets(requestsPerSecond: requestsPerSecond, burst: burst)
    }

    /// Takes one request from `key`'s bucket: `nil` when admitted, otherwise the whole seconds
    /// to wait before the next request would be.
    public func admit(_ key: String) -> Int? {
        buckets.admit(key)
    }

    /// Takes `cost` from `key`'s bucket without refusing (``TokenBuckets/charge(_:cost:)``).
    public func charge(_ key: String, cost: Double) {
        buckets.charge(key, cost: cost)
    }
}
