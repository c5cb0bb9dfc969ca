import Foundation

/// Fingerprinting: the position of the training scans whose signals look most like the ones heard
/// now — k nearest neighbours (kNN) in signal space, learnt from a recording with ground truth.
///
/// **Training.** Each training scan with a true `x`/`y` becomes a fingerprint: one RSSI per venue
/// beacon (the mean when a scan names a beacon twice), "not heard" for the others. Fingerprints
/// may instead hold filtered RSSI — the recording replayed through a ``Locator`` per device and
/// track with ``Configuration/queryFilter``, like the observations a locator later asks about. With
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
/// **Tuning.** Whatever the configuration leaves open (`k`, the metric, the fill RSSI, merging,
/// filtered fingerprints) is chosen by group k-fold cross-validation on the training data alone,
/// lowest mean error winning (ties to the earlier candidate, smaller `k` first). The held-out
/// scans are replayed through ``Configuration/queryFilter`` like real observations. Scans are
/// grouped in square spatial blocks (``Configuration/blockSize``, 1.5 m) so that neighbours at the
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
    public struct Configuration: Sendable {
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

        /// Creates a configuration. The defaults: `k` in 1…50, the metric of ``Metric/candidates``,
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
    /// Whether the fingerprints hold filtered RSSI (see ``Configuration/filtersTraining``).
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
    /// tunes what `configuration` leaves open by cross-validation.
    public init(venue: PositioningVenue, training: [Scan], configuration: Configuration = Configuration()) {
        self.venue = venue
        let width = venue.venue.beacons.count
        let raw = FingerprintSample.samples(of: training, venue: venue, filter: nil)
        let filtered = configuration.queryFilter.map {
            FingerprintSample.samples(of: training, venue: venue, filter: $0)
        }
        let fills = configuration.fillRSSI.map { [$0] } ?? FingerprintSample.fillCandidates(of: raw)
        minimumSpread = FingerprintSample.halfSpacing(of: raw, fallback: venue.margin / 2)

        // Held-out queries look like what a locator will ask: filtered when the locators filter.
        let queries = filtered ?? raw
        let metres = venue.venue.units.metres ?? 1
        let folds = FingerprintFolds(samples: queries, blockSize: configuration.blockSize / metres,
                                     folds: configuration.folds)
        let metrics = configuration.metric.map { [$0] } ?? (configuration.candidateMetrics.isEmpty ? [.euclidean] : configuration.candidateMetrics)
        let merges = configuration.mergesSamePosition.map { [$0] } ?? [false, true]
        let filterings = filtered == nil ? [false] : configuration.filtersTraining.map { [$0] } ?? [false, true]
        var ks = configuration.k.map { [max(1, $0)] } ?? configuration.candidateKs.filter { $0 >= 1 }
        if ks.isEmpty { ks = [3] }
        ks = Array(Set(ks)).sorted()

        var chosen = (metric: metrics[0], merge: merges[0], filtered: filterings[0], fill: fills[0],
                      k: configuration.k.map { max(1, $0) } ?? 3)
        var scale = 1.0
        if folds.count >= 2 {
            var trials: [Validation.Trial] = []
            var best: (trial: Validation.Trial, ratios: [Double])?
            var located = 0
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
                                                 maximumQueries: configuration.maximumValidationQueries)
                        located = run.queries
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

/// One training fingerprint: where, on which floor, by which device, and the RSSI of every venue
/// beacon (NaN when not heard).
struct FingerprintSample: Sendable {
    var point: PlanarPoint
    var floor: Int?
    var device: String?
    var values: [Double]

    /// The fingerprints of the scans with truth x/y that heard at least one venue beacon.
    static func samples(of training: [Scan], venue: PositioningVenue, filter: LocatorConfiguration?) -> [FingerprintSample] {
        let width = venue.venue.beacons.count
        var samples: [FingerprintSample] = []
        guard width > 0 else { return samples }
        if let filter {
            var locators: [String: Locator] = [:]
            for scan in training {
                let key = "\(scan.device ?? "")\u{1F}\(scan.track ?? "")"
                var locator = locators[key] ?? Locator(venue: venue, solver: WeightedCentroid(venue: venue), configuration: filter)
                let observation = locator.observe(scan)
                locators[key] = locator
                guard let truth = scan.truth, let point = truth.planarPoint, point.x.isFinite, point.y.isFinite else { continue }
                var values = [Double](repeating: .nan, count: width)
                var heard = false
                for signal in observation.signals where signal.rssi.isFinite && signal.beaconIndex >= 0 && signal.beaconIndex < width {
                    values[signal.beaconIndex] = signal.rssi
                    heard = true
                }
                if heard { samples.append(FingerprintSample(point: point, floor: truth.floor, device: scan.device, values: values)) }
            }
            return samples
        }
        var sums = [Double](repeating: 0, count: width)
        var counts = [Int](repeating: 0, count: width)
        for scan in training {
            guard let truth = scan.truth, let point = truth.planarPoint, point.x.isFinite, point.y.isFinite else { continue }
            for index in 0..<width {
                sums[index] = 0
                counts[index] = 0
            }
            var heard = false
            for reading in scan.readings where reading.isValid {
                guard let index = venue.directory.index(for: reading.beacon) else { continue }
                sums[index] += reading.rssi
                counts[index] += 1
                heard = true
            }
            guard heard else { continue }
            let values = (0..<width).map { counts[$0] > 0 ? sums[$0] / Double(counts[$0]) : .nan }
            samples.append(FingerprintSample(point: point, floor: truth.floor, device: scan.device, values: values))
        }
        return samples
    }

    /// One fingerprint per device, position and floor (in order of first appearance): per beacon,
    /// the mean of the RSSI heard when at least half of the scans heard it, NaN otherwise.
    static func merged(_ samples: [FingerprintSample]) -> [FingerprintSample] {
        struct Key: Hashable {
            var x: Double, y: Double, floor: Int?, device: String?
        }
        var order: [Key] = []
        var groups: [Key: (count: Int, sums: [Double], heard: [Int])] = [:]
        for sample in samples {
            let key = Key(x: sample.point.x, y: sample.point.y, floor: sample.floor, device: sample.device)
            var group = groups[key] ?? (0, [Double](repeating: 0, count: sample.values.count),
                                        [Int](repeating: 0, count: sample.values.count))
            if group.count == 0 { order.append(key) }
            group.count += 1
            for (index, value) in sample.values.enumerated() where !value.isNaN {
                group.sums[index] += value
                group.heard[index] += 1
            }
            groups[key] = group
        }
        return order.compactMap { key in
            guard let group = groups[key] else { return nil }
            let values = zip(group.sums, group.heard).map { sum, heard in
                heard > 0 && 2 * heard >= group.count ? sum / Double(heard) : .nan
            }
            guard values.contains(where: { !$0.isNaN }) else { return nil }
            return FingerprintSample(point: PlanarPoint(x: key.x, y: key.y), floor: key.floor, device: key.device, values: values)
        }
    }

    /// The fills cross-validation tries: the lowest RSSI − 5 dB but at most −100 dBm, then the
    /// 1st, 5th and 10th percentiles of the RSSI heard (duplicates dropped); −100 dBm alone
    /// without samples.
    static func fillCandidates(of samples: [FingerprintSample]) -> [Double] {
        var heard: [Double] = []
        for sample in samples {
            for value in sample.values where !value.isNaN { heard.append(value) }
        }
        guard !heard.isEmpty else { return [-100] }
        heard.sort()
        var fills = [min(heard[0] - 5, -100)]
        for quantile in [0.01, 0.05, 0.10] {
            let fill = Quantile.ofSorted(heard, quantile)
            if !fills.contains(fill) { fills.append(fill) }
        }
        return fills
    }

    /// Half the median distance from each distinct training position to the nearest other one,
    /// or `fallback` with fewer than two positions.
    static func halfSpacing(of samples: [FingerprintSample], fallback: Double) -> Double {
        var seen: Set<PlanarPoint> = []
        var points: [PlanarPoint] = []
        for sample in samples where seen.insert(sample.point).inserted { points.append(sample.point) }
        guard points.count >= 2 else { return fallback }
        var nearest: [Double] = []
        nearest.reserveCapacity(points.count)
        for (i, p) in points.enumerated() {
            var best = Double.infinity
            for (j, q) in points.enumerated() where i != j { best = min(best, p.distance(to: q)) }
            nearest.append(best)
        }
        let half = Quantile.ofSorted(nearest.sorted(), 0.5) / 2
        return half.isFinite && half > 0 ? half : fallback
    }
}

/// The reference fingerprints as one flat row-major matrix, and the search over it.
struct FingerprintTable: Sendable {
    /// One candidate neighbour: its signal distance and its row.
    struct Neighbour: Sendable {
        var distance: Double
        var row: Int
    }

    /// Beacons per row.
    let width: Int
    /// RSSI by row and beacon, NaN when not heard.
    let values: ContiguousArray<Double>
    /// The same values by blocks of eight rows: block b, beacon c holds rows 8b…8b+7 of column c
    /// (NaN past the last row), so that eight rows are measured at once, each in column order.
    /// "Not heard" is ``blockFill`` there when it is set. Single precision, as every distance of
    /// the search is: a `Float` keeps an RSSI to 1e-5 dB, and eight of them take half the vector
    /// operations of eight `Double`s.
    let blocks: ContiguousArray<SIMD8<Float>>
    /// The fill of "not heard" in ``blocks``, or `nil` when they keep NaN.
    let blockFill: Double?
    /// Per block, its centre: the mean of its rows' values (as in ``blocks``), one per beacon, so
    /// that a block far from a query is passed over on the triangle inequality. Block b's starts
    /// at b · ``centreStride``, zeros after its last beacon. Empty when the blocks keep NaN.
    let centres: ContiguousArray<Double>
    /// The width rounded up to a multiple of eight.
    var centreStride: Int { (width + 7) / 8 * 8 }
    /// Per block, each row's Manhattan distance to the centre over every beacon.
    let manhattanRadii: ContiguousArray<SIMD8<Double>>
    /// Per block, each row's Euclidean distance to the centre over every beacon.
    let euclideanRadii: ContiguousArray<SIMD8<Double>>
    /// The blocks measured first for a query whose loudest beacon is c: entries
    /// c · ``seedsPerBeacon`` … (see ``seeds(of:width:)``).
    let seeds: ContiguousArray<Int>
    /// Position of each row.
    let points: ContiguousArray<PlanarPoint>
    /// Floor of each row, `Int.min` when unknown.
    let floors: ContiguousArray<Int>
    /// Per block of ``blocks``: the floor its eight rows share (`Int.min` when all unknown), or
    /// ``mixedFloors`` when they differ or the block has fewer than eight rows.
    let blockFloors: ContiguousArray<Int>
    /// Floor of each beacon.
    let beaconFloors: ContiguousArray<Int>
    /// Every beacon index.
    let allBeacons: ContiguousArray<Int>
    /// The beacon indices of each floor.
    let floorBeacons: [Int: ContiguousArray<Int>]

    var count: Int { points.count }

    init(_ samples: [FingerprintSample], width: Int, venue: PositioningVenue, fill: Double? = nil) {
        self.width = width
        var values = ContiguousArray<Double>()
        values.reserveCapacity(samples.count * width)
        for sample in samples { values.append(contentsOf: sample.values) }
        self.values = values
        blockFill = fill
        blocks = Self.blocks(of: values, width: width, fill: fill)
        (centres, manhattanRadii, euclideanRadii) = Self.centres(of: blocks, width: width, rows: samples.count,
                                                                 filled: fill != nil)
        seeds = Self.seeds(of: values, width: width)
        points = ContiguousArray(samples.map(\.point))
        floors = ContiguousArray(samples.map { $0.floor ?? Int.min })
        blockFloors = Self.blockFloors(of: floors)
        beaconFloors = ContiguousArray((0..<width).map { $0 < venue.floors.count ? venue.floors[$0] : 0 })
        allBeacons = ContiguousArray(0..<width)
        var byFloor: [Int: ContiguousArray<Int>] = [:]
        for index in 0..<width { byFloor[beaconFloors[index], default: []].append(index) }
        floorBeacons = byFloor
    }

    /// The row-major `values` rearranged into blocks of eight rows (see ``blocks``).
    static func blocks(of values: ContiguousArray<Double>, width: Int, fill: Double?) -> ContiguousArray<SIMD8<Float>> {
        guard width > 0 else { return [] }
        let rows = values.count / width
        let blockCount = (rows + 7) / 8
        var blocks = ContiguousArray(repeating: SIMD8<Float>(repeating: .nan), count: blockCount * width)
        for row in 0..<rows {
            for column in 0..<width {
                let value = values[row * width + column]
                blocks[(row / 8) * width + column][row % 8] = Float(value.isNaN ? fill ?? value : value)
            }
        }
        return blocks
    }

    /// The ``centres`` of filled `blocks` of `rows` rows and their rows' distances to them (rows
    /// past the last: 0); nothing when the blocks are not filled.
    static func centres(of blocks: ContiguousArray<SIMD8<Float>>, width: Int, rows: Int, filled: Bool)
        -> (ContiguousArray<Double>, ContiguousArray<SIMD8<Double>>, ContiguousArray<SIMD8<Double>>) {
        guard filled, width > 0 else { return ([], [], []) }
        let blockCount = blocks.count / width
        let stride = (width + 7) / 8 * 8
        var centres = ContiguousArray<Double>(repeating: 0, count: blockCount * stride)
        var manhattan = ContiguousArray<SIMD8<Double>>(repeating: .zero, count: blockCount)
        var euclidean = ContiguousArray<SIMD8<Double>>(repeating: .zero, count: blockCount)
        for block in 0..<blockCount {
            let lanes = min(8, rows - block * 8)
            var squares = SIMD8<Double>.zero
            for column in 0..<width {
                let values = SIMD8<Double>(blocks[block * width + column])
                var sum = 0.0
                for lane in 0..<lanes { sum += values[lane] }
                let centre = sum / Double(lanes)
                centres[block * stride + column] = centre
                for lane in 0..<lanes {
                    let d = values[lane] - centre
                    manhattan[block][lane] += abs(d)
                    squares[lane] += d * d
                }
            }
            for lane in 0..<lanes { euclidean[block][lane] = squares[lane].squareRoot() }
        }
        return (centres, manhattan, euclidean)
    }

    /// The ``blockFloors`` entry of a block whose rows do not share one floor.
    static let mixedFloors = Int.max

    /// The floor shared by each block's eight rows (see ``blockFloors``).
    static func blockFloors(of floors: ContiguousArray<Int>) -> ContiguousArray<Int> {
        let rows = floors.count
        return ContiguousArray((0..<(rows + 7) / 8).map { block in
            let start = block * 8
            guard start + 8 <= rows else { return mixedFloors }
            let first = floors[start]
            return floors[start..<start + 8].allSatisfy { $0 == first } && first != mixedFloors ? first : mixedFloors
        })
    }

    /// How many of the query's loudest beacons make the lower bound a block must pass.
    static let boundBeacons = 24

    /// The relative margin by which the lower bound must exceed the k-th distance for a search
    /// over `width` beacons: twice the rounding a single-precision sum of `width` terms (and its
    /// differences and squares) can make, (width + 2)·2⁻²⁴, far below any real difference
    /// (1.6e-6 for 4 beacons, 3.1e-6 for 24).
    static func boundMargin(width: Int) -> Double {
        Double(width + 2) * Double(Float.ulpOfOne)
    }

    /// How many blocks ``seeds`` holds per beacon.
    static let seedsPerBeacon = 4

    /// How many of the query's loudest beacons lend their ``seeds`` (1…4).
    static let seedBeacons = 3

    /// For each beacon, the ``seedsPerBeacon`` blocks holding the rows that heard it loudest
    /// (strongest first, −1 past the blocks that heard it): the blocks a query measures first.
    static func seeds(of values: ContiguousArray<Double>, width: Int) -> ContiguousArray<Int> {
        guard width > 0 else { return [] }
        let rows = values.count / width
        var seeds = ContiguousArray<Int>(repeating: -1, count: width * seedsPerBeacon)
        for column in 0..<width {
            var loudest: [(rssi: Double, block: Int)] = []
            for block in 0..<(rows + 7) / 8 {
                var best = -Double.infinity
                for row in (block * 8)..<min(block * 8 + 8, rows) where !values[row * width + column].isNaN {
                    best = max(best, values[row * width + column])
                }
                if best > -.infinity { loudest.append((best, block)) }
            }
            loudest.sort { $0.rssi > $1.rssi || ($0.rssi == $1.rssi && $0.block < $1.block) }
            for (index, entry) in loudest.prefix(seedsPerBeacon).enumerated() {
                seeds[column * seedsPerBeacon + index] = entry.block
            }
        }
        return seeds
    }

    /// Fills `buffer` with the nearest rows to `query` (NaN = not heard), nearest first, over the
    /// beacons `beacons`, keeping only rows of `floor` (or of no known floor) when it is set;
    /// returns how many it found (at most `buffer.count`). Ties keep the earlier row.
    ///
    /// Eight rows at a time, in single precision: each lane sums its row's terms in column order, exactly as
    /// ``nearestRowByRow(to:beacons:floor:metric:fill:into:)`` does (a beacon heard on neither side
    /// adds an exact zero there instead of nothing). The blocks that heard the query's loudest
    /// beacon loudest (``seeds``) are measured first, so that the k-th distance is small early,
    /// then the others in order. The buffer holds the `k` least (distance, row) pairs seen so
    /// far, whatever the order they come in, so the neighbours, their distances and the ties are
    /// those of the row-by-row search. Once the buffer is full, a block is passed over when the
    /// triangle inequality around its centre (``centres``) puts every row past the k-th distance by
    /// more than ``boundMargin(width:)`` (the single-precision sums are rounded by less), and one whose floor
    /// (``blockFloors``) is not the query's is passed over at once. A block stops early once every
    /// lane is past the distance of the current k-th neighbour (checked every four beacons), and
    /// its lanes are looked at only when one of them can enter the buffer.
    func nearest(to query: UnsafeBufferPointer<Double>, beacons: ContiguousArray<Int>, floor: Int?,
                 metric: FingerprintSolver.Metric, fill: Double,
                 into buffer: UnsafeMutableBufferPointer<Neighbour>) -> Int {
        let capacity = buffer.count
        guard capacity > 0, width > 0, query.count >= width else { return 0 }
        let code: Int, penalty: Double
        switch metric {
        case .euclidean: (code, penalty) = (0, 0)
        case .manhattan: (code, penalty) = (1, 0)
        case .sharedWithPenalty(let value): (code, penalty) = (2, value.isFinite ? value * value : 0)
        }
        // The blocks hold one fill (or none): any other pairing is measured row by row.
        let prefilled = blockFill.map { $0.bitPattern == fill.bitPattern && code != 2 } ?? (code == 2)
        guard prefilled else {
            return nearestRowByRow(to: query, beacons: beacons, floor: floor, metric: metric, fill: fill, into: buffer)
        }
        let rows = points.count
        let blockCount = (rows + 7) / 8
        // Distances are summed in single precision (see ``blocks``); the bound on the centres is
        // worked out in double precision.
        typealias Lanes = SIMD8<Float>
        typealias Wide = SIMD8<Double>
        let penalties = Lanes(repeating: Float(penalty)), zeros = Lanes(repeating: 0)
        let magnitude = SIMD8<UInt32>(repeating: ~(1 << 31)), wideMagnitude = SIMD8<UInt64>(repeating: ~(1 << 63))
        let margin = Self.boundMargin(width: width)
        // The seeds: the blocks of the ``seedBeacons`` loudest beacons the query heard among
        // `beacons`, loudest first (the earlier column on equal RSSI).
        var loudest = SIMD4<Int>(repeating: -1), loudestRSSI = SIMD4<Double>(repeating: -.infinity)
        for column in beacons where column >= 0 && column < width && query[column] > loudestRSSI[Self.seedBeacons - 1] {
            var slot = Self.seedBeacons - 1
            while slot > 0 && loudestRSSI[slot - 1] < query[column] {
                (loudest[slot], loudestRSSI[slot]) = (loudest[slot - 1], loudestRSSI[slot - 1])
                slot -= 1
            }
            (loudest[slot], loudestRSSI[slot]) = (column, query[column])
        }
        // The query with "not heard" as the fill, for the metrics that fill, in single precision
        // (`narrow`) and the same values widened (`filled`, zeros past the last beacon up to the
        // ``centreStride``), so that the bound works on the very values measured.
        let stride = centreStride
        let found = withUnsafeTemporaryAllocation(of: Double.self, capacity: max(stride, width)) { filled -> Int in
        withUnsafeTemporaryAllocation(of: Float.self, capacity: width) { narrow -> Int in
        for column in 0..<width {
            let value = Float(query[column].isNaN ? fill : query[column])
            narrow.initializeElement(at: column, to: value)
            filled.initializeElement(at: column, to: Double(value))
        }
        for column in width..<max(stride, width) { filled.initializeElement(at: column, to: 0) }
        defer {
            filled.deinitialize()
            narrow.deinitialize()
        }
        // The centres bound the distances of the metrics that fill (see ``centres``).
        let bounded = code != 2 && blockFill != nil && centres.count == blockCount * stride
        return blocks.withUnsafeBufferPointer { matrix -> Int in
          centres.withUnsafeBufferPointer { centres -> Int in
            beacons.withUnsafeBufferPointer { columns -> Int in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: blockCount) { order -> Int in
                let count = columns.count
                // `beacons` holds distinct columns: as many as the width are all of them.
                let filledChunks = UnsafeRawPointer(filled.baseAddress)
                let centreChunks = UnsafeRawPointer(centres.baseAddress)
                // The order measured: the seeds, so that the k-th distance is small early, then the
                // others in order.
                var ordered = 0
                withUnsafeTemporaryAllocation(of: Bool.self, capacity: blockCount) { measured in
                    measured.initialize(repeating: false)
                    seeds.withUnsafeBufferPointer { seeds in
                        for beacon in 0..<Self.seedBeacons where loudest[beacon] >= 0 {
                            let first = loudest[beacon] * Self.seedsPerBeacon
                            for index in 0..<Self.seedsPerBeacon {
                                let block = seeds[first + index]
                                guard block >= 0, block < blockCount, !measured[block] else { continue }
                                measured[block] = true
                                order[ordered] = block
                                ordered += 1
                            }
                        }
                    }
                    for block in 0..<blockCount where !measured[block] {
                        order[ordered] = block
                        ordered += 1
                    }
                }
                var found = 0
                /// The term of beacon `column` for the eight rows of the block at `base`.
                @inline(__always) func term(_ code: Int, _ column: Int, _ base: Int) -> Lanes {
                    switch code {
                    case 0:
                        let d = Lanes(repeating: narrow[column]) - matrix[base + column]
                        return d * d
                    case 1:
                        let d = Lanes(repeating: narrow[column]) - matrix[base + column]
                        // |d|: the sign bit cleared, as `abs` does.
                        return unsafeBitCast(unsafeBitCast(d, to: SIMD8<UInt32>.self) & magnitude, to: Lanes.self)
                    default:
                        let a = Float(query[column]), b = matrix[base + column]
                        let bHeard = b .== b
                        if a.isNaN { return zeros.replacing(with: penalties, where: bHeard) }
                        let d = Lanes(repeating: a) - b
                        return penalties.replacing(with: d * d, where: bHeard)
                    }
                }
                for block in UnsafeBufferPointer(rebasing: order[..<ordered]) {
                    let start = block * 8
                    let base = block * width
                    // Lanes that are not rows of the floor (or not rows at all) start at infinity.
                    var sum = zeros
                    let shared = blockFloors[block]
                    if shared == Self.mixedFloors {
                        for lane in 0..<8 {
                            let row = start + lane
                            if row >= rows || (floor != nil && floors[row] != Int.min && floors[row] != floor) {
                                sum[lane] = .infinity
                            }
                        }
                    } else if let floor, shared != Int.min, shared != floor {
                        continue
                    }
                    let full = found == capacity
                    if full, bounded {
                        // The triangle inequality around the block's centre p: a row r is at least
                        // d(q, p) − d(p, r) from the query (over the beacons measured; d(p, r) over
                        // every beacon is at least as large). Rounding moves those sums by a few
                        // ulps, never by the relative margin: a lane it puts past the k-th distance
                        // plus the margin cannot enter.
                        let centre = block * stride
                        var toCentre = 0.0
                        if let filledChunks, let centreChunks, count == width {
                            // Eight beacons at a time, the padding adding zeros (any order bounds as well).
                            var partial = Wide(repeating: 0)
                            for offset in Swift.stride(from: 0, to: stride, by: 8) {
                                let d = filledChunks.loadUnaligned(fromByteOffset: offset * 8, as: Wide.self)
                                    - centreChunks.loadUnaligned(fromByteOffset: (centre + offset) * 8, as: Wide.self)
                                partial += code == 1
                                    ? unsafeBitCast(unsafeBitCast(d, to: SIMD8<UInt64>.self) & wideMagnitude, to: Wide.self)
                                    : d * d
                            }
                            toCentre = partial.sum()
                        } else {
                            for column in columns {
                                let d = filled[column] - centres[centre + column]
                                toCentre += code == 1 ? abs(d) : d * d
                            }
                        }
                        var limit = buffer[capacity - 1].distance
                        if code == 0 {
                            toCentre = toCentre.squareRoot()
                            limit = limit.squareRoot()
                        }
                        let radii = code == 1 ? manhattanRadii[block] : euclideanRadii[block]
                        let near = Wide(repeating: toCentre) - radii
                        let needed = Wide(repeating: limit) + margin * (Wide(repeating: toCentre + limit) + radii)
                        if all((near .> needed) .| (Wide(sum) .== Wide(repeating: .infinity))) { continue }
                    }
                    // A lane whose partial sum is past the k-th distance cannot enter any more (the
                    // terms are never negative); one equal to it still can, with an earlier row.
                    let worst = Lanes(repeating: full ? Float(buffer[capacity - 1].distance) : .infinity)
                    var next = 0
                    var past = false
                    while next < count {
                        let end = min(next + 4, count)
                        switch code {
                        case 0:
                            for position in next..<end { sum += term(0, columns[position], base) }
                        case 1:
                            for position in next..<end { sum += term(1, columns[position], base) }
                        default:
                            for position in next..<end { sum += term(2, columns[position], base) }
                        }
                        next = end
                        if all(sum .> worst) {
                            past = true
                            break
                        }
                    }
                    // Only a lane below infinity (not full) or at most the k-th distance can enter.
                    guard !past, any(full ? sum .<= worst : sum .< worst) else { continue }
                    for lane in 0..<min(8, rows - start) {
                        let distance = Double(sum[lane]), row = start + lane
                        if found == capacity {
                            let last = buffer[capacity - 1]
                            guard distance < last.distance || (distance == last.distance && row < last.row) else { continue }
                        } else {
                            guard distance < .infinity else { continue }
                            found += 1
                        }
                        // Insert keeping the buffer sorted by distance, then row.
                        var slot = found - 1
                        while slot > 0 && (buffer[slot - 1].distance > distance
                                           || (buffer[slot - 1].distance == distance && buffer[slot - 1].row > row)) {
                            buffer[slot] = buffer[slot - 1]
                            slot -= 1
                        }
                        buffer[slot] = Neighbour(distance: distance, row: row)
                    }
                }
                return found
                }
            }
          }
        }
        }
        }
        if code != 1 {
            for index in 0..<found { buffer[index].distance = buffer[index].distance.squareRoot() }
        }
        return found
    }

    /// ``nearest(to:beacons:floor:metric:fill:into:)`` one row and one beacon at a time: the
    /// definition the blocked search must match.
    func nearestRowByRow(to query: UnsafeBufferPointer<Double>, beacons: ContiguousArray<Int>, floor: Int?,
                 metric: FingerprintSolver.Metric, fill: Double,
                 into buffer: UnsafeMutableBufferPointer<Neighbour>) -> Int {
        let capacity = buffer.count
        guard capacity > 0 else { return 0 }
        var found = 0
        let code: Int, penalty: Double
        switch metric {
        case .euclidean: (code, penalty) = (0, 0)
        case .manhattan: (code, penalty) = (1, 0)
        case .sharedWithPenalty(let value): (code, penalty) = (2, value.isFinite ? value * value : 0)
        }
        // In single precision, as the blocks are measured.
        let fill = Float(fill), narrowPenalty = Float(penalty)
        values.withUnsafeBufferPointer { matrix in
            beacons.withUnsafeBufferPointer { columns in
                for row in 0..<points.count {
                    if let floor, floors[row] != Int.min, floors[row] != floor { continue }
                    let worst = found == capacity ? Float(buffer[capacity - 1].distance) : Float.infinity
                    let base = row * width
                    var sum: Float = 0
                    for column in columns {
                        let a = Float(query[column]), b = Float(matrix[base + column])
                        let aHeard = !a.isNaN, bHeard = !b.isNaN
                        guard aHeard || bHeard else { continue }
                        switch code {
                        case 0:
                            let d = (aHeard ? a : fill) - (bHeard ? b : fill)
                            sum += d * d
                        case 1:
                            sum += abs((aHeard ? a : fill) - (bHeard ? b : fill))
                        default:
                            if aHeard && bHeard {
                                let d = a - b
                                sum += d * d
                            } else {
                                sum += narrowPenalty
                            }
                        }
                        if sum >= worst { break }
                    }
                    guard sum < worst else { continue }
                    // Insert keeping the buffer sorted; equal distances stay in row order.
                    var slot = found < capacity ? found : capacity - 1
                    if found < capacity { found += 1 }
                    while slot > 0 && buffer[slot - 1].distance > Double(sum) {
                        buffer[slot] = buffer[slot - 1]
                        slot -= 1
                    }
                    buffer[slot] = Neighbour(distance: Double(sum), row: row)
                }
            }
        }
        if code != 1 {
            for index in 0..<found { buffer[index].distance = buffer[index].distance.squareRoot() }
        }
        return found
    }

    /// The inverse-distance weighted mean position of the first `count` neighbours (weights
    /// 1/(d + 1)), and the weighted spread of their positions around it.
    static func estimate(_ neighbours: UnsafeMutableBufferPointer<Neighbour>, count: Int,
                         points: ContiguousArray<PlanarPoint>) -> (point: PlanarPoint, spread: Double)? {
        guard count > 0 else { return nil }
        var sumW = 0.0, sumX = 0.0, sumY = 0.0
        for index in 0..<count {
            let weight = 1 / (neighbours[index].distance + 1)
            let point = points[neighbours[index].row]
            sumW += weight
            sumX += weight * point.x
            sumY += weight * point.y
        }
        guard sumW > 0, sumW.isFinite else { return nil }
        let center = PlanarPoint(x: sumX / sumW, y: sumY / sumW)
        var spread = 0.0
        for index in 0..<count {
            let weight = 1 / (neighbours[index].distance + 1)
            let point = points[neighbours[index].row]
            let dx = point.x - center.x, dy = point.y - center.y
            spread += weight * (dx * dx + dy * dy)
        }
        guard center.x.isFinite, center.y.isFinite else { return nil }
        return (center, (spread / sumW).squareRoot())
    }
}

/// Training fingerprints dealt into folds by spatial block (``SpatialFolds``).
struct FingerprintFolds: Sendable {
    let spatial: SpatialFolds

    /// How many folds hold samples.
    var count: Int { spatial.count }

    init(samples: [FingerprintSample], blockSize: Double, folds requested: Int) {
        spatial = SpatialFolds(locations: samples.map { ($0.point, $0.floor) }, blockSize: blockSize, folds: requested)
    }

    /// The fold of a sample; `nil` (never held out) for a block no query fell in.
    func fold(of sample: FingerprintSample) -> Int? {
        spatial.fold(of: sample.point, floor: sample.floor)
    }

    /// Locates held-out `queries` (an even sample of at most `maximumQueries`) from the other
    /// folds' `references` for every `k` at once: the sum of errors per `k`, and per `k` each
    /// query's error over its radius before scaling.
    func validate(queries: [FingerprintSample], references: [FingerprintSample], width: Int,
                  metric: FingerprintSolver.Metric, merge: Bool, fill: Double,
                  ks: [Int], minimumSpread: Double, maximumQueries: Int)
        -> (queries: Int, errorSums: [Double], ratios: [[Double]]) {
        var errorSums = [Double](repeating: 0, count: ks.count)
        var ratios = [[Double]](repeating: [], count: ks.count)
        guard count >= 2, let largest = ks.last, width > 0 else { return (0, errorSums, ratios) }
        let limit = max(1, maximumQueries)
        let stride = max(1, (queries.count + limit - 1) / limit)
        let queryFolds = queries.map { fold(of: $0) }
        let referenceFolds = references.map { fold(of: $0) }
        var located = 0
        let beacons = ContiguousArray(0..<width)
        var buffer = [FingerprintTable.Neighbour](repeating: .init(distance: 0, row: 0), count: largest)
        for current in 0..<count {
            let training = references.indices.filter { referenceFolds[$0] != current }.map { references[$0] }
            let kept = merge ? FingerprintSample.merged(training) : training
            guard !kept.isEmpty else { continue }
            // Floors are left out: held-out scans are located over every fingerprint.
            let table = FingerprintTable(references: kept, width: width,
                                          fill: FingerprintSolver.usesFill(metric) ? fill : nil)
            for index in queries.indices where queryFolds[index] == current && index % stride == 0 {
                let sample = queries[index]
                let found = sample.values.withUnsafeBufferPointer { query in
                    buffer.withUnsafeMutableBufferPointer { neighbours in
                        table.nearest(to: query, beacons: beacons, floor: nil, metric: metric, fill: fill, into: neighbours)
                    }
                }
                guard found > 0 else { continue }
                located += 1
                for (position, k) in ks.enumerated() {
                    let estimate = buffer.withUnsafeMutableBufferPointer {
                        FingerprintTable.estimate($0, count: min(k, found), points: table.points)
                    }
                    guard let estimate else { continue }
                    let error = estimate.point.distance(to: sample.point)
                    errorSums[position] += error
                    ratios[position].append(error / max(estimate.spread, minimumSpread))
                }
            }
        }
        return (located, errorSums, ratios)
    }
}

extension FingerprintTable {
    /// A table of `references` with every floor unknown and every beacon on floor 0.
    init(references: [FingerprintSample], width: Int, fill: Double? = nil) {
        self.width = width
        var values = ContiguousArray<Double>()
        values.reserveCapacity(references.count * width)
        for sample in references { values.append(contentsOf: sample.values) }
        self.values = values
        blockFill = fill
        blocks = Self.blocks(of: values, width: width, fill: fill)
        (centres, manhattanRadii, euclideanRadii) = Self.centres(of: blocks, width: width, rows: references.count,
                                                                 filled: fill != nil)
        seeds = Self.seeds(of: values, width: width)
        points = ContiguousArray(references.map(\.point))
        floors = ContiguousArray(repeating: Int.min, count: references.count)
        blockFloors = Self.blockFloors(of: floors)
        beaconFloors = ContiguousArray(repeating: 0, count: width)
        allBeacons = ContiguousArray(0..<width)
        floorBeacons = [0: allBeacons]
    }
}
