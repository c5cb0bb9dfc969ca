import Foundation

/// Fits the log-distance path-loss model `rssi = txPower − 10·n·log10(d)` to a recording with
/// ground truth: one robust venue-wide (txPower, n), and one per beacon shrunk toward it.
///
/// Feed it scans one at a time (so that a large recording streams through it) or any sequence at
/// once, then ask for the ``CalibrationResult``:
///
/// ```swift
/// let result = try Calibration.fit(scans, in: venue)
/// print(result.summary)
/// let calibrated = result.applied(to: venue, perBeacon: true)
///
/// // or, streaming:
/// var calibration = Calibration(venue: venue)
/// for scan in reader { calibration.add(scan) }
/// let result = try calibration.result()
/// ```
///
/// ### Which readings count
/// A reading becomes a *sample* when its scan's ``GroundTruth`` has `x` and `y`, the reading is
/// valid (``Reading/isValid``), it resolves to a venue beacon (``BeaconDirectory``), that beacon
/// has a position, and the scan's truth floor (when given) is the beacon's floor (0 when absent):
/// signals through a floor lose an extra, unmodelled amount. Everything else is counted in
/// ``Counts`` and skipped. The advertised `txPower` of a reading is not used.
///
/// ### Distance
/// `d` is the distance from the truth position to the beacon, in metres (venue units converted;
/// grid-cell venues stay in cells), never less than ``Options/minimumDistance`` because log10(d)
/// runs off to −∞ near the beacon. The receiver's height is the truth `z`, else
/// ``Options/receiverHeight``, else — only when some venue beacon has its own `z`, and not in a
/// grid-cell venue — 1.2 m (a phone in hand). With a receiver height the distance is 3-D, the beacon at its `z` or the venue's
/// default `z`; without one (no truth `z`, no option, and no beacon with a `z`) it is the 2-D
/// distance on the plan.
///
/// ### Venue fit
/// One (A = txPower, n) for all samples by iteratively reweighted least squares: Huber weights
/// with the scale re-estimated from the MAD of the residuals at every step, then Tukey bisquare
/// weights at that scale (``Loss``), so that multipath, body shadowing or a misplaced beacon do not
/// drag the line. When every sample lies at one distance (log10 d spread < 0.01), n cannot be told
/// from A: n is held at ``Options/fallbackExponent`` and only A is fitted
/// (``CalibrationResult/ExponentStatus/fixed``). n is always held inside
/// ``Options/exponentRange`` (1.0…6.0 by default).
///
/// ### Detection floor
/// Receivers do not report signals weaker than their sensitivity (about −95…−105 dBm), so where
/// the mean RSSI nears that floor only the readings that happened to be strong are heard: the
/// sample is truncated from below, the far samples lie above the true line, and a plain fit
/// comes out with n and A too low. The fits therefore use truncated-regression trimming: fit,
/// leave out the samples whose *predicted* mean RSSI is below floor + k·σ
/// (``Options/detectionMargin``, k = 2; σ the robust residual σ), refit, and repeat until the kept
/// set stops changing (after 10 steps a sample once left out stays out; at most 30 steps). The fit
/// then only uses distances where nearly every transmission is heard, which needs no assumption
/// about the noise's tails or about packet loss, and keeps the robust loss as it is. A step that
/// would keep fewer than 10 samples (or a single distance) is not taken; when nothing is near the
/// floor nothing is left out and the answer is the uncorrected one.
///
/// The floor is ``Options/detectionThreshold`` when given, else estimated per receiver
/// (``Scan/device``; scans without one form one receiver) as the weakest valid RSSI it reported,
/// with or without truth. Per receiver because phones differ in sensitivity and in gain (on
/// uji-lib the weakest readings are −91, −103 and −100 dBm for three phones, and one phone reads
/// ~15 dB higher than the others at the same spot). A floor estimated too high only costs samples;
/// one too low (another phone's) would leave bias. Each receiver's floor is compared with the
/// prediction shifted by that receiver's median residual (relative to all), and σ is measured
/// about each receiver's level. On data with no real floor the weakest reading still acts as one
/// and some of the weakest beacons' far samples are left out: fewer samples, no bias. Beacon fits
/// start from the samples the venue fit kept and repeat the trimming with their own predictions;
/// a beacon none of whose samples the venue fit kept gets no fit. ``CalibrationResult/detectionFloor``
/// says what was done.
///
/// ### Device offsets
/// Phones differ in receiver gain: on uji-lib three phones read 15–20 dB apart at the same spot.
/// Fitted as one, their differences become noise (σ larger, the ranges of a loud phone too short
/// and of a quiet one too long) and, when the phones stood at different distances, a bias in n.
/// So the venue fit is `rssi = A + δ_device − 10·n·log10(d)`, one δ per receiver (``Scan/device``;
/// the scans without one form one receiver), by alternation: fit (A, n) robustly to the samples
/// less their receiver's δ, then set each δ to the robust-weighted mean of its receiver's residuals,
/// shrunk toward 0 by a Gaussian prior (``Options/deviceOffsetPriorSigma``, λ = σ²/τ_δ²:
/// δ = Σ wᵢ rᵢ / (Σ wᵢ + λ)), then recentre the offsets so that their sample-weighted mean is 0
/// (A absorbs the shift), until no δ moves by more than 0.001 dB (at most 50 rounds).
/// So A is the level of the average training sample's phone, a device not seen in training
/// (offset 0) is taken to read like that average, and a device with a few samples stays near it.
/// The detection floor compares each receiver's floor with the prediction plus its δ, and the
/// beacon fits, σ and the residuals are about the corrected samples. The offsets are reported in
/// ``CalibrationResult/deviceOffsets``; with one receiver there are none. A ``Locator`` subtracts
/// them from each reading (``LocatorConfiguration/deviceOffsets``).
///
/// ### Beacon fits
/// Each beacon's (A, n) minimises Σ wᵢ rᵢ²/σ² + (A − A₀)²/τ_A² + (n − n₀)²/τ_n², a Gaussian
/// prior centred on the venue fit (A₀, n₀), with σ the venue's robust residual σ and the same
/// robust weights. A beacon with few samples, or samples over a narrow range of distances,
/// carries little information on n and stays near the venue fit; a well-sampled beacon moves to
/// its own. τ_A = 3 dB and τ_n = 0.3 by default (``Options``): on the UJI datasets the beacons'
/// unshrunk fits (200–500 samples each) spread by 2.0–2.3 dB in A and 0.25–0.30 in n, sampling
/// noise included, so these priors allow that spread without letting a handful of noisy readings
/// (σ 4–8 dB) set a beacon's exponent.
public struct Calibration: Sendable {
    /// The loss that the fits minimise.
    public enum Loss: String, Hashable, Sendable, CaseIterable {
        /// Ordinary least squares: every residual counts squared, so outliers pull hard.
        case leastSquares
        /// Huber (k = 1.345 σ): quadratic near zero, linear beyond, so an outlier's pull is bounded.
        case huber
        /// Tukey's bisquare (c = 4.685 σ), started from the Huber fit: residuals beyond c·σ get
        /// no weight at all. The default.
        case tukey
    }

