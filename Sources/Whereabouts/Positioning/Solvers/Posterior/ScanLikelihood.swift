import Foundation

/// The probability of one scan's readings at a position, given what the ``RadioMap`` expects
/// there: heavy-tailed for the multipath and bodies that throw single readings far off, and
/// counting a beacon that was not heard where it should be strong as evidence too.
///
/// For a beacon whose mean RSSI at the position is μ with spread σ:
/// - **heard** at r dBm: `(1 − m)·[(1 − ε)·φ((r − μ)/σ)/σ + ε/W]` — a Gaussian mixed with a
///   uniform over ``outlierRange`` W dB, weight ε = ``outlierWeight``;
/// - **not heard**: `m + (1 − m)·Φ((F − μ)/σ)` — missed anyway (m = ``missProbability``, a scan
///   that ended before the beacon's advertisement), or below the detection floor F.
///
/// φ and Φ are the standard normal density and distribution. The log of each is what
/// ``PosteriorSolver`` adds over the beacons of the scan's floor, times ``temper``: readings a
/// second apart share much of their error, so each scan is worth less than independent
/// evidence.
///
/// ```swift
/// let likelihood = ScanLikelihood(outlierWeight: 0.1, outlierRange: 60, missProbability: 0.2,
///                                 detectionFloor: -100, temper: 1)
/// likelihood.logHeard(rssi: -70, mean: -70, spread: 4)   // log(0.8·(0.9·0.0997 + 0.1/60))
/// likelihood.logUnheard(mean: -100, spread: 4)          // log(0.2 + 0.8·0.5) = log 0.6
/// ```
public struct ScanLikelihood: Hashable, Sendable {
    /// ε, the weight of the uniform part of a heard beacon's density (0…1).
    public var outlierWeight: Double
    /// W, the width of the uniform part, dB.
    public var outlierRange: Double
    /// m, the probability that a beacon within reach goes unheard in a scan (0…1).
    public var missProbability: Double
    /// F, the weakest RSSI a receiver reports, dBm.
    public var detectionFloor: Double
    /// The power each scan's log-likelihood is raised by (0…1).
    public var temper: Double

    /// Creates a likelihood.
    public init(outlierWeight: Double, outlierRange: Double = 60, missProbability: Double, detectionFloor: Double,
                temper: Double = 1) {
        self.outlierWeight = outlierWeight
        self.outlierRange = outlierRange
        self.missProbability = missProbability
        self.detectionFloor = detectionFloor
        self.temper = temper
    }

    /// The standard normal density.
    static func density(_ z: Double) -> Double { exp(-0.5 * z * z) / (2 * Double.pi).squareRoot() }

    /// The standard normal distribution function.
    static func distribution(_ z: Double) -> Double { 0.5 * erfc(-z / 2.squareRoot()) }

    /// The log-probability density of hearing a beacon at `rssi` where its mean is `mean` and
    /// its spread `spread` (dB, at least 0.1).
    public func logHeard(rssi: Double, mean: Double, spread: Double) -> Double {
        let sigma = max(spread, 0.1)
        let epsilon = min(max(outlierWeight, 0), 1), miss = min(max(missProbability, 0), 1)
        let gaussian = Self.density((rssi - mean) / sigma) / sigma
        let value = (1 - miss) * ((1 - epsilon) * gaussian + epsilon / max(outlierRange, 1))
        return value > 0 ? log(value) : -745
    }

    /// The log-probability of not hearing a beacon whose mean is `mean` and spread `spread`.
    public func logUnheard(mean: Double, spread: Double) -> Double {
        let sigma = max(spread, 0.1)
        let miss = min(max(missProbability, 0), 1)
        let value = miss + (1 - miss) * Self.distribution((detectionFloor - mean) / sigma)
        return value > 0 ? log(value) : -745
    }
}
