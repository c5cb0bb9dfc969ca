/// Learns each phone's RSSI offset from the places it is classified in, so that a phone the
/// survey never saw is classified as if it read like the survey's.
///
/// Phones read the same beacon several dB apart (antenna, case, chipset). A room classifier
/// trained on one phone's survey compares another phone's readings with the survey's means: a
/// phone that reads 6 dB low looks, to every beacon at once, farther away than it is. The
/// positioning side learns such an offset against the radio model (``DeviceOffsetEstimator``);
/// this is the same idea against the survey itself.
///
/// **The rule.** After each classified scan that heard at least
/// ``Configuration/minimumBeacons`` beacons the survey heard at the places the answer believes
/// in, the scan implies an offset: the mean over those beacons of the reading (before any
/// learnt correction) less the survey's mean RSSI there, each place weighted by its probability.
/// A uniform offset shows in that mean, while a wrong place pulls some beacons up and others
/// down. The estimate is a Kalman filter of a constant (a phone's offset is a property of the
/// phone): prior 0 dB with σ ``Configuration/priorSigma`` (the calibration's prior spread of
/// phones, ``Calibration/Options/deviceOffsetPriorSigma``), each scan's offset with variance
/// ``Configuration/readingSigma``² ÷ beacons + ``Configuration/sharedSigma``², held within
/// ±``Configuration/limit``. Scans are classified with the estimate so far subtracted, so the
/// answer the next scan learns from is already corrected; since the believed place fits the
/// corrected readings, the rule errs toward 0, never away from it.
///
/// With one or two beacons a venue cannot tell an offset from a position, so such scans teach
/// nothing. The phones that made the survey (``knownDevices``) read like its means by definition
/// (after the venue's own device offsets) and learn nothing.
///
/// ``PlaceTracker`` runs one estimate per device (kept across the device's tracks) when its
/// ``PlaceTracker/offsetEstimator`` is set; ``DefaultPlaceClassifier`` sets it from its
/// training set.
///
/// ```swift
/// var tracker = PlaceTracker(classifier: model, smoothing: smoothing,
///                            offsetEstimator: PlaceOffsetEstimator(training: set))
/// ```
public struct PlaceOffsetEstimator: Sendable {
    /// How offsets are learnt.
    public struct Configuration: Hashable, Sendable {
        /// The prior spread of phones' offsets, dB; default the calibration's
        /// (``Calibration/Options/deviceOffsetPriorSigma``, 5 dB).
        public var priorSigma: Double
        /// How far one reading scatters about its place's survey mean, dB; default 6.
        public var readingSigma: Double
        /// The part of one scan's implied offset that no number of beacons averages away (a place
        /// believed in wrongly moves them together), dB; default 2.
        public var sharedSigma: Double
        /// The fewest beacons with a survey mean at the believed places that make a scan count;
        /// default 3 (below that an offset cannot be told from a position).
        public var minimumBeacons: Int
        /// The largest offset either way, dB; default 15.
        public var limit: Double

        /// Creates a configuration.
        public init(priorSigma: Double = Calibration.Options().deviceOffsetPriorSigma, readingSigma: Double = 6,
                    sharedSigma: Double = 2, minimumBeacons: Int = 3, limit: Double = 15) {
            self.priorSigma = priorSigma
            self.readingSigma = readingSigma
            self.sharedSigma = sharedSigma
            self.minimumBeacons = minimumBeacons
            self.limit = limit
        }
    }

    /// One device's estimate.
    public struct Estimate: Hashable, Sendable {
        /// The offset to subtract from the device's readings, dB.
        public var offset: Double
        /// Its variance, dB².
        public var variance: Double
        /// The scans it learnt from.
        public var scans: Int