    /// How the fits are made. The defaults suit BLE beacons in a building.
    public struct Options: Hashable, Sendable {
        /// The loss on the residuals. Default ``Loss/tukey``.
        public var loss: Loss
        /// Distances shorter than this (metres; cells for grid venues) count as this. Default 0.5.
        public var minimumDistance: Double
        /// The receiver's height (venue units) for scans whose truth has no `z`; `nil` for the rule
        /// in ``Calibration``'s discussion of distance.
        public var receiverHeight: Double?
        /// The physical range of the path-loss exponent; fits are held inside it. Default 1.0…6.0
        /// (below 1 a signal would fall off slower than in a waveguide, above 6 nothing indoors does).
        public var exponentRange: ClosedRange<Double>
        /// The exponent used when the data cannot identify it (every sample at one distance);
        /// `nil` for the venue's ``Venue/Defaults/pathLossExponent``.
        public var fallbackExponent: Double?
        /// τ_A, the standard deviation (dB) of the prior that pulls a beacon's txPower toward the
        /// venue fit. Default 3 dB: units of one model, mounted differently, differ by a few dB.
        /// `.infinity` turns the pull off.
        public var txPowerPriorSigma: Double
        /// τ_n, the standard deviation of the prior that pulls a beacon's exponent toward the
        /// venue fit. Default 0.3: the surroundings of beacons in one venue vary, but an exponent
        /// more than ~0.6 from the venue's needs real evidence (many samples over a spread of
        /// distances). `.infinity` turns the pull off.
        public var exponentPriorSigma: Double
        /// The smallest RSSI noise σ (dB) the fits believe. Default 1 dB: RSSI comes in whole dB,
        /// so a smaller spread is quantisation luck, and trusting it would make the per-beacon
        /// prior vanish.
        public var noiseFloor: Double
        /// Whether the fits correct for the receivers' detection floor (see ``Calibration``'s
        /// discussion of the detection floor). Default `true`; `false` fits every sample as heard,
        /// which biases n low and A low when far beacons are often unheard.
        public var correctsForDetectionFloor: Bool
        /// The weakest RSSI (dBm) the receivers report, for every receiver; `nil` (the default)
        /// estimates it per receiver (``Scan/device``) as the weakest valid RSSI that receiver
        /// reported in the recording.
        public var detectionThreshold: Double?
        /// k, how far above the detection floor, in robust residual σ, a sample's predicted mean
        /// RSSI must be for the sample to be fitted. Default 2: at a predicted mean of floor + 2σ,
        /// 2.3 % of the readings fall below the floor, which raises the mean of the heard ones by
        /// 0.055 σ (0.17 dB at σ = 3 dB).
        public var detectionMargin: Double
        /// Whether the venue fit gives each receiver (``Scan/device``) its own RSSI offset δ (see
        /// ``Calibration``'s discussion of device offsets). Default `true`; it changes nothing when
        /// every sample comes from one receiver.
        public var fitsDeviceOffsets: Bool
        /// τ_δ, the standard deviation (dB) of the prior that pulls each device offset toward 0.
        /// Default 5 dB: a device with many samples gets its own offset (phones differ by up to
        /// ~20 dB), one with a few readings — which share one spot and one body, so carry less
        /// evidence than their count says — stays near the others. `.infinity` turns the pull off.
        public var deviceOffsetPriorSigma: Double

