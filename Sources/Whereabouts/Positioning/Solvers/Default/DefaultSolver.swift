/// Whereabouts' default positioning: every kind of evidence at once, with an accuracy radius
/// measured rather than assumed.
///
/// **Members.** ``WeightedCentroid`` (robust, works from one beacon), ``Multilateration`` (every
/// range, weighted by its uncertainty) and, when the training recording has true positions,
/// ``FingerprintSolver`` (what the signals looked like at known places). They are fused with equal
/// trusts (``TrustFusion``): a member that has no answer is left out, so the solver degrades
/// gracefully — nothing heard gives no fix, one beacon a fix at that beacon with a large radius,
/// two a point between them.
///
/// **Accuracy radius.** The fused radius, times a factor measured on the training data so that
/// 68 % of the truths fall inside it (the estimates' own radius, measured without the
/// configuration's motion tracking, which takes it as the estimate's noise): the training scans
/// are split into spatial-block folds (1.5 m blocks, 5 folds), each fold is located with fingerprints learnt from the others, and
/// the factor is the 68th percentile of error ÷ radius. Each fold replays the whole training
/// recording in order, so that the per-beacon filters see the walk as it happened, and scores
/// only its own scans. Without fingerprints the training scans are replayed as they are (the
/// other members learn nothing from positions). Without training data the factor is measured the
/// same way on a survey simulated with the venue's own calibration, the configured RSSI noise and
/// a persistent shadowing of 4 dB (`simulatedSurvey(of:configuration:)`: a walk from spot to spot
/// over the venue's places), scoring the scans inside them: the radius then keeps its promise as
/// far as that radio model is right. When the configuration tracks, the tracked fixes of the same
/// replay measure a second factor, for the tracker's radius (``trackedAccuracyScale``): a
/// standing phone's estimates share much of their error on real recordings, which the tracker,
/// averaging them as independent, cannot see. The tracker itself weighs each estimate by the
/// scan-to-scan part of its error only (``MotionTracker/Configuration/estimateAccuracyScale``),
/// measured in the same replay from how far apart consecutive fixes of a standing receiver lie.
///
/// **Pipeline.** When the configuration lets it (``LocatorConfiguration/choosesFilterAndTracking``),
/// the same replay also chooses the per-device pipeline: the configuration's own filter and
/// tracking, or raw RSSI with the stop-and-go tracker (``pipelineCandidates(for:)``), whichever
/// locates the validation scans with the lower mean error (``filter``, ``tracking``,
/// ``validationError``); ``PositioningAlgorithm/setup(venue:training:configuration:)`` hands the
/// choice on to the locators.
///
/// Nothing in it is tuned to a data set: the equal trusts are IBeaconLocation's default, and
/// every parameter comes from the training recording or the venue's calibration.
///
/// ```swift
/// let setup = PositioningAlgorithm.default.setup(venue: venue, training: trainingScans)
/// var locators = setup.makeLocators()
/// ```
public struct DefaultSolver: PositionSolver {
    /// The venue.
    public let venue: PositioningVenue
    /// The fused members.
    public let fusion: TrustFusion
    /// The factor applied to the fused radius so that it holds the truth 68 % of the time.
    public let accuracyScale: Double
    /// When the configuration tracks: the factor the tracker's radius needs to hold the truth
    /// 68 % of the time, measured the same way on the tracked fixes (what
    /// ``MotionTracker/Configuration/accuracyScale`` gets in ``PositioningAlgorithm/default``'s
    /// setup); `nil` without tracking.
    public let trackedAccuracyScale: Double?
    /// The per-beacon RSSI filter the solver was validated with: the configuration's, or the
    /// chosen one when the configuration let it choose (``LocatorConfiguration/choosesFilterAndTracking``).
    public let filter: BuiltInRSSIFilter?
    /// The tracking the solver was validated with (as ``filter``), without its measured
    /// radius factor (``trackedAccuracyScale``), with the scan-to-scan share of the estimates'
    /// radius it weighs them by (``MotionTracker/Configuration/estimateAccuracyScale``); measured
    /// on a simulated survey, its radius is kept at least each estimate's own
    /// (``MotionTracker/Configuration/isFlooredAtEstimateAccuracy``).
    public let tracking: MotionTracker.Configuration?
    /// When the training data has true positions: the factor the radius of a fix needs, on top of
    /// ``accuracyScale``, so that it still holds the truth 68 % of the time for a phone the
    /// training never saw, whose offset is learnt online (at least 1). Measured in the same
    /// validation, untracked: each fold's scans replayed as one unknown phone reading
    /// ``unknownDeviceOffset`` dB high (alternate folds: low), learning its offset from nothing.
    public let unknownDeviceAccuracyScale: Double?
    /// The offset of the unknown phone of the validation, dB: the prior spread of phones'
    /// offsets of the calibration (``Calibration/Options/deviceOffsetPriorSigma``).
    public static let unknownDeviceOffset = Calibration.Options().deviceOffsetPriorSigma

