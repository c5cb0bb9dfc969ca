import Foundation

/// k-nearest-neighbour room classification on RSSI vectors: a scan takes the majority place of
/// the `k` training scans closest to it (Euclidean distance in dB over every beacon the model
/// knows, a beacon not heard counting as ``missingRSSI``); its probabilities are the vote shares.
///
/// ``init(training:candidates:folds:)`` picks `k` by grouped cross-validation on the training
/// set (contiguous blocks per place, see ``PlaceTrainingSet/contiguousFolds(_:)``).
///
/// ```swift
/// let knn = NearestNeighbourPlaceClassifier(training: set)   // k chosen by 5-fold grouped CV
/// print(knn.k, knn.classify(scan)?.place ?? "-")
/// ```
public struct NearestNeighbourPlaceClassifier: PlaceClassifier {
    /// The places, in the order of the scores.
    public let labels: [PlaceLabel]
    /// The beacons the model knows.
    public let beacons: PlaceBeacons
    /// Neighbours counted.
    public let k: Int
    /// The RSSI that stands for "not heard": 5 dB below the weakest training reading.
    public let missingRSSI: Double
    /// The training vectors (every beacon filled in) and their places.
    public let vectors: [[Double]], places: [Int]
    /// The grouped cross-validation accuracy of the chosen `k`, when it was chosen that way.
    public let validationAccuracy: Double?

    /// A classifier from its parts (as a model file holds them).
    public init(labels: [PlaceLabel], beacons: PlaceBeacons, k: Int, missingRSSI: Double, vectors: [[Double]], places: [Int],
                validationAccuracy: Double? = nil) {
        self.labels = labels
        self.beacons = beacons
        self.k = max(1, k)
        self.missingRSSI = missingRSSI
        self.vectors = vectors
        self.places = places
        self.validationAccuracy = validationAccuracy
    }

    /// Trains with a given `k`.
    public init(training set: PlaceTrainingSet, k: Int) {
        let missing = Self.missingRSSI(set)
        self.init(labels: set.labels, beacons: set.beacons, k: k, missingRSSI: missing,
                  vectors: set.samples.map { $0.rssi.map { $0 ?? missing } }, places: set.samples.map(\.place))
    }

    /// Trains, choosing `k` among `candidates` by grouped cross-validation (`folds` contiguous
    /// blocks per place); ties go to the smaller `k`.
    public init(training set: PlaceTrainingSet, candidates: [Int] = [1, 3, 5, 7, 9, 11, 15, 21, 31], folds: Int = 5) {
        let fold = set.contiguousFolds(folds)
        var best: (k: Int, accuracy: Double)?
        for k in candidates.sorted() where k >= 1 {
            var right = 0, total = 0
            for f in 0..<folds {
                let model = NearestNeighbourPlaceClassifier(training: set.subset { fold[$0] != f }, k: k)
                for (index, sample) in set.samples.enumerated() where fold[index] == f {
                    total += 1
                    if model.classify(sample.scan)?.index == sample.place { right += 1 }
                }
            }
            let accuracy = total > 0 ? Double(right) / Double(total) : 0
            if best == nil || accuracy > (best?.accuracy ?? 0) { best = (k, accuracy) }
        }
        let chosen = NearestNeighbourPlaceClassifier(training: set, k: best?.k ?? 5)
        self.init(labels: chosen.labels, beacons: chosen.beacons, k: chosen.k, missingRSSI: chosen.missingRSSI,
                  vectors: chosen.vectors, places: chosen.places, validationAccuracy: best?.accuracy)
    }

    static func missingRSSI(_ set: PlaceTrainingSet) -> Double {
        var weakest = Double.infinity
        for sample in set.samples { for case let rssi? in sample.rssi { weakest = min(weakest, rssi) } }
        return weakest.isFinite ? weakest - 5 : -100
    }

    /// The log of each place's share of the `k` nearest votes (`-infinity` without a vote);
    /// `false` when nothing valid was heard or there is no training data.
    public func logScores(for scan: Scan, into scores: inout [Double]) -> Bool {
        guard !vectors.isEmpty, scores.count == labels.count else { return false }
        var query = [Double](repeating: missingRSSI, count: beacons.count)
        var heard = false
        for reading in scan.readings where reading.isValid {
            heard = true
            if let b = beacons.index(for: reading.beacon) { query[b] = reading.rssi }
        }
        guard heard else { return false }
        let count = min(k, vectors.count)
        var nearest: [(distance: Double, place: Int)] = []
        nearest.reserveCapacity(count + 1)
        for (vector, place) in zip(vectors, places) {
            var distance = 0.0
            for b in 0..<query.count { let d = query[b] - vector[b]; distance += d * d }
            if nearest.count == count, let last = nearest.last, distance >= last.distance { continue }
            let slot = nearest.firstIndex { $0.distance > distance } ?? nearest.count
            nearest.insert((distance, place), at: slot)
            if nearest.count > count { nearest.removeLast() }
        }
        for p in scores.indices { scores[p] = 0 }
        for neighbour in nearest { scores[neighbour.place] += 1 }
        // Vote shares as probabilities; a place with no vote is out.
        for p in scores.indices { scores[p] = scores[p] > 0 ? log(scores[p]) : -.infinity }
        return true
    }
}
