import Foundation

/// A small, fast, seedable random number generator (xoshiro256**, seeded through SplitMix64), so
/// that a simulation gives the same scans for the same seed on every run and every machine.
///
/// It is a value type: copying it copies its state, and two copies then produce the same numbers.
///
/// ```swift
/// var random = SeededRandom(seed: 42)
/// let u = random.nextUniform()      // in [0, 1)
/// let g = random.nextGaussian()     // standard normal
/// let k = Int.random(in: 0..<10, using: &random)
/// ```
public struct SeededRandom: RandomNumberGenerator, Hashable, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// Creates a generator whose whole sequence is fixed by `seed`.
    public init(seed: UInt64) {
        var splitMix = seed
        func next() -> UInt64 {
            // SplitMix64 (Steele, Lea & Flood), the seeding xoshiro's authors recommend.
            splitMix &+= 0x9E37_79B9_7F4A_7C15
            var z = splitMix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = next()
        s1 = next()
        s2 = next()
        s3 = next()
    }

    /// Creates a generator from its raw state (not all zero), for checking against reference vectors.
    init(state: (UInt64, UInt64, UInt64, UInt64)) {
        (s0, s1, s2, s3) = state
    }

    /// The next 64 random bits (xoshiro256** by Blackman & Vigna).
    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// A uniform number in [0, 1) with 53 random bits.
    public mutating func nextUniform() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A standard normal number (mean 0, standard deviation 1) by the Box–Muller transform.
    ///
    /// Each call draws exactly two uniforms and uses one of the pair of normals they give, so the
    /// number of draws per call never varies.
    public mutating func nextGaussian() -> Double {
        let u1 = 1 - nextUniform()        // in (0, 1]: the logarithm stays finite
        let u2 = nextUniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}