        /// Creates an estimate.
        public init(offset: Double, variance: Double, scans: Int = 0) {
            self.offset = offset
            self.variance = variance
            self.scans = scans
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// The beacons, in the order of each place's row of ``means``.
    public let beacons: PlaceBeacons
    /// The survey's mean RSSI (dBm) of each place (in the classifier's order) and beacon (in
    /// ``beacons``' order); `nil` where the place never heard the beacon.
    public var means: [[Double?]] {
        (0..<placeCount).map { place in
            (0..<beaconCount).map { beacon in
                let mean = flat[place * beaconCount + beacon]
                return mean.isNaN ? nil : mean
            }
        }
    }
    /// The devices whose scans the means come from (an unnamed device as the empty name): they
    /// are not learnt.
    public let knownDevices: Set<String>
    private let placeCount: Int, beaconCount: Int
    /// Place-major: `flat[place * beaconCount + beacon]`, NaN where not heard.
    private let flat: [Double]

    /// An estimator against the survey's means (per place, per beacon; `nil`: never heard there),
    /// made with `knownDevices`' scans. Rows shorter than `beacons` are read as not heard beyond
    /// their end.
    public init(means: [[Double?]], beacons: PlaceBeacons, knownDevices: Set<String> = [], configuration: Configuration = Configuration()) {
        self.beacons = beacons
        self.knownDevices = knownDevices
        self.configuration = configuration
        placeCount = means.count
        beaconCount = beacons.count
        var flat = [Double](repeating: .nan, count: means.count * beacons.count)
        for (place, row) in means.enumerated() {
            for (beacon, mean) in row.prefix(beacons.count).enumerated() {
                if let mean, mean.isFinite { flat[place * beacons.count + beacon] = mean }
            }
        }
        self.flat = flat
    }

    /// An estimator against a training set's statistics (the mean of each place's readings of
    /// each beacon it heard), made with `knownDevices`' scans.
    public init(statistics: GaussianPlaceStatistics, beacons: PlaceBeacons, knownDevices: Set<String> = [],
                configuration: Configuration = Configuration()) {
        self.init(means: statistics.cells.map { row in row.map { $0.heard > 0 ? $0.mean : nil } },
                  beacons: beacons, knownDevices: knownDevices, configuration: configuration)
    }

    /// An estimator against a training set: its statistics (`statistics`, when already computed
    /// from it), its devices known.
    public init(training set: PlaceTrainingSet, statistics: GaussianPlaceStatistics? = nil,
                configuration: Configuration = Configuration()) {
        self.init(statistics: statistics ?? GaussianPlaceStatistics(set), beacons: set.beacons,
                  knownDevices: Set(set.samples.map { $0.scan.device ?? "" }), configuration: configuration)
    }

    /// Whether a device's offset is learnt: any device but those of the survey.
    public func learns(device: String?) -> Bool { !knownDevices.contains(device ?? "") }

    /// What a device knows before its first scan: offset 0 with the prior's variance.
    public var prior: Estimate {
        let sigma = configuration.priorSigma.isFinite ? abs(configuration.priorSigma) : Configuration().priorSigma
        return Estimate(offset: 0, variance: sigma * sigma)
    }

    /// The offset `scan` implies given the place probabilities of its classification (in the
    /// classifier's order), with `correction` dB (a known offset, not learnt) already taken from
    /// its readings; `nil` when fewer than ``Configuration/minimumBeacons`` beacons had a survey
    /// mean at the believed places.
    public func scanOffset(of scan: Scan, probabilities: [Double], correction: Double = 0) -> (offset: Double, beacons: Int)? {
        guard probabilities.count == placeCount, beaconCount > 0, scan.readings.count >= configuration.minimumBeacons else { return nil }
        // The places the answer believes in (mostly a handful), each with its row's start, in a
        // scratch buffer (on the stack when small).
        return withUnsafeTemporaryAllocation(of: (start: Int, probability: Double).self, capacity: placeCount) { believed in
            var count = 0
            for (place, probability) in probabilities.enumerated() where probability > 1e-3 {
                believed[count] = (place * beaconCount, probability)
                count += 1
            }
            var sum = 0.0, beacons = 0
            for reading in scan.readings where reading.isValid {
                guard let beacon = self.beacons.index(for: reading.beacon) else { continue }
                var residual = 0.0, weight = 0.0
                for (start, probability) in believed[..<count] {
                    let mean = flat[start + beacon]
                    guard !mean.isNaN else { continue }
                    residual += probability * (reading.rssi - correction - mean)
                    weight += probability
                }
                // Most of the belief must sit on places that heard the beacon.
                guard weight >= 0.5 else { continue }
                sum += residual / weight
                beacons += 1
            }
            guard beacons >= max(configuration.minimumBeacons, 1) else { return nil }
            return (sum / Double(beacons), beacons)
        }
    }

    /// `estimate` after one scan implied `offset` from `beacons` beacons.
    public func updated(_ estimate: Estimate, scanOffset offset: Double, beacons: Int) -> Estimate {
        let limit = configuration.limit.isFinite ? abs(configuration.limit) : Configuration().limit
        guard offset.isFinite, beacons > 0 else { return estimate }
        let reading = configuration.readingSigma * configuration.readingSigma
        let shared = configuration.sharedSigma * configuration.sharedSigma
        let noise = reading / Double(beacons) + shared
        guard noise.isFinite, noise > 0 else { return estimate }
        let observed = min(max(offset, -2 * limit), 2 * limit)
        let gain = estimate.variance / (estimate.variance + noise)
        var next = estimate
        next.offset = min(max(estimate.offset + gain * (observed - estimate.offset), -limit), limit)
        next.variance = estimate.variance * (1 - gain)
        next.scans += 1
        return next
    }
}
