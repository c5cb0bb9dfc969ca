import Foundation

/// A distance to a beacon estimated from its RSSI, with the uncertainty the RSSI noise carries
/// into it.
public struct RangeEstimate: Hashable, Sendable {
    /// The estimated distance, metres; finite and positive.
    public var distance: Double
    /// The standard deviation of ``distance``, metres; finite and not negative.
    public var standardDeviation: Double

    /// Creates an estimate.
    public init(distance: Double, standardDeviation: Double) {
        self.distance = distance
        self.standardDeviation = standardDeviation
    }

    /// The variance of ``distance``, m².
    public var variance: Double { standardDeviation * standardDeviation }

    /// The proximity class of ``distance`` under the given thresholds.
    public func proximity(thresholds: Proximity.Thresholds = Proximity.Thresholds()) -> Proximity {
        Proximity(distance: distance, thresholds: thresholds)
    }
}

/// How RSSI falls with distance: turns an RSSI into a distance and a distance into the RSSI
/// expected there.
///
/// Both RSSI and `txPower` (the beacon's calibrated RSSI at 1 m, the iBeacon "measured power")
/// are in dBm and negative. Every method returns `nil` rather than a non-finite number: for an
/// RSSI or `txPower` that is not finite or not below 0 dBm, and wherever the model gives no answer.
///
/// Implement ``distance(rssi:txPower:)`` and ``distanceSlope(rssi:txPower:)``; the default
/// ``range(rssi:txPower:rssiStandardDeviation:)`` propagates the RSSI noise to first order
/// (the delta method): `σ_d = |dd/drssi|·σ_rssi`.
///
/// ```swift
/// let model = LogDistancePathLossModel()            // n = 2
/// let range = model.range(rssi: -65, txPower: -59, rssiStandardDeviation: 2)
/// // d = 10^((-59 + 65) / 20) ≈ 1.995 m, σ ≈ 0.459 m
/// ```
public protocol DistanceModel: Sendable {
    /// The distance (metres) at which the model expects `rssi` from a beacon of `txPower`.
    func distance(rssi: Double, txPower: Double) -> Double?

    /// The derivative `dd/drssi` (metres per dB) of ``distance(rssi:txPower:)`` at `rssi`.
    func distanceSlope(rssi: Double, txPower: Double) -> Double?

    /// The RSSI (dBm) the model expects at `distance` metres from a beacon of `txPower`, or `nil`
    /// where it predicts none below 0 dBm or has no inverse.
    func expectedRSSI(atDistance distance: Double, txPower: Double) -> Double?

    /// The distance for `rssi` and its standard deviation when the RSSI has standard deviation
    /// `rssiStandardDeviation` (dB, finite and not negative; otherwise `nil`).
    func range(rssi: Double, txPower: Double, rssiStandardDeviation: Double) -> RangeEstimate?
}

extension DistanceModel {
    /// Propagates the RSSI noise to first order: `σ_d = |dd/drssi|·σ_rssi`.
    public func range(rssi: Double, txPower: Double, rssiStandardDeviation: Double) -> RangeEstimate? {
        guard rssiStandardDeviation >= 0, rssiStandardDeviation.isFinite,
              let distance = distance(rssi: rssi, txPower: txPower),
              let slope = distanceSlope(rssi: rssi, txPower: txPower)
        else { return nil }
        let deviation = abs(slope) * rssiStandardDeviation
        guard deviation.isFinite else { return nil }
        return RangeEstimate(distance: distance, standardDeviation: deviation)
    }
}

/// Whether `value` can be an RSSI or a txPower: finite and below 0 dBm.
@inline(__always)
func isUsablePower(_ value: Double) -> Bool {
    value < 0 && value.isFinite
}

/// A result only when it is finite and positive.
@inline(__always)
func positiveFinite(_ value: Double) -> Double? {
    value > 0 && value.isFinite ? value : nil
}

/// The log-distance path-loss model: `rssi = txPower − 10·n·log10(d)`, so
/// `d = 10^((txPower − rssi) / (10·n))`.
///
/// `n` is the ``exponent``: 2 in free space (the default), about 1.6–1.8 along corridors and
/// 2.5–4 through walls and people. Its slope is `dd/drssi = −d·ln(10)/(10·n)`, so the distance's
/// standard deviation grows in proportion to the distance: `σ_d = d·ln(10)/(10·n)·σ_rssi`.
///
/// ```swift
/// let model = LogDistancePathLossModel(exponent: 2.5)
/// model?.distance(rssi: -84, txPower: -59)          // 10^(25/25) = 10 m
/// model?.expectedRSSI(atDistance: 10, txPower: -59) // -84 dBm
/// ```
public struct LogDistancePathLossModel: DistanceModel, Hashable {
    /// The default path-loss exponent, 2 (free space).
    public static let defaultExponent = 2.0

    /// The path-loss exponent `n`.
    public let exponent: Double

    /// Creates a model with the free-space exponent 2.
    public init() {
        exponent = Self.defaultExponent
    }

