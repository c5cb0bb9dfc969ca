@testable import Whereabouts

extension SeededRandom {
    /// A random byte.
    mutating func nextByte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    /// A value in `0..<bound` (bound > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