    /// The mean error of the validation replay, venue units: of the tracked fixes when
    /// ``tracking`` is set; `nil` when no fix was scored.
    public let validationError: Double?
    /// Whether the validation replayed a simulated survey (the training had no true positions).
    public let isValidatedOnSimulatedSurvey: Bool

    /// The filter and tracking validated with, the tracker's measured radius factor and the
    /// validation error, as a value (see ``ValidatedSettings``).
    public var validatedSettings: ValidatedSettings? {
        ValidatedSettings(filter: filter, tracking: tracking, trackedAccuracyScale: trackedAccuracyScale,
                          validationError: validationError, unknownDeviceAccuracyScale: unknownDeviceAccuracyScale,
                          isSimulatedSurvey: isValidatedOnSimulatedSurvey)
    }

    /// The spatial block size of the radius validation, metres.
    static let blockSize = 1.5
    /// The folds of the radius validation.
    static let folds = 5

    /// Builds the solver; `configuration` is the per-device pipeline the fixes will go through
    /// (the radius validation replays the training scans through the same pipeline).
    public init(venue: PositioningVenue, training: [Scan] = [], configuration: LocatorConfiguration = LocatorConfiguration()) {
        self.venue = venue
        let centroid = WeightedCentroid(venue: venue)
        let multilateration = Multilateration(venue: venue)
        let hasPositions = training.contains { $0.truth?.planarPoint != nil }
        let fingerprints = hasPositions ? FingerprintSolver(venue: venue, training: training) : nil
        func fused(_ fingerprints: FingerprintSolver?) -> TrustFusion {
            var members: [(solver: any PositionSolver, trust: Double)] = [(centroid, 1), (multilateration, 1)]
            if let fingerprints, fingerprints.referenceCount > 0 { members.insert((fingerprints, 1), at: 0) }
            return TrustFusion(members, name: "default")
        }
        fusion = fused(fingerprints)
        // The validation: which solver locates which scans, and which of them it is scored on.
        var validation: [(solver: TrustFusion, scans: [Scan], scoring: (Scan) -> Bool)] = []
        if !hasPositions {
            // No truth to measure with: measure on a survey simulated under the model the ranges
            // assume (the venue's calibration, the configured RSSI noise).
            // The walk between spots is replayed, but only the scans inside the surveyed area count.
            let area = SurveyArea(venue: venue)
            validation = [(fusion, Self.simulatedSurvey(of: venue, configuration: configuration), { scan in
                guard let area, let point = scan.truth?.planarPoint else { return false }
                return area.contains(point, floor: scan.truth?.floor ?? 0)
            })]
        } else if let fingerprints, fingerprints.referenceCount > 0 {
            // Fingerprints of the other folds only, with the settings chosen on all the data.
            let fixed = FingerprintSolver.Options(k: fingerprints.k, metric: fingerprints.metric,
                                                        mergesSamePosition: fingerprints.mergesSamePosition,
                                                        fillRSSI: fingerprints.fillRSSI,
                                                        filtersTraining: fingerprints.filtersTraining)
            let located = training.filter { $0.truth?.planarPoint != nil }
            let folds = SpatialFolds(locations: located.compactMap { scan in scan.truth?.planarPoint.map { ($0, scan.truth?.floor) } },
                                     blockSize: Self.blockSize / (venue.venue.units.metres ?? 1), folds: Self.folds)
            for fold in 0..<folds.count {
                WorkProgress.report("fingerprints of the validation folds", completed: fold, total: folds.count)
                func heldOut(_ scan: Scan) -> Bool {
                    guard let point = scan.truth?.planarPoint else { return false }
                    return folds.fold(of: point, floor: scan.truth?.floor) == fold
                }
                let others = training.filter { !heldOut($0) }
                validation.append((fused(FingerprintSolver(venue: venue, training: others, options: fixed)), training, heldOut))
            }
            WorkProgress.report("fingerprints of the validation folds", completed: folds.count, total: folds.count)
        } else {
            validation = [(fusion, training, { _ in true })]
        }
        // Each candidate pipeline replayed; the one with the lowest mean error is kept.
        let candidates = configuration.choosesFilterAndTracking ? Self.pipelineCandidates(for: configuration) : [configuration]
        var best: Measurement?
        // Progress: each candidate replays each validation member twice (untracked, then tracked).
        let steps = candidates.count * validation.count * 2
        WorkProgress.report("validation replay", completed: 0, total: steps)
        for (index, candidate) in candidates.enumerated() {
            let measured = Self.measure(validation, venue: venue, configuration: candidate, simulated: !hasPositions) { step in
                WorkProgress.report("validation replay", completed: index * validation.count * 2 + step, total: steps)
            }
            if let chosen = best, !(measured.meanError < chosen.meanError) { continue }
            best = measured
        }
        WorkProgress.report("validation replay", completed: steps, total: steps)
        let chosen = best ?? Measurement(configuration: configuration, accuracyScale: 1, trackedAccuracyScale: nil, meanError: .nan)
        accuracyScale = chosen.accuracyScale
        trackedAccuracyScale = chosen.trackedAccuracyScale
        filter = chosen.configuration.filter
        tracking = chosen.configuration.tracking
        validationError = chosen.meanError.isFinite ? chosen.meanError : nil
        isValidatedOnSimulatedSurvey = !hasPositions
        unknownDeviceAccuracyScale = hasPositions
            ? Self.unknownDeviceScale(validation, venue: venue, configuration: chosen.configuration, accuracyScale: chosen.accuracyScale)
            : nil
    }