    /// Creates a model with exponent `n`, or `nil` unless it is positive and finite.
    public init?(exponent: Double) {
        guard exponent > 0, exponent.isFinite else { return nil }
        self.exponent = exponent
    }

    /// The distance (metres) for `rssi` from a beacon of `txPower`, or `nil` (see ``DistanceModel``).
    public func distance(rssi: Double, txPower: Double) -> Double? {
        guard isUsablePower(rssi), isUsablePower(txPower) else { return nil }
        return positiveFinite(pow(10, (txPower - rssi) / (10 * exponent)))
    }

    /// The derivative `dd/drssi` (metres per dB) at `rssi`, or `nil` where there is no distance.
    public func distanceSlope(rssi: Double, txPower: Double) -> Double? {
        guard let distance = distance(rssi: rssi, txPower: txPower) else { return nil }
        let slope = -distance * M_LN10 / (10 * exponent)
        return slope.isFinite ? slope : nil
    }

    /// The RSSI (dBm) expected at `distance` metres, or `nil` where the model gives none.
    public func expectedRSSI(atDistance distance: Double, txPower: Double) -> Double? {
        guard positiveFinite(distance) != nil, isUsablePower(txPower) else { return nil }
        let rssi = txPower - 10 * exponent * log10(distance)
        return isUsablePower(rssi) ? rssi : nil
    }
}

/// AltBeacon's curve-fitted model (`CurveFittedDistanceCalculator`): with `ratio = rssi/txPower`
/// (both negative, so the ratio is positive and grows as the signal weakens),
///
/// ```
/// d = ratio^10                         when ratio < 1 (stronger than at 1 m)
/// d = c1·ratio^c2 + c3                 otherwise
/// ```
///
/// The default coefficients `c1 = 0.42093, c2 = 6.9476, c3 = 0.54992` are AltBeacon's fit for a
/// Nexus 4 receiver. The curve jumps at `ratio = 1`, from 1 to `c1 + c3` (0.97085 m by default).
/// The slope is `10·ratio⁹/txPower` below the jump and `c1·c2·ratio^(c2−1)/txPower` above it.
///
/// The inverse takes the first branch for distances under 1 m and the second from 1 m on, where
/// it is the model's unique answer; with coefficients for which the second branch starts above
/// 1 m (`c1 + c3 > 1`), distances between 1 m and `c1 + c3` have no RSSI and give `nil`.
/// Coefficients that make `c1·ratio^c2 + c3` zero or negative near `ratio = 1` give `nil` there.
public struct CurveFittedDistanceModel: DistanceModel, Hashable {
    /// The multiplier `c1`.
    public let coefficient1: Double
    /// The exponent `c2`.
    public let coefficient2: Double
    /// The offset `c3`, metres.
    public let coefficient3: Double

    /// Creates a model with AltBeacon's default coefficients (0.42093, 6.9476, 0.54992).
    public init() {
        coefficient1 = 0.42093
        coefficient2 = 6.9476
        coefficient3 = 0.54992
    }

    /// Creates a model with the given coefficients, or `nil` unless `c1` and `c2` are positive
    /// and finite and `c3` is finite.
    public init?(coefficient1: Double, coefficient2: Double, coefficient3: Double) {
        guard coefficient1 > 0, coefficient1.isFinite, coefficient2 > 0, coefficient2.isFinite,
              coefficient3.isFinite
        else { return nil }
        self.coefficient1 = coefficient1
        self.coefficient2 = coefficient2
        self.coefficient3 = coefficient3
    }

    /// The distance (metres) for `rssi` from a beacon of `txPower`, or `nil` (see ``DistanceModel``).
    public func distance(rssi: Double, txPower: Double) -> Double? {
        guard isUsablePower(rssi), isUsablePower(txPower) else { return nil }
        let ratio = rssi / txPower
        if ratio < 1 {
            return positiveFinite(pow(ratio, 10))
        }
        return positiveFinite(coefficient1 * pow(ratio, coefficient2) + coefficient3)
    }

    /// The derivative `dd/drssi` (metres per dB) at `rssi`, or `nil` where there is no distance.
    public func distanceSlope(rssi: Double, txPower: Double) -> Double? {
        guard distance(rssi: rssi, txPower: txPower) != nil else { return nil }
        let ratio = rssi / txPower
        let slope = ratio < 1
            ? 10 * pow(ratio, 9) / txPower
            : coefficient1 * coefficient2 * pow(ratio, coefficient2 - 1) / txPower
        return slope.isFinite ? slope : nil
    }

    /// The RSSI (dBm) expected at `distance` metres, or `nil` where the model gives none.
    public func expectedRSSI(atDistance distance: Double, txPower: Double) -> Double? {
        guard positiveFinite(distance) != nil, isUsablePower(txPower) else { return nil }
        let ratio: Double
        if distance < 1 {
            ratio = pow(distance, 0.1)
        } else {
            let base = (distance - coefficient3) / coefficient1
            guard base >= 1 else { return nil }
            ratio = pow(base, 1 / coefficient2)
        }
        let rssi = ratio * txPower
        return isUsablePower(rssi) ? rssi : nil
    }
}
