/// A token bucket per key (an access, a client address): each key may spend `rate` a second on
/// average, with bursts of up to `burst`. At most ``maximumKeys`` buckets are kept: beyond that,
/// the buckets that have refilled (whose keys have been quiet) are forgotten.
public actor RateLimiter {
    /// The most buckets kept at once.
    public static let maximumKeys = 100_000
    private let rate: Double
    private let burst: Double
    private var buckets: [String: (tokens: Double, updated: ContinuousClock.Instant)] = [:]

    /// Creates a limiter allowing `requestsPerSecond` on average and `burst` at once.
    public init(requestsPerSecond: Double, burst: Double) {
        self.rate = max(requestsPerSecond, 0.001)
        self.burst = max(burst, 1)
    }

    /// Takes one request from `key`'s bucket: `nil` when admitted, otherwise the whole seconds
    /// to wait before the next request would be.
    public func admit(_ key: String) -> Int? {
        let now = ContinuousClock.now
        if buckets[key] == nil, buckets.count >= Self.maximumKeys { forgetRefilled(at: now) }
        var bucket = buckets[key] ?? (burst, now)
        let elapsed = now - bucket.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        bucket.tokens = min(burst, bucket.tokens + seconds * rate)
        bucket.updated = now
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            buckets[key] = bucket
            return nil
        }
        buckets[key] = bucket
        return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
    }

    /// Whether `key` has no whole request left now (without spending one).
    public func isExhausted(_ key: String) -> Bool {
        guard let bucket = buckets[key] else { return false }
        let elapsed = ContinuousClock.now - bucket.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return min(burst, bucket.tokens + seconds * rate) < 1
    }

    /// Drops the buckets that are full again (their keys sent nothing for burst/rate seconds);
    /// when every key is active, all of them (a flood of new keys must not grow memory).
    private func forgetRefilled(at now: ContinuousClock.Instant) {
        let quiet = Duration.milliseconds(Int64(burst / rate * 1000))
        buckets = buckets.filter { now - $0.value.updated < quiet }
        if buckets.count >= Self.maximumKeys { buckets.removeAll(keepingCapacity: true) }
    }
}