    /// The 68th percentile of error ÷ radius (at least 1) of the untracked fixes of each
    /// validation member's scans replayed as an unknown phone, `±unknownDeviceOffset` dB off
    /// (alternating), that learns its offset as it goes; `nil` without any fix.
    private static func unknownDeviceScale(_ validation: [(solver: TrustFusion, scans: [Scan], scoring: (Scan) -> Bool)],
                                           venue: PositioningVenue, configuration: LocatorConfiguration,
                                           accuracyScale: Double) -> Double? {
        var learning = configuration
        learning.tracking = nil
        learning.deviceOffsets = [:]
        learning.deviceOffsetEstimation = DeviceOffsetEstimator.Configuration()
        let ratios = validation.enumerated().flatMap { index, member in
            let scans = unknownDevice(member.scans, offset: index % 2 == 0 ? unknownDeviceOffset : -unknownDeviceOffset)
            return Self.scored(DefaultSolver(venue: venue, fusion: member.solver, accuracyScale: accuracyScale), venue: venue,
                               scans: scans, configuration: learning, scoring: member.scoring).map(\.ratio)
        }
        guard !ratios.isEmpty else { return nil }
        return max(Self.scale(from: ratios), 1)
    }

    /// `scans` as read by a phone that no offset list names, `offset` dB above what they read
    /// (each device of the recording its own such phone).
    static func unknownDevice(_ scans: [Scan], offset: Double) -> [Scan] {
        scans.map { scan in
            var stranger = scan.correctedForDeviceOffset(-offset)
            stranger.device = "\u{1F}unknown " + (scan.device ?? "")
            return stranger
        }
    }

