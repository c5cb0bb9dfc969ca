import Foundation

/// Fingerprinting: the position of the training scans whose signals look most like the ones heard
/// now — k nearest neighbours (kNN) in signal space, learnt from a recording with ground truth.
///
/// **Training.** Each training scan with a true `x`/`y` becomes a fingerprint: one RSSI per venue
/// beacon (the mean when a scan names a beacon twice), "not heard" for the others. Fingerprints
/// may instead hold filtered RSSI — the recording replayed through a ``Locator`` per device and
/// track with ``Options/queryFilter``, like the observations a locator later asks about. With
/// merging, the fingerprints of one device at one true position and floor are averaged into one:
/// per beacon, the mean RSSI of the scans that heard it when at least half of them did, "not
/// heard" otherwise.
///
/// **Query.** The observation's signals, only the beacons on ``Observation/floor`` when it is set
/// (and then only fingerprints of that floor, or of no known floor). A beacon heard on one side only
/// counts as heard at the fill RSSI (``fillRSSI``) under ``Metric/euclidean`` and
/// ``Metric/manhattan``, or costs a fixed penalty under ``Metric/sharedWithPenalty(_:)``; beacons
/// heard on neither side do not count. The position is
/// the mean of the `k` nearest fingerprints' positions weighted by 1/(d + 1 dB), d their signal
/// distance.
///
/// **Accuracy radius.** The weighted spread of those `k` positions around the answer,
/// √(Σ wᵢ |pᵢ − p|² / Σ wᵢ), raised to at least half the typical spacing of the training positions
/// (the median distance from each to the nearest other one), times ``accuracyScale``: the factor
/// that made 68 % of the cross-validation errors fall inside the radius.
///
/// **Tuning.** Whatever the options leave open (`k`, the metric, the fill RSSI, merging,
/// filtered fingerprints) is chosen by group k-fold cross-validation on the training data alone,
/// lowest mean error winning (ties to the earlier candidate, smaller `k` first). The held-out
/// scans are replayed through ``Options/queryFilter`` like real observations. Scans are
/// grouped in square spatial blocks (``Options/blockSize``, 1.5 m) so that neighbours at the
/// same spot never sit on both sides of a fold, and blocks are dealt to folds largest first, each
/// to the lightest fold (as scikit-learn's `GroupKFold`). Everything is deterministic. On the UJI
/// recordings (~900 training scans) it takes 1–2 s in a release build.
///
/// The solver needs training truth with `x` and `y`: without it (a venue labelled by places
/// only) it holds no fingerprint and every `locate` returns `nil`.
///
/// ```swift
/// let venue = PositioningVenue(try VenueFile.read(from: venueURL))
/// let solver = FingerprintSolver(venue: venue, training: trainingScans)
/// print(solver.k, solver.metric, solver.referenceCount)
/// var locator = Locator(venue: venue, solver: solver)
/// ```
public struct FingerprintSolver: PositionSolver {
    /// How unlike two fingerprints are.
    public enum Metric: Hashable, Sendable, CustomStringConvertible {
        /// Euclidean distance over every beacon, "not heard" taken as the fill RSSI.
        case euclidean
        /// Sum of absolute differences over every beacon, "not heard" taken as the fill RSSI.
        case manhattan
        /// Euclidean distance over the beacons heard on both sides, plus `penalty` dB (squared,
        /// like a difference) for each beacon heard on one side only.
        case sharedWithPenalty(Double)

        /// The metrics cross-validation chooses from by default.
        public static let candidates: [Metric] = [.euclidean, .manhattan, .sharedWithPenalty(10), .sharedWithPenalty(20),
                                                  .sharedWithPenalty(30)]

        /// `euclidean`, `manhattan` or `shared+<penalty>dB`.
        public var description: String {
            switch self {
            case .euclidean: "euclidean"
            case .manhattan: "manhattan"
            case .sharedWithPenalty(let penalty): "shared+\(penalty)dB"
            }
        }
    }

    /// What to learn and how; `nil` settings are chosen by cross-validation.
    public struct Options: Sendable {
        /// The number of neighbours, or `nil` to choose among ``candidateKs``.
        public var k: Int?
        /// The values of `k` cross-validation tries.
        public var candidateKs: [Int]
        /// The metric, or `nil` to choose among ``candidateMetrics``.
        public var metric: Metric?
        /// The metrics cross-validation tries.
        public var candidateMetrics: [Metric]
        /// Whether to average the fingerprints of one device at one position, or `nil` to let
        /// cross-validation decide.
        public var mergesSamePosition: Bool?
        /// The RSSI that stands for "not heard", or `nil` to choose by cross-validation among the
        /// lowest training RSSI − 5 dB (at most −100 dBm) and the 1st, 5th and 10th percentiles of
        /// the training RSSI.
        public var fillRSSI: Double?
        /// How the locators that will ask this solver filter their observations, or `nil` when
        /// they do not: the training recording replayed through a ``Locator`` with it gives the
        /// held-out queries of cross-validation and the filtered fingerprints.
        public var queryFilter: LocatorConfiguration?
        /// Whether the fingerprints hold filtered RSSI (the training recording replayed through
        /// ``queryFilter``) rather than each scan's own, or `nil` to let cross-validation decide.
        /// Ignored without a ``queryFilter``.
        public var filtersTraining: Bool?
        /// How many folds cross-validation uses.
        public var folds: Int
        /// The side of the spatial blocks that group training scans for cross-validation, metres
        /// (venue units when the venue has no metric unit).
        public var blockSize: Double
        /// At most this many held-out scans are located per cross-validation run (an even sample
        /// of them), which bounds the training time on long recordings.
        public var maximumValidationQueries: Int

