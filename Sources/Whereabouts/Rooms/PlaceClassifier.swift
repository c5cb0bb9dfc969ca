import Foundation

/// A place a classifier can name: its label (a venue `places[].id` or any training label) and
/// the floor it lies on, when known.
public struct PlaceLabel: Hashable, Sendable {
    /// The label, as `truth.place` carries it.
    public var id: String
    /// The floor level of the place, when known.
    public var floor: Int?

    /// Creates a label.
    public init(id: String, floor: Int? = nil) {
        self.id = id
        self.floor = floor
    }
}

/// What a room classifier said about one scan: the most probable place, the probability of
/// every place, and the floor those probabilities imply.
public struct PlaceClassification: Hashable, Sendable {
    /// The most probable place.
    public var place: String
    /// The index of ``place`` in the classifier's ``PlaceClassifier/labels``.
    public var index: Int
    /// The probability of ``place``.
    public var probability: Double
    /// The probability of every place, in the order of the classifier's labels; they sum to 1.
    public var probabilities: [Double]
    /// The most probable floor: the level whose places hold the most probability (a vote of the
    /// whole distribution, not only the winner's floor), or `nil` when no place has a floor.
    public var floor: Int?
    /// The probability of ``floor``.
    public var floorProbability: Double?

    /// Normalises log-scores (one per label; `-infinity` rules a place out) into a
    /// classification, or `nil` when every place is ruled out. A `+infinity` score (a perfect
    /// match under a zero standard deviation) takes all the probability, shared with any other
    /// such place.
    public init?(logScores: [Double], labels: [PlaceLabel]) {
        guard !logScores.isEmpty, logScores.count == labels.count,
              var best = logScores.firstIndex(where: { !$0.isNaN }) else { return nil }
        for index in logScores.indices where logScores[index] > logScores[best] { best = index }
        let top = logScores[best]
        guard top > -.infinity else { return nil }
        // Normalise in place: the scores' storage becomes the probabilities'.
        var probabilities = logScores
        var total = 0.0
        for index in probabilities.indices {
            let score = probabilities[index]
            let weight: Double
            if top == .infinity { weight = score == .infinity ? 1 : 0 } else { weight = score.isNaN ? 0 : exp(score - top) }
            probabilities[index] = weight
            total += weight
        }
        guard total > 0, total.isFinite else { return nil }
        for index in probabilities.indices { probabilities[index] /= total }
        self.init(probabilities: probabilities, labels: labels, best: best)
    }

    /// A classification from probabilities that already sum to 1.
    init(probabilities: [Double], labels: [PlaceLabel], best: Int) {
        place = labels[best].id
        index = best
        probability = probabilities[best]
        self.probabilities = probabilities
        // The floor vote: the probability of each level, summed on the stack.
        let vote = withUnsafeTemporaryAllocation(of: (level: Int, probability: Double).self, capacity: labels.count) { floors in
            var count = 0
            for (label, p) in zip(labels, probabilities) {
                guard let level = label.floor else { continue }
                var slot = 0
                while slot < count && floors[slot].level != level { slot += 1 }
                if slot == count {
                    floors[count] = (level, 0)
                    count += 1
                }
                floors[slot].probability += p
            }
            var top: (level: Int, probability: Double)?
            for slot in 0..<count where top == nil || floors[slot].probability > (top?.probability ?? 0) { top = floors[slot] }
            return top
        }
        floor = vote?.level
        floorProbability = vote?.probability
    }
}

/// A room classifier: a scan in, a probability per place out (or nothing).
///
/// Implementations are values that hold a trained model; they are `Sendable` and keep no state
/// between scans (``PlaceTracker`` adds the memory of a stream). ``classify(_:)`` is provided.
///
/// ```swift
/// let set = PlaceTrainingSet(scans: survey, venue: venue)
/// let classifier = NaiveBayesPlaceClassifier(training: set)
/// if let result = classifier.classify(scan) { print(result.place, result.probability, result.floor ?? 0) }
/// ```
public protocol PlaceClassifier: Sendable {
    /// The places the classifier can name, in the order of its scores.
    var labels: [PlaceLabel] { get }

    /// Writes one log-score per label into `scores` (which has `labels.count` elements; a
    /// place that is ruled out gets `-infinity`) and returns `true`, or returns `false` when the
    /// classifier has no answer for this scan. Scores are log-probabilities up to a constant.
    func logScores(for scan: Scan, into scores: inout [Double]) -> Bool
}

extension PlaceClassifier {
    /// The classification of one scan, or `nil` when the classifier has no answer.
    public func classify(_ scan: Scan) -> PlaceClassification? {
        let labels = labels
        var scores = [Double](repeating: 0, count: labels.count)
        guard logScores(for: scan, into: &scores) else { return nil }
        return PlaceClassification(logScores: consume scores, labels: labels)
    }
}