        /// Creates options; every argument has the documented default.
        public init(loss: Loss = .tukey, minimumDistance: Double = 0.5, receiverHeight: Double? = nil,
                    exponentRange: ClosedRange<Double> = 1.0...6.0, fallbackExponent: Double? = nil,
                    txPowerPriorSigma: Double = 3, exponentPriorSigma: Double = 0.3, noiseFloor: Double = 1,
                    correctsForDetectionFloor: Bool = true, detectionThreshold: Double? = nil,
                    detectionMargin: Double = 2, fitsDeviceOffsets: Bool = true, deviceOffsetPriorSigma: Double = 5) {
            self.fitsDeviceOffsets = fitsDeviceOffsets
            self.deviceOffsetPriorSigma = deviceOffsetPriorSigma
            self.loss = loss
            self.minimumDistance = minimumDistance
            self.receiverHeight = receiverHeight
            self.exponentRange = exponentRange
            self.fallbackExponent = fallbackExponent
            self.txPowerPriorSigma = txPowerPriorSigma
            self.exponentPriorSigma = exponentPriorSigma
            self.noiseFloor = noiseFloor
            self.correctsForDetectionFloor = correctsForDetectionFloor
            self.detectionThreshold = detectionThreshold
            self.detectionMargin = detectionMargin
        }
    }

    /// What was seen and what was skipped, and why.
    ///
    /// `samples = readings − invalidReadings − unresolvedReadings − readingsFromUnplacedBeacons − readingsAcrossFloors`;
    /// readings are only examined in scans with a truth position.
    public struct Counts: Hashable, Sendable {
        /// Scans seen.
        public var scans = 0
        /// Scans skipped because their truth has no finite `x`/`y` (or there is no truth).
        public var scansWithoutTruth = 0
        /// Readings in the scans with a truth position.
        public var readings = 0
        /// Readings skipped because their RSSI is not a measurement (``Reading/isValid``).
        public var invalidReadings = 0
        /// Readings skipped because no venue beacon matches them.
        public var unresolvedReadings = 0
        /// Readings skipped because their beacon has no known position.
        public var readingsFromUnplacedBeacons = 0
        /// Readings skipped because the truth floor is not the beacon's floor.
        public var readingsAcrossFloors = 0
        /// Readings used.
        public var samples = 0
        /// Samples whose distance is 3-D (a receiver height was known); the others are 2-D.
        public var spatialSamples = 0

        /// Creates empty counts.
        public init() {}
    }

    struct Sample {
        var beacon: Int
        /// Index into ``receivers``.
        var receiver: Int
        var logDistance: Double
        var rssi: Double
    }

    /// The height of a phone in hand, metres, for venues whose beacons have heights.
    static let handHeight = 1.2