        /// Creates options. The defaults: `k` in 1…50, the metric of ``Metric/candidates``,
        /// the fill, merging and filtered or raw fingerprints all chosen by 5-fold spatial-block
        /// cross-validation, held-out scans filtered like a default ``Locator``'s observations.
        public init(k: Int? = nil, candidateKs: [Int] = [1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 50],
                    metric: Metric? = nil, candidateMetrics: [Metric] = Metric.candidates,
                    mergesSamePosition: Bool? = nil, fillRSSI: Double? = nil,
                    queryFilter: LocatorConfiguration? = LocatorConfiguration(), filtersTraining: Bool? = nil, folds: Int = 5, blockSize: Double = 1.5,
                    maximumValidationQueries: Int = 3000) {
            self.k = k
            self.candidateKs = candidateKs
            self.metric = metric
            self.candidateMetrics = candidateMetrics
            self.mergesSamePosition = mergesSamePosition
            self.fillRSSI = fillRSSI
            self.queryFilter = queryFilter
            self.filtersTraining = filtersTraining
            self.folds = folds
            self.blockSize = blockSize
            self.maximumValidationQueries = maximumValidationQueries
        }
    }

    /// The outcome of cross-validation: every setting tried and its mean error.
    public struct Validation: Hashable, Sendable {
        /// One setting tried.
        public struct Trial: Hashable, Sendable {
            /// The metric.
            public var metric: Metric
            /// Whether fingerprints were merged per position.
            public var mergesSamePosition: Bool
            /// Whether fingerprints held filtered RSSI.
            public var filtersTraining: Bool
            /// The RSSI that stood for "not heard", dBm.
            public var fillRSSI: Double
            /// The number of neighbours.
            public var k: Int
            /// Mean horizontal error over the held-out scans, venue units.
            public var meanError: Double
        }

        /// Every setting tried, in the order tried.
        public var trials: [Trial]
        /// How many held-out scans each trial located.
        public var queries: Int
        /// The number of folds actually used (fewer when there are fewer spatial blocks).
        public var folds: Int
    }

    /// The venue.
    public let venue: PositioningVenue
    /// The number of neighbours.
    public let k: Int
    /// The metric.
    public let metric: Metric
    /// Whether fingerprints were merged per device and position.
    public let mergesSamePosition: Bool
    /// Whether the fingerprints hold filtered RSSI (see ``Options/filtersTraining``).
    public let filtersTraining: Bool
    /// The RSSI that stands for "not heard", dBm.
    public let fillRSSI: Double
    /// The factor between the neighbours' spread and the 68 % accuracy radius (1 without
    /// cross-validation).
    public let accuracyScale: Double
    /// The smallest spread the radius starts from: half the typical spacing of the training
    /// positions, venue units.
    public let minimumSpread: Double
    /// The cross-validation that chose the settings, or `nil` when there was too little training
    /// data (fewer than two spatial blocks).
    public let validation: Validation?

    private let table: FingerprintTable

    /// The number of reference fingerprints held.
    public var referenceCount: Int { table.count }

    /// `"knn"`.
    public var name: String { "knn" }

