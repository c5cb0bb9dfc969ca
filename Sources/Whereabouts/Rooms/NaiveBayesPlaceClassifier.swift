import Foundation

/// Per place and beacon RSSI statistics of a training set: how many of the place's scans heard
/// the beacon, and the mean and population variance of those readings.
public struct GaussianPlaceStatistics: Hashable, Sendable {
    /// One place × beacon cell.
    public struct Cell: Hashable, Sendable {
        /// Scans of the place that heard the beacon.
        public var heard: Int
        /// Mean RSSI of those readings (dBm); 0 when none.
        public var mean: Double
        /// Population variance of those readings (dB²); 0 when fewer than two.
        public var variance: Double

        /// Creates a cell.
        public init(heard: Int, mean: Double, variance: Double) {
            self.heard = heard
            self.mean = mean
            self.variance = variance
        }
    }

    /// Scans per place.
    public var scans: [Int]
    /// Cells, `cells[place][beacon]`.
    public var cells: [[Cell]]

    /// Creates statistics from their parts.
    public init(scans: [Int], cells: [[Cell]]) {
        self.scans = scans
        self.cells = cells
    }

    /// Counts a training set.
    public init(_ set: PlaceTrainingSet) {
        let places = set.labels.count, beacons = set.beacons.count
        var scans = [Int](repeating: 0, count: places)
        var sums = [[Double]](repeating: [Double](repeating: 0, count: beacons), count: places)
        var squares = sums
        var heard = [[Int]](repeating: [Int](repeating: 0, count: beacons), count: places)
        for sample in set.samples {
            scans[sample.place] += 1
            for (beacon, rssi) in sample.rssi.enumerated() {
                guard let rssi else { continue }
                heard[sample.place][beacon] += 1
                sums[sample.place][beacon] += rssi
                squares[sample.place][beacon] += rssi * rssi
            }
        }
        self.scans = scans
        cells = (0..<places).map { p in
            (0..<beacons).map { b in
                let n = heard[p][b]
                guard n > 0 else { return Cell(heard: 0, mean: 0, variance: 0) }
                let mean = sums[p][b] / Double(n)
                return Cell(heard: n, mean: mean, variance: max(0, squares[p][b] / Double(n) - mean * mean))
            }
        }
    }
}

/// Gaussian naive Bayes over RSSI, per place and beacon — the Bluenet basic classifier, with
/// its defects fixed by default.
///
/// Bluenet's rules (``Options/bluenet``): a place's score is the product of the normal
/// densities of the scan's readings under that place's mean and population standard deviation
/// of each beacon; a beacon the place never heard in training is skipped; a place with fewer
/// than 3 such matching beacons is out; no training data or no place left → no answer. No
/// priors and no smoothing: a zero standard deviation gives an infinite density on an exact
/// match and zero otherwise.
///
/// The fixes (``Options/improved``, the default): each variance is shrunk toward the pooled
/// variance of all cells and floored; places carry their share of the training scans as a
/// prior; and every place × beacon has a probability of being heard (Laplace-smoothed), so a
/// beacon missing from a scan is evidence too, a beacon heard where training never heard it is
/// scored at the weakest training RSSI, and the classifier answers whenever a beacon was heard.
///
/// ```swift
/// let classifier = NaiveBayesPlaceClassifier(training: PlaceTrainingSet(scans: survey, venue: venue))
/// let original = NaiveBayesPlaceClassifier(training: set, options: .bluenet)
/// ```
public struct NaiveBayesPlaceClassifier: PlaceClassifier {
    /// How the model scores.
    public struct Options: Hashable, Sendable {
        /// The smallest standard deviation (dB) a cell may have; 0 for none.
        public var standardDeviationFloor: Double
        /// How far (0…1) each cell's variance is pulled toward the pooled variance.
        public var pooledVarianceWeight: Double
        /// Whether places are weighted by their share of the training scans.
        public var usesPriors: Bool
        /// Whether beacons missing from a scan (and beacons a place never heard) count as evidence.
        public var modelsMissingBeacons: Bool
        /// Places need at least this many distinct heard beacons that they know (a beacon heard
        /// several times in a scan counts once); 0 for no such rule.
        public var minimumMatchingBeacons: Int