    /// The venue the scans are calibrated against.
    public let venue: Venue
    /// The options of the fit.
    public let options: Options
    /// The scans and readings seen so far.
    public private(set) var counts = Counts()

    private let directory: BeaconDirectory
    private let positions: [SpatialPoint?]
    private let floors: [Int]
    private let metresPerUnit: Double
    private let defaultReceiverHeight: Double?
    private(set) var samples: [Sample] = []
    /// Every receiver (``Scan/device``) seen, with its weakest valid reading, in order of appearance.
    private(set) var receivers: [Receiver] = []
    private var receiverIndex: [String?: Int] = [:]

    /// Prepares a calibration against a venue.
    public init(venue: Venue, options: Options = Options()) {
        self.venue = venue
        self.options = options
        directory = BeaconDirectory(venue)
        positions = venue.beacons.map { $0.position(defaults: venue.defaults) }
        floors = venue.beacons.map { $0.floor ?? 0 }
        metresPerUnit = venue.units.metres ?? 1
        let beaconsHaveHeights = venue.beacons.contains { $0.z != nil }
        defaultReceiverHeight = options.receiverHeight
            ?? (beaconsHaveHeights ? venue.units.metres.map { Self.handHeight / $0 } : nil)
    }

    /// Fits a whole sequence of scans (streamed: it is read once and not kept).
    public static func fit<Scans: Sequence<Scan>>(_ scans: Scans, in venue: Venue,
                                                 options: Options = Options()) throws(CalibrationError) -> CalibrationResult {
        var calibration = Calibration(venue: venue, options: options)
        calibration.add(contentsOf: scans)
        return try calibration.result()
    }

    /// Adds every scan of a sequence.
    public mutating func add<Scans: Sequence<Scan>>(contentsOf scans: Scans) {
        for scan in scans { add(scan) }
    }

    /// Adds one scan: its usable readings become samples, the rest are counted.
    public mutating func add(_ scan: Scan) {
        counts.scans += 1
        // Every valid reading tells of its receiver's sensitivity, with or without truth.
        let receiver = receiverIndex[scan.device] ?? {
            receivers.append(Receiver(device: scan.device))
            receiverIndex[scan.device] = receivers.count - 1
            return receivers.count - 1
        }()
        for reading in scan.readings where reading.isValid { receivers[receiver].observe(reading.rssi) }
        guard let truth = scan.truth, let x = truth.x, let y = truth.y, x.isFinite, y.isFinite else {
            counts.scansWithoutTruth += 1
            return
        }
        let receiverZ = truth.z.flatMap { $0.isFinite ? $0 : nil } ?? defaultReceiverHeight
        let minimum = max(options.minimumDistance, 1e-6)
        for reading in scan.readings {
            counts.readings += 1
            guard reading.isValid else { counts.invalidReadings += 1; continue }
            guard let index = directory.index(for: reading.beacon) else { counts.unresolvedReadings += 1; continue }
            guard let beacon = positions[index] else { counts.readingsFromUnplacedBeacons += 1; continue }
            if let floor = truth.floor, floor != floors[index] { counts.readingsAcrossFloors += 1; continue }
            let dx = beacon.x - x, dy = beacon.y - y
            var squared = dx * dx + dy * dy
            if let receiverZ {
                let dz = beacon.z - receiverZ
                squared += dz * dz
                counts.spatialSamples += 1
            }
            let distance = max(squared.squareRoot() * metresPerUnit, minimum)
            guard distance.isFinite else { counts.readingsFromUnplacedBeacons += 1; continue }
            samples.append(Sample(beacon: index, receiver: receiver, logDistance: log10(distance), rssi: reading.rssi))
            counts.samples += 1
        }
    }