    /// Learns the fingerprints of `training` (scans with truth `x`/`y`; others are skipped) and
    /// tunes what `options` leave open by cross-validation.
    public init(venue: PositioningVenue, training: [Scan], options: Options = Options()) {
        self.venue = venue
        let width = venue.venue.beacons.count
        let raw = FingerprintSample.samples(of: training, venue: venue, filter: nil)
        let filtered = options.queryFilter.map {
            FingerprintSample.samples(of: training, venue: venue, filter: $0)
        }
        let fills = options.fillRSSI.map { [$0] } ?? FingerprintSample.fillCandidates(of: raw)
        minimumSpread = FingerprintSample.halfSpacing(of: raw, fallback: venue.margin / 2)

        // Held-out queries look like what a locator will ask: filtered when the locators filter.
        let queries = filtered ?? raw
        let metres = venue.venue.units.metres ?? 1
        let folds = FingerprintFolds(samples: queries, blockSize: options.blockSize / metres,
                                     folds: options.folds)
        let metrics = options.metric.map { [$0] } ?? (options.candidateMetrics.isEmpty ? [.euclidean] : options.candidateMetrics)
        let merges = options.mergesSamePosition.map { [$0] } ?? [false, true]
        let filterings = filtered == nil ? [false] : options.filtersTraining.map { [$0] } ?? [false, true]
        var ks = options.k.map { [max(1, $0)] } ?? options.candidateKs.filter { $0 >= 1 }
        if ks.isEmpty { ks = [3] }
        ks = Array(Set(ks)).sorted()

        var chosen = (metric: metrics[0], merge: merges[0], filtered: filterings[0], fill: fills[0],
                      k: options.k.map { max(1, $0) } ?? 3)
        var scale = 1.0
        if folds.count >= 2 {
            var trials: [Validation.Trial] = []
            var best: (trial: Validation.Trial, ratios: [Double])?
            var located = 0
            // Progress: one step a combination of settings tried, when there is a choice to make.
            let combinations = filterings.count * merges.count * metrics.reduce(0) { count, metric in
                if case .sharedWithPenalty = metric { return count + 1 }
                return count + fills.count
            }
            var done = 0
            let stage = "tuning the fingerprints"
            if combinations > 1 { WorkProgress.report(stage, completed: 0, total: combinations) }
            for filtering in filterings {
                for metric in metrics {
                    // The fill matters only to metrics that use it.
                    let tried: [Double]
                    if case .sharedWithPenalty = metric { tried = [fills[0]] } else { tried = fills }
                    for merge in merges {
                      for fill in tried {
                        let run = folds.validate(queries: queries, references: filtering ? queries : raw, width: width,
                                                 metric: metric, merge: merge, fill: fill, ks: ks,
                                                 minimumSpread: minimumSpread,
                                                 maximumQueries: options.maximumValidationQueries)
                        located = run.queries
                        done += 1
                        if combinations > 1 { WorkProgress.report(stage, completed: done, total: combinations) }
                        for (index, k) in ks.enumerated() where run.queries > 0 {
                            let trial = Validation.Trial(metric: metric, mergesSamePosition: merge, filtersTraining: filtering,
                                                         fillRSSI: fill, k: k,
                                                         meanError: run.errorSums[index] / Double(run.queries))
                            trials.append(trial)
                            if trial.meanError < (best?.trial.meanError ?? .infinity) - 1e-12 {
                                best = (trial, run.ratios[index])
                            }
                        }
                      }
                    }
                }
            }
            validation = Validation(trials: trials, queries: located, folds: folds.count)
            if let best {
                chosen = (best.trial.metric, best.trial.mergesSamePosition, best.trial.filtersTraining,
                          best.trial.fillRSSI, best.trial.k)
                let factor = Quantile.ofSorted(best.ratios.sorted(), 0.68)
                if factor.isFinite && factor > 0 { scale = factor }
            }
        } else {
            validation = nil
        }
        metric = chosen.metric
        mergesSamePosition = chosen.merge
        filtersTraining = chosen.filtered
        fillRSSI = chosen.fill
        k = chosen.k
        accuracyScale = scale
        let samples = chosen.filtered ? (filtered ?? raw) : raw
        let references = chosen.merge ? FingerprintSample.merged(samples) : samples
        table = FingerprintTable(references, width: width, venue: venue, fill: Self.usesFill(chosen.metric) ? chosen.fill : nil)
    }

    /// Whether a metric counts "not heard" as the fill RSSI.
    static func usesFill(_ metric: Metric) -> Bool {
        if case .sharedWithPenalty = metric { return false }
        return true
    }

    /// The weighted mean position of the `k` nearest fingerprints, or `nil` when no fingerprint is
    /// held or no venue beacon (of the observation's floor, when set) was heard.
    public func locate(_ observation: Observation) -> PositionEstimate? {
        let width = table.width
        guard table.count > 0, width > 0 else { return nil }
        let beacons: ContiguousArray<Int>
        if let floor = observation.floor {
            guard let list = table.floorBeacons[floor] else { return nil }
            beacons = list
        } else {
            beacons = table.allBeacons
        }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: width) { query -> PositionEstimate? in
            query.initialize(repeating: .nan)
            var heard = 0
            for signal in observation.signals {
                let index = signal.beaconIndex
                guard index >= 0, index < width, signal.rssi.isFinite, query[index].isNaN else { continue }
                if let floor = observation.floor, table.beaconFloors[index] != floor { continue }
                query[index] = min(max(signal.rssi, -200), 50)
                heard += 1
            }
            guard heard > 0 else { return nil }
            let estimate = withUnsafeTemporaryAllocation(of: FingerprintTable.Neighbour.self, capacity: k) { buffer in
                let found = table.nearest(to: UnsafeBufferPointer(query), beacons: beacons, floor: observation.floor,
                                          metric: metric, fill: fillRSSI, into: buffer)
                return FingerprintTable.estimate(buffer, count: found, points: table.points)
            }
            query.deinitialize()
            guard let estimate else { return nil }
            let radius = accuracyScale * max(estimate.spread, minimumSpread)
            return PositionEstimate(point: SpatialPoint(x: estimate.point.x, y: estimate.point.y, z: venue.receiverHeight),
                                    accuracy: radius.isFinite ? radius : minimumSpread, beaconCount: heard)
        }
    }
}