        /// Creates options.
        public init(standardDeviationFloor: Double = 2, pooledVarianceWeight: Double = 0.3, usesPriors: Bool = true,
                    modelsMissingBeacons: Bool = true, minimumMatchingBeacons: Int = 0) {
            self.standardDeviationFloor = standardDeviationFloor
            self.pooledVarianceWeight = pooledVarianceWeight
            self.usesPriors = usesPriors
            self.modelsMissingBeacons = modelsMissingBeacons
            self.minimumMatchingBeacons = minimumMatchingBeacons
        }

        /// The Bluenet basic classifier's behaviour, defects included.
        public static let bluenet = Options(standardDeviationFloor: 0, pooledVarianceWeight: 0, usesPriors: false,
                                            modelsMissingBeacons: false, minimumMatchingBeacons: 3)
        /// The fixed model: floored and shrunk variances, priors, missing beacons modelled.
        public static let improved = Options()
    }

    /// The places, in the order of the scores.
    public let labels: [PlaceLabel]
    /// The beacons the model knows.
    public let beacons: PlaceBeacons
    /// The training statistics.
    public let statistics: GaussianPlaceStatistics
    /// The scoring options.
    public let options: Options

    private let placeCount: Int, beaconCount: Int
    // Per place × beacon (row-major by beacon, then place, so a reading touches one run):
    private let means: [Double], inverseVariances: [Double], heardTerms: [Double], knownAt: [Bool]
    private let baseline: [Double]   // per place: log prior + the log-probability that every beacon is missed

    /// Trains on a set.
    public init(training set: PlaceTrainingSet, options: Options = .improved) {
        self.init(labels: set.labels, beacons: set.beacons, statistics: GaussianPlaceStatistics(set), options: options)
    }

    /// A model from its parts (as a model file holds them).
    public init(labels: [PlaceLabel], beacons: PlaceBeacons, statistics: GaussianPlaceStatistics, options: Options) {
        self.labels = labels
        self.beacons = beacons
        self.statistics = statistics
        self.options = options
        let places = labels.count, count = beacons.count
        placeCount = places
        beaconCount = count
        var pooledSum = 0.0, pooledWeight = 0.0, weakest = Double.infinity
        for row in statistics.cells {
            for cell in row where cell.heard > 0 {
                weakest = min(weakest, cell.mean - 2 * cell.variance.squareRoot())
                if cell.heard > 1 { pooledSum += cell.variance * Double(cell.heard); pooledWeight += Double(cell.heard) }
            }
        }
        let pooled = pooledWeight > 0 ? pooledSum / pooledWeight : 16
        if !weakest.isFinite { weakest = -100 }
        let floorVariance = options.standardDeviationFloor * options.standardDeviationFloor
        let totalScans = statistics.scans.reduce(0, +)
        var means = [Double](repeating: 0, count: places * count), inverse = means, heardTerms = means
        var known = [Bool](repeating: false, count: places * count)
        var baseline = [Double](repeating: 0, count: places)
        for p in 0..<places {
            let scans = p < statistics.scans.count ? statistics.scans[p] : 0
            guard scans > 0 else { baseline[p] = -.infinity; continue }
            if options.usesPriors { baseline[p] = log(Double(scans) / Double(max(1, totalScans))) }
            for b in 0..<count {
                let cell = p < statistics.cells.count && b < statistics.cells[p].count ? statistics.cells[p][b] : Cell(heard: 0, mean: 0, variance: 0)
                let slot = b * places + p
                known[slot] = cell.heard > 0
                var variance = cell.heard > 1 ? cell.variance : pooled
                var mean = cell.mean
                if cell.heard == 0 { mean = weakest; variance = pooled }
                variance = (1 - options.pooledVarianceWeight) * variance + options.pooledVarianceWeight * pooled
                variance = max(variance, floorVariance)
                means[slot] = mean
                inverse[slot] = variance > 0 ? 1 / variance : .infinity
                var term = variance > 0 ? -0.5 * log(2 * Double.pi * variance) : 0
                if options.modelsMissingBeacons {
                    let pHeard = (Double(cell.heard) + 1) / (Double(scans) + 2)
                    term += log(pHeard) - log(1 - pHeard)
                    baseline[p] += log(1 - pHeard)
                }
                heardTerms[slot] = term
            }
        }
        self.means = means
        inverseVariances = inverse
        self.heardTerms = heardTerms
        knownAt = known
        self.baseline = baseline
    }

