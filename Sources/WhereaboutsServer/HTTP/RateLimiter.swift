/// A token bucket per access: each access may send `rate` requests a second on average, with
/// bursts of up to `burst`.
public actor RateLimiter {
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
}