    /// What the validation replay of one pipeline measured.
    private struct Measurement {
        var configuration: LocatorConfiguration
        var accuracyScale: Double
        var trackedAccuracyScale: Double?
        /// The mean error of its fixes (the tracked ones when it tracks), NaN without any.
        var meanError: Double
    }

    /// The pipelines the default algorithm chooses between when the configuration lets it
    /// (``LocatorConfiguration/choosesFilterAndTracking``): the configuration's own filter and
    /// tracking, and raw RSSI with the stop-and-go tracker (when that is not the same). The
    /// first averages each beacon's RSSI over a few seconds and suits phones that walk or signals
    /// that drift; the second averages whole fixes for as long as the person stands, and follows
    /// a walk without the filters' lag.
    public static func pipelineCandidates(for configuration: LocatorConfiguration) -> [LocatorConfiguration] {
        var stopAndGo = configuration
        stopAndGo.filter = nil
        stopAndGo.tracking = .stopAndGo
        let same = configuration.filter == nil && configuration.tracking?.model == .stopAndGo
        return same ? [configuration] : [configuration, stopAndGo]
    }

    /// The radius factors and mean error of `configuration`'s pipeline in the validation replay.
    /// On a `simulated` survey, whose errors are independent from scan to scan, the tracker's
    /// radius is measured but is also kept at least each estimate's own
    /// (``MotionTracker/Configuration/isFlooredAtEstimateAccuracy``).
    private static func measure(_ validation: [(solver: TrustFusion, scans: [Scan], scoring: (Scan) -> Bool)],
                                venue: PositioningVenue, configuration: LocatorConfiguration, simulated: Bool,
                                progress: (_ stepsDone: Int) -> Void) -> Measurement {
        // The radius is each estimate's own, before any tracking: a tracker takes it as the
        // estimate's noise and works out its own.
        var untracked = configuration
        untracked.tracking = nil
        var stepsDone = 0
        let fixes = validation.flatMap { member in
            defer {
                stepsDone += 1
                progress(stepsDone)
            }
            return Self.scored(member.solver, venue: venue, scans: member.scans, configuration: untracked, scoring: member.scoring)
        }
        let scale = Self.scale(from: fixes.map(\.ratio))
        guard var tracking = configuration.tracking else {
            return Measurement(configuration: configuration, accuracyScale: scale, trackedAccuracyScale: nil,
                               meanError: Self.mean(fixes.map(\.error)))
        }
        // The tracker's radius, measured the same way on the tracked fixes.
        tracking.accuracyScale = 1
        // The tracker weighs each estimate by the scan-to-scan part of its error only (what a
        // standing receiver's fixes scatter by), so that what persists does not slow it down.
        let stillRatios = fixes.compactMap(\.stillRatio)
        tracking.estimateAccuracyScale = stillRatios.count >= 10 ? scale / Self.scale(from: stillRatios) : 1
        let floored = tracking.isFlooredAtEstimateAccuracy || simulated
        tracking.isFlooredAtEstimateAccuracy = false
        var tracked = configuration
        tracked.tracking = tracking
        let trackedFixes = validation.flatMap { member in
            defer {
                stepsDone += 1
                progress(stepsDone)
            }
            return Self.scored(DefaultSolver(venue: venue, fusion: member.solver, accuracyScale: scale), venue: venue,
                               scans: member.scans, configuration: tracked, scoring: member.scoring)
        }
        var measured = configuration
        measured.tracking?.isFlooredAtEstimateAccuracy = floored
        measured.tracking?.estimateAccuracyScale = tracking.estimateAccuracyScale
        return Measurement(configuration: measured, accuracyScale: scale,
                           trackedAccuracyScale: Self.scale(from: trackedFixes.map(\.ratio)),
                           meanError: Self.mean(trackedFixes.map(\.error)))
    }