    private typealias Cell = GaussianPlaceStatistics.Cell

    /// Log prior plus the log-likelihood of each heard beacon (and, with missing beacons modelled,
    /// of each beacon not heard); `false` when nothing valid was heard or no place has enough matches.
    public func logScores(for scan: Scan, into scores: inout [Double]) -> Bool {
        guard placeCount > 0, scores.count == placeCount else { return false }
        let improved = options.modelsMissingBeacons
        var anyReading = false
        for p in 0..<placeCount { scores[p] = baseline[p] }
        let minimum = options.minimumMatchingBeacons
        var matches = minimum > 0 ? [Int](repeating: 0, count: placeCount) : []
        var heard: [(beacon: Int, rssi: Double)] = []
        heard.reserveCapacity(scan.readings.count)
        for reading in scan.readings where reading.isValid {
            anyReading = true
            guard let b = beacons.index(for: reading.beacon) else { continue }
            heard.append((b, reading.rssi))
        }
        // A beacon heard several times in one scan is one beacon, at its mean RSSI: it counts once
        // towards the matches and its density is not multiplied.
        if Self.hasRepeats(heard) { heard = Self.mergingRepeats(heard) }
        for (b, rssi) in heard {
            let base = b * placeCount
            for p in 0..<placeCount {
                let slot = base + p
                if !improved && !knownAt[slot] { continue }
                if minimum > 0 && knownAt[slot] { matches[p] += 1 }
                let d = rssi - means[slot]
                let inverse = inverseVariances[slot]
                if inverse.isInfinite {
                    scores[p] += d == 0 ? .infinity : -.infinity
                } else {
                    scores[p] += heardTerms[slot] - 0.5 * d * d * inverse
                }
            }
        }
        guard anyReading else { return false }
        if minimum > 0 {
            var any = false
            for p in 0..<placeCount { if matches[p] < minimum { scores[p] = -.infinity } else { any = true } }
            return any
        }
        return true
    }

    /// Whether a beacon is heard twice: compared pairwise for a scan's usual few readings (no
    /// allocation on the classifier's path), through a set beyond.
    private static func hasRepeats(_ heard: [(beacon: Int, rssi: Double)]) -> Bool {
        guard heard.count > 1 else { return false }
        guard heard.count <= 32 else { return Set(heard.lazy.map(\.beacon)).count < heard.count }
        for i in 1..<heard.count where heard[..<i].contains(where: { $0.beacon == heard[i].beacon }) { return true }
        return false
    }

    /// Each beacon once, in the order first heard, at the mean RSSI of its readings.
    private static func mergingRepeats(_ heard: [(beacon: Int, rssi: Double)]) -> [(beacon: Int, rssi: Double)] {
        var position: [Int: Int] = [:]
        var merged: [(beacon: Int, rssi: Double)] = []
        var counts: [Int] = []
        for (beacon, rssi) in heard {
            if let index = position[beacon] {
                counts[index] += 1
                merged[index].rssi += (rssi - merged[index].rssi) / Double(counts[index])
            } else {
                position[beacon] = merged.count
                merged.append((beacon, rssi))
                counts.append(1)
            }
        }
        return merged
    }
}
