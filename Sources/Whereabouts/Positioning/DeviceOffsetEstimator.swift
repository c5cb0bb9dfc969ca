import Foundation

/// Learns a device's RSSI offset from its own scans, for phones the venue's calibration has never
/// seen (phones differ by several dB, and a phone that reads 6 dB high puts every beacon at half
/// its distance).
///
/// After each fix from three or more ranges (by default), the offset that scan implies is the
/// mean, over those beacons, of the device's reading (before any correction) less what the
/// beacon's calibration predicts at the fix: `rssi − (txPower − 10·n·log10 d)`. A uniform offset
/// cannot be explained away by moving the fix when beacons surround it, so it shows in that mean,
/// while the fix's own error and each spot's shadowing average out over scans. The estimate is
/// the scans' mean with exponential forgetting (``Configuration/memory``), shrunk toward 0 by
/// ``Configuration/priorScans`` scans' worth of evidence, less ``Configuration/zeroPoint`` (the
/// mean the same rule finds for devices whose offset is known: what the venue's layout alone
/// makes it read), and held within ±``Configuration/limit``.
///
/// ``Locator`` runs one per device when ``LocatorConfiguration/deviceOffsetEstimation`` is set and
/// subtracts the estimate from the device's readings, unless ``LocatorConfiguration/deviceOffsets``
/// knows the device.
///
/// ```swift
/// var estimator = DeviceOffsetEstimator(configuration: .init())
/// estimator.add(scanOffset: 5.5)      // what one scan implied
/// estimator.offset                    // 5.5 · 1 / (1 + 30): little until more scans agree
/// ```
public struct DeviceOffsetEstimator: Hashable, Sendable {
    /// How the offset is learnt.
    public struct Configuration: Hashable, Sendable {
        /// Scans a past scan's evidence lasts (it weighs e^(−age/memory)); default 300.
        public var memory: Double
        /// How many scans' worth of evidence the prior of 0 dB weighs; default 30.
        public var priorScans: Double
        /// The fewest ranges on the fix's floor that make a scan count; default 3.
        public var minimumRanges: Int
        /// The offset the rule finds for a device that needs none, dB, subtracted from every
        /// estimate; default 0 (``PositioningAlgorithm/setup(venue:training:configuration:)``
        /// measures it on the training devices).
        public var zeroPoint: Double
        /// The largest offset, either way, dB; default 15.
        public var limit: Double

        /// Creates a configuration.
        public init(memory: Double = 300, priorScans: Double = 30, minimumRanges: Int = 3, zeroPoint: Double = 0,
                    limit: Double = 15) {
            self.memory = memory
            self.priorScans = priorScans
            self.minimumRanges = minimumRanges
            self.zeroPoint = zeroPoint
            self.limit = limit
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// The forgetting sum of the scans' offsets and of their weights.
    private var sum = 0.0, weight = 0.0

    /// Creates an estimator that knows nothing yet (offset 0).
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The scans that counted, as forgetting weights.
    public var evidence: Double { weight }

    /// The forgetting mean of the scans' offsets, unshrunk and without the zero point; `nil`
    /// before any scan counted.
    public var scanMean: Double? { weight > 0 ? sum / weight : nil }

    /// The offset to subtract from the device's readings, dB: the shrunk forgetting mean of the
    /// scans' offsets less the zero point, within ±``Configuration/limit``.
    public var offset: Double {
        let prior = max(configuration.priorScans, 0)
        guard weight + prior > 0 else { return 0 }
        let mean = sum / (weight + prior)
        let limit = configuration.limit.isFinite ? abs(configuration.limit) : 15
        let zero = configuration.zeroPoint.isFinite ? configuration.zeroPoint : 0
        return min(max(mean - zero * weight / (weight + prior), -limit), limit)
    }

    /// Takes in the offset one scan implied (dB, before any correction). Values beyond twice the
    /// limit are clipped there, so that one absurd scan cannot run away with the estimate.
    public mutating func add(scanOffset: Double) {
        guard scanOffset.isFinite else { return }
        let limit = 2 * (configuration.limit.isFinite ? abs(configuration.limit) : 15)
        let decay = configuration.memory > 0 && configuration.memory.isFinite ? exp(-1 / configuration.memory) : 1
        sum = sum * decay + min(max(scanOffset, -limit), limit)
        weight = weight * decay + 1
    }

    /// Forgets everything (offset 0).
    public mutating func reset() {
        sum = 0
        weight = 0
    }
}