    private static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count)
    }

    /// A solver of measured parts.
    private init(venue: PositioningVenue, fusion: TrustFusion, accuracyScale: Double) {
        self.venue = venue
        self.fusion = fusion
        self.accuracyScale = accuracyScale
        trackedAccuracyScale = nil
        filter = nil
        tracking = nil
        validationError = nil
        isValidatedOnSimulatedSurvey = false
        unknownDeviceAccuracyScale = nil
    }

    /// The 68th percentile of error ÷ radius, kept within 0.1…10; 1 when there is none.
    static func scale(from ratios: [Double]) -> Double {
        let scale = Quantile.ofSorted(ratios.sorted(), 0.68)
        return scale.isFinite && scale > 0 ? min(max(scale, 0.1), 10) : 1
    }

    /// One located scan of a validation replay.
    struct ScoredFix {
        /// Distance from the truth.
        var error: Double
        /// Error ÷ radius.
        var ratio: Double
        /// When the scan before it (same device and track, also scored) had the same true
        /// position: the distance between the two fixes over √2, ÷ radius — for independent
        /// errors, distributed as the error of one fix whose error holds only its scan-to-scan
        /// part, so that what persists while a receiver stands is left out.
        var stillRatio: Double?
    }

    /// Each located scan with a true position that `scoring` selects. Every scan is replayed, in
    /// order, per device and track, so that the filters see the walk as it was.
    static func scored(_ solver: any PositionSolver, venue: PositioningVenue, scans: [Scan],
                       configuration: LocatorConfiguration, scoring: (Scan) -> Bool) -> [ScoredFix] {
        // One locator per device and track, each starting afresh, as the pipeline keeps them.
        var locators = DeviceSlots<Locator>()
        var scored: [ScoredFix] = []
        var previous: [String: (truth: PlanarPoint, floor: Int?, point: PlanarPoint)] = [:]
        for scan in scans {
            let slot = locators.slot(device: scan.device, track: scan.track) {
                Locator(venue: venue, solver: solver, configuration: configuration)
            }
            let fix = locators.update(slot) { $0.locate(scan) }
            let key = (scan.device ?? "") + "\u{1F}" + (scan.track ?? "")
            guard scoring(scan), let fix, let truth = scan.truth?.planarPoint, fix.accuracy > 0 else {
                previous[key] = nil
                continue
            }
            let error = fix.point.planar.distance(to: truth)
            var stillRatio: Double?
            if let before = previous[key], before.truth == truth, before.floor == scan.truth?.floor {
                stillRatio = fix.point.planar.distance(to: before.point) / 2.squareRoot() / fix.accuracy
            }
            previous[key] = (truth, scan.truth?.floor, fix.point.planar)
            scored.append(ScoredFix(error: error, ratio: error / fix.accuracy, stillRatio: stillRatio))
        }
        return scored
    }

    /// `"default"`.
    public var name: String { "default" }

    /// The fused estimate with its measured radius, or `nil` when no member has an answer.
    public func locate(_ observation: Observation) -> PositionEstimate? {
        guard var estimate = fusion.locate(observation) else { return nil }
        estimate.accuracy *= accuracyScale
        // From one beacon the truth lies anywhere around it at about its range: the measured
        // factor, learnt mostly from many-beacon fixes, must not shrink the radius below that.
        if estimate.beaconCount == 1, let range = observation.ranges.first {
            estimate.accuracy = max(estimate.accuracy, range.planarDistance(receiverHeight: venue.receiverHeight))
        }
        return estimate
    }
}
