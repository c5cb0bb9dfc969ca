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
/// 68 % of the truths fall inside it: the training scans are split into spatial-block folds
/// (1.5 m blocks, 5 folds), each fold is located with fingerprints learnt from the others, and
/// the factor is the 68th percentile of error ÷ radius. Each fold replays the whole training
/// recording in order, so that the per-beacon filters see the walk as it happened, and scores
/// only its own scans. Without fingerprints the training scans are replayed as they are (the
/// other members learn nothing from positions). Without training data the factor is 1.
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
        guard hasPositions else {
            accuracyScale = 1
            return
        }
        var ratios: [Double] = []
        if let fingerprints, fingerprints.referenceCount > 0 {
            // Fingerprints of the other folds only, with the settings chosen on all the data.
            let fixed = FingerprintSolver.Configuration(k: fingerprints.k, metric: fingerprints.metric,
                                                        mergesSamePosition: fingerprints.mergesSamePosition,
                                                        fillRSSI: fingerprints.fillRSSI,
                                                        filtersTraining: fingerprints.filtersTraining)
            let located = training.filter { $0.truth?.planarPoint != nil }
            let folds = SpatialFolds(locations: located.compactMap { scan in scan.truth?.planarPoint.map { ($0, scan.truth?.floor) } },
                                     blockSize: Self.blockSize / (venue.venue.units.metres ?? 1), folds: Self.folds)
            for fold in 0..<folds.count {
                func heldOut(_ scan: Scan) -> Bool {
                    guard let point = scan.truth?.planarPoint else { return false }
                    return folds.fold(of: point, floor: scan.truth?.floor) == fold
                }
                let others = training.filter { !heldOut($0) }
                let solver = fused(FingerprintSolver(venue: venue, training: others, configuration: fixed))
                ratios += Self.ratios(of: solver, venue: venue, scans: training, configuration: configuration, scoring: heldOut)
            }
        } else {
            ratios = Self.ratios(of: fusion, venue: venue, scans: training, configuration: configuration)
        }
        let scale = ErrorStatistics.percentile(ratios.sorted(), 0.68)
        accuracyScale = scale.isFinite && scale > 0 ? min(max(scale, 0.1), 10) : 1
    }

    /// Error ÷ radius of the located scans with a true position that `scoring` selects. Every scan
    /// is replayed, in order, per device and track, so that the filters see the walk as it was.
    static func ratios(of solver: any PositionSolver, venue: PositioningVenue, scans: [Scan],
                       configuration: LocatorConfiguration, scoring: (Scan) -> Bool = { _ in true }) -> [Double] {
        var locators = TrackLocators(venue: venue, solver: solver, configuration: configuration)
        var ratios: [Double] = []
        for scan in scans {
            let fix = locators.locate(scan)
            guard scoring(scan), let fix, let truth = scan.truth?.planarPoint, fix.accuracy > 0 else { continue }
            ratios.append(fix.point.planar.distance(to: truth) / fix.accuracy)
        }
        return ratios
    }

    /// `"default"`.
    public var name: String { "default" }

    /// The fused estimate with its measured radius, or `nil` when no member has an answer.
    public func locate(_ observation: Observation) -> PositionEstimate? {
        guard var estimate = fusion.locate(observation) else { return nil }
        estimate.accuracy *= accuracyScale
        return estimate
    }
}
