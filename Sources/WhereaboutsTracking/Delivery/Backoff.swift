import Foundation

/// How long to wait before trying an unreachable server again: exponential, capped, jittered.
///
/// The n-th retry in a row waits a random time between half and all of
/// `min(maximum, initial × multiplier^(n−1))`, so that many clients that lost the same server
/// do not come back in step.
public struct Backoff: Hashable, Sendable {
    /// The first wait's upper bound, seconds (default 1).
    public var initial: Double
    /// The cap, seconds (default 60).
    public var maximum: Double
    /// The growth from one wait to the next (default 2).
    public var multiplier: Double

    /// Creates a backoff.
    public init(initial: Double = 1, maximum: Double = 60, multiplier: Double = 2) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
    }

    /// The upper bound of the wait before retry number `attempt` (1 for the first).
    public func ceiling(attempt: Int) -> Double {
        let exponent = Double(max(0, min(attempt - 1, 64)))
        return min(maximum, initial * pow(multiplier, exponent))
    }

    /// The wait before retry number `attempt`: uniform between half the ceiling and the ceiling.
    public func delay(attempt: Int) -> Double {
        let ceiling = ceiling(attempt: attempt)
        return ceiling / 2 + Double.random(in: 0...1) * ceiling / 2
    }
}