    /// Fits the samples gathered so far.
    ///
    /// - Throws: ``CalibrationError/noUsableSamples(_:)`` when no reading could be used.
    public func result() throws(CalibrationError) -> CalibrationResult {
        guard !samples.isEmpty else { throw .noUsableSamples(counts) }
        let x = samples.map(\.logDistance), y = samples.map(\.rssi)
        let noiseFloor = max(options.noiseFloor, 1e-6)
        let range = options.exponentRange
        let fallback = options.fallbackExponent ?? venue.defaults.pathLossExponent
        let clampedFallback = min(max(fallback, range.lowerBound), range.upperBound)
        let spread = Self.logSpread(samples.indices, x)
        // Distances within 2.3 % of each other (0.01 in log10) cannot tell A from n.
        let identifiable = spread >= 0.01
        let floors = detectionFloors()
        // The floor each sample's predicted mean is held against (−∞: no correction).
        let sampleFloors = samples.map { floors?[$0.receiver] ?? -.infinity }
        let receiverOf = samples.map(\.receiver)
        let margin = options.detectionMargin.isFinite ? max(options.detectionMargin, 0) : 0

        // Device offsets only when at least two receivers have samples: with one, δ = 0 by definition.
        let fitsOffsets = options.fitsDeviceOffsets && Set(receiverOf).count > 1
        func fitVenue(_ kept: [Int]) -> CalibrationSolver.Outcome? {
            func plain(_ values: [Double]) -> CalibrationSolver.Outcome? {
                CalibrationSolver.fit(
                    x: kept.map { x[$0] }, y: values, loss: options.loss, prior: nil, fixedScale: nil,
                    noiseFloor: noiseFloor, fixedExponent: identifiable ? nil : clampedFallback,
                    fallbackExponent: clampedFallback, range: range)
            }
            guard fitsOffsets else { return plain(kept.map { y[$0] }) }
            return Self.fitWithDeviceOffsets(kept: kept, x: x, y: y, receiverOf: receiverOf, receivers: receivers.count,
                                             priorSigma: options.deviceOffsetPriorSigma, fit: plain)
        }
        // The spread about each receiver's own level: what decides how often its far readings go unheard.
        func venueSigma(_ kept: [Int], _ estimate: CalibrationSolver.Estimate, _ offsets: [Double]) -> Double {
            let residuals = kept.map {
                y[$0] - (estimate.txPower - 10 * estimate.exponent * x[$0]) - offsets[receiverOf[$0]]
            }
            return max(CalibrationSolver.robustSigma(residuals), noiseFloor)
        }
        let all = Array(samples.indices)
        guard let venueTrim = Self.trimmed(
            members: all, start: all, x: x, y: y, receiverOf: receiverOf, floors: sampleFloors, margin: margin,
            offsets: fitsOffsets ? .fitted(receivers: receivers.count) : .estimated(receivers: receivers.count), minimumKept: floors == nil ? 0 : Self.minimumTrimmedSamples, minimumSpread: identifiable ? 0.01 : 0,
            fit: fitVenue, sigma: venueSigma)
        else { throw .noUsableSamples(counts) }
        let kept = venueTrim.kept
        // When the venue fit could not leave the samples near the floor out, neither do the beacons':
        // with so few samples a beacon's own trimming would only follow noise.
        let beaconFloors = venueTrim.stoppedShort && kept.count == samples.count
            ? [Double](repeating: -.infinity, count: samples.count) : sampleFloors
        // From here on the samples are corrected by their device's offset (when fitted).
        let deviceOffsets = fitsOffsets ? venueTrim.offsets : [Double](repeating: 0, count: receivers.count)
        let corrected = fitsOffsets ? samples.indices.map { y[$0] - deviceOffsets[receiverOf[$0]] } : y
        let venueFit = Self.summarise(venueTrim.outcome.estimate, x: kept.map { x[$0] }, y: kept.map { corrected[$0] },
                                      noiseFloor: noiseFloor)

        // Per beacon: a MAP fit with the prior centred on the venue fit, noise at the venue's σ,
        // and the same correction, judged by the beacon's own predicted means.
        let noise = max(venueFit.robustSigma, noiseFloor)
        let prior = CalibrationSolver.Prior(
            txPower: venueFit.txPower, exponent: venueFit.pathLossExponent,
            txPowerWeight: Self.penalty(noise: noise, priorSigma: options.txPowerPriorSigma),
            exponentWeight: Self.penalty(noise: noise, priorSigma: options.exponentPriorSigma))
        var isKept = [Bool](repeating: false, count: samples.count)
        for i in kept { isKept[i] = true }
        var groups = [[Int]](repeating: [], count: venue.beacons.count)
        for (i, sample) in samples.enumerated() { groups[sample.beacon].append(i) }
        var beaconFits: [CalibrationResult.BeaconFit] = []
        var unfittedBeacons: [String] = []
        WorkProgress.report("fitting each beacon", completed: 0, total: groups.count)
        for (index, members) in groups.enumerated() where !members.isEmpty {
            defer { WorkProgress.report("fitting each beacon", completed: index + 1, total: groups.count) }
            func fitBeacon(_ subset: [Int]) -> CalibrationSolver.Outcome? {
                CalibrationSolver.fit(
                    x: subset.map { x[$0] }, y: subset.map { corrected[$0] }, loss: options.loss, prior: prior,
                    fixedScale: noise, noiseFloor: noiseFloor, fixedExponent: nil,
                    fallbackExponent: venueFit.pathLossExponent, range: range)
            }
            // Start from the samples the venue fit kept; a beacon none of whose samples the venue
            // fit kept is heard only near the floor and gets no fit of its own.
            let start = members.filter { isKept[$0] }
            guard !start.isEmpty else {
                unfittedBeacons.append(venue.beacons[index].id)
                continue
            }
            guard let trim = Self.trimmed(members: members, start: start, x: x, y: corrected, receiverOf: receiverOf,
                                          floors: beaconFloors, margin: margin, offsets: .fixed(venueTrim.offsets),
                                          minimumKept: 1, minimumSpread: 0, fit: fitBeacon, sigma: { _, _, _ in noise })
            else { continue }
            let bx = trim.kept.map { x[$0] }, by = trim.kept.map { corrected[$0] }
            let summary = Self.summarise(trim.outcome.estimate, x: bx, y: by, noiseFloor: noiseFloor)
            let shrinkage = Self.shrinkage(x: bx, y: by, weights: trim.outcome.weights, prior: prior, noise: noise)
            beaconFits.append(CalibrationResult.BeaconFit(
                beaconIndex: index, beaconID: venue.beacons[index].id, fit: summary,
                txPowerShrinkage: shrinkage.txPower, exponentShrinkage: shrinkage.exponent,
                excludedSamples: members.count - trim.kept.count))
        }
        let detectionFloor = report(floors: floors, venueTrim: venueTrim, margin: margin,
                                    unfittedBeacons: unfittedBeacons)
        let offsetReport = fitsOffsets ? deviceOffsetReport(venueTrim: venueTrim, receiverOf: receiverOf) : []
        return CalibrationResult(venueFit: venueFit, beaconFits: beaconFits, counts: counts, options: options,
                                 distancesInMetres: venue.units.metres != nil, detectionFloor: detectionFloor,
                                 deviceOffsets: offsetReport)
    }

    /// λ = σ²/τ², the weight of a prior of standard deviation τ against samples of noise σ.
    static func penalty(noise: Double, priorSigma: Double) -> Double {
        let tau = max(priorSigma, 1e-9)
        return tau.isFinite ? noise * noise / (tau * tau) : 0
    }

    static func summarise(_ estimate: CalibrationSolver.Estimate, x: [Double], y: [Double],
                          noiseFloor: Double) -> CalibrationResult.Fit {
        let residuals = CalibrationSolver.residuals(x: x, y: y, estimate)
        let sigma = CalibrationSolver.robustSigma(residuals)
        let cut = 3 * max(sigma, noiseFloor)
        let logs = (x.min() ?? 0)...(x.max() ?? 0)
        return CalibrationResult.Fit(
            txPower: estimate.txPower, pathLossExponent: estimate.exponent, exponentStatus: estimate.status,
            samples: x.count, robustSigma: sigma, rms: CalibrationSolver.rootMeanSquare(residuals),
            correlation: CalibrationSolver.correlation(x, y),
            outliers: residuals.count(where: { abs($0) > cut }),
            distanceRange: pow(10, logs.lowerBound)...pow(10, logs.upperBound))
    }

    /// The posterior-to-prior variance ratio of each parameter: C_jj / τ_j², where the posterior
    /// covariance is C = σ²·M⁻¹ and M the penalised normal matrix. 1 = the prior alone (no
    /// information in the data), 0 = the data alone.
    static func shrinkage(x: [Double], y: [Double], weights: [Double], prior: CalibrationSolver.Prior,
                          noise: Double) -> (txPower: Double, exponent: Double) {
        let sums = CalibrationSolver.NormalEquations(x: x, y: y, weights: weights, prior: prior)
        let det = sums.determinant
        func ratio(_ diagonal: Double, _ weight: Double) -> Double {
            // C_jj/τ² = (σ²·diag/det)/(σ²/λ) = λ·diag/det.
            guard weight > 0 else { return 0 }
            guard det > 0 else { return 1 }
            return min(max(weight * diagonal / det, 0), 1)
        }
        return (ratio(sums.s2, prior.txPowerWeight), ratio(sums.s0, prior.exponentWeight))
    }
}
