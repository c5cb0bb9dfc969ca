import Foundation

/// How a stream of scans is smoothed: a forward filter (a hidden Markov model whose state is
/// the place). Before each scan the device stays where it was with probability `1 − switching`
/// and moves to any place (uniformly) with probability `switching`; the scan's log-scores,
/// multiplied by `temperature` (below 1 when consecutive scans are not independent evidence),
/// then update the belief.
///
/// belief′(p) ∝ exp(temperature · score(p)) · ((1 − switching) · belief(p) + switching / places)
public struct PlaceSmoothing: Hashable, Sendable {
    /// The weight of one scan's log-scores (0 < temperature).
    public var temperature: Double
    /// The probability of moving to a new place between two scans (0 < switching ≤ 1; 1 = no memory).
    public var switching: Double

    /// Creates a smoothing.
    public init(temperature: Double, switching: Double) {
        self.temperature = temperature
        self.switching = min(1, max(1e-9, switching))
    }
}

/// A place classifier applied to a stream: one belief per device, started afresh on each new
/// track (`DeviceSlots`), updated scan by scan with ``PlaceSmoothing`` (or the classifier's
/// answer as is, without smoothing).
///
/// With a `floorSmoothing`, the floor is voted separately: a second forward filter over floors,
/// fed with each floor's share of the scan's (unsmoothed) evidence, log Σ over the floor's
/// places of exp(score). Floors change far less often than rooms, so this filter can remember
/// longer; its answer replaces the place distribution's floor.
///
/// ```swift
/// var tracker = PlaceTracker(classifier: model.classifier, smoothing: model.smoothing)
/// for scan in scans { if let result = tracker.classify(scan) { print(scan.time, result.place) } }
/// ```
public struct PlaceTracker: Sendable {
    /// The classifier.
    public let classifier: any PlaceClassifier
    /// The smoothing, or `nil` for scan-by-scan answers.
    public let smoothing: PlaceSmoothing?
    /// The smoothing of the separate floor vote, or `nil` to take the floor from the places.
    public let floorSmoothing: PlaceSmoothing?
    /// Each device's RSSI offset (dB, by ``Scan/device``), subtracted from its readings before
    /// they are classified, as the training set subtracted them (``Venue/deviceOffsets``); empty
    /// by default.
    public var deviceOffsets: [String: Double] = [:]
    /// When set, each device's offset is learnt from its own classified scans (one estimate per
    /// device, kept across its tracks) and subtracted from its readings on top of
    /// ``deviceOffsets`` (``PlaceOffsetEstimator``), except the survey's own devices; `nil` by
    /// default.
    public var offsetEstimator: PlaceOffsetEstimator?

    /// One device's beliefs over the places and over the floors, on its current track.
    private struct Belief: Sendable {
        var places: [Double]?
        var floors: [Double]?
        /// The device's learnt offset (with ``offsetEstimator``), carried over to its next track.
        var offset: PlaceOffsetEstimator.Estimate?
    }
    private var beliefs = DeviceSlots<Belief>()
    private var scores: [Double]
    private let levels: [Int], floorOfPlace: [Int?], floorLabels: [PlaceLabel]

    /// Creates a tracker; with `offsetEstimator`, each device's offset is learnt as it goes.
    public init(classifier: any PlaceClassifier, smoothing: PlaceSmoothing? = nil, floorSmoothing: PlaceSmoothing? = nil,
                offsetEstimator: PlaceOffsetEstimator? = nil) {
        self.classifier = classifier
        self.smoothing = smoothing
        self.offsetEstimator = offsetEstimator
        scores = [Double](repeating: 0, count: classifier.labels.count)
        var levels: [Int] = []
        for label in classifier.labels { if let floor = label.floor, !levels.contains(floor) { levels.append(floor) } }
        self.levels = levels
        floorOfPlace = classifier.labels.map { label in label.floor.flatMap { levels.firstIndex(of: $0) } }
        floorLabels = levels.map { PlaceLabel(id: String($0), floor: $0) }
        self.floorSmoothing = levels.count > 1 ? floorSmoothing : nil
    }

    /// Forgets every device's belief.
    public mutating func reset() {
        beliefs = DeviceSlots()
    }

    /// One forward-filter step: `belief` ← normalised exp(temperature · evidence) × prior.
    private static func step(_ evidence: inout [Double], previous: [Double]?, smoothing: PlaceSmoothing) {
        let uniform = 1 / Double(evidence.count)
        for index in evidence.indices {
            let prior = previous.map { (1 - smoothing.switching) * $0[index] + smoothing.switching * uniform } ?? uniform
            evidence[index] = evidence[index] == -.infinity ? -.infinity : log(prior) + smoothing.temperature * evidence[index]
        }
    }

    private mutating func voteFloor(_ slot: Int, into result: inout PlaceClassification) {
        guard let floorSmoothing else { return }
        var top = -Double.infinity
        for score in scores where score > top { top = score }
        guard top.isFinite else { return }
        var evidence = [Double](repeating: 0, count: levels.count)   // first the sums, then their logs
        for (place, score) in scores.enumerated() {
            guard let floor = floorOfPlace[place], score > -.infinity else { continue }
            evidence[floor] += exp(score - top)
        }
        for index in evidence.indices { evidence[index] = evidence[index] > 0 ? top + log(evidence[index]) : -.infinity }
        Self.step(&evidence, previous: beliefs[slot].floors, smoothing: floorSmoothing)
        guard let floors = PlaceClassification(logScores: consume evidence, labels: floorLabels) else { return }
        beliefs.update(slot) { $0.floors = floors.probabilities }
        result.floor = levels[floors.index]
        result.floorProbability = floors.probability
    }

    /// Classifies the next scan of its device and track, or returns `nil` when the classifier
    /// has no answer for it (the belief is then left as it was).
    public mutating func classify(_ scan: Scan) -> PlaceClassification? {
        let known = scan.device.flatMap { deviceOffsets[$0] } ?? 0
        guard let estimator = offsetEstimator, estimator.learns(device: scan.device) else {
            guard classifier.logScores(for: known != 0 ? scan.correctedForDeviceOffset(known) : scan, into: &scores) else { return nil }
            return classifyScored(scan)
        }
        let slot = slot(of: scan)
        let learnt = beliefs[slot].offset ?? estimator.prior
        let offset = known + learnt.offset
        guard classifier.logScores(for: offset != 0 ? scan.correctedForDeviceOffset(offset) : scan, into: &scores),
              let result = classifyScored(scan, slot: slot) else { return nil }
        if let implied = estimator.scanOffset(of: scan, probabilities: result.probabilities, correction: known) {
            let next = estimator.updated(learnt, scanOffset: implied.offset, beacons: implied.beacons)
            beliefs.update(slot) { $0.offset = next }
        }
        return result
    }

    /// The offset the tracker has learnt for a device (with ``offsetEstimator``), dB; `nil`
    /// before any of its scans taught one.
    public func learntOffset(device: String?) -> PlaceOffsetEstimator.Estimate? {
        beliefs.existingSlot(device: device).flatMap { beliefs[$0].offset }
    }

    /// Every device that has learnt an offset (``offsetEstimator``), in the order they were first
    /// seen, with its estimate.
    public var learntOffsets: [(device: String?, estimate: PlaceOffsetEstimator.Estimate)] {
        beliefs.indices.compactMap { slot in beliefs[slot].offset.map { (beliefs.device(of: slot), $0) } }
    }

    /// The slot of a scan's device and track; a new track keeps the device's learnt offset.
    private mutating func slot(of scan: Scan) -> Int {
        var carried: PlaceOffsetEstimator.Estimate?
        let slot = beliefs.slot(device: scan.device, track: scan.track, start: { Belief() }, retiring: { carried = $0.offset })
        if let carried { beliefs.update(slot) { $0.offset = carried } }
        return slot
    }

    /// Classifies the next scan of its device and track from log-scores computed before (`nil`:
    /// the classifier had no answer), as ``classify(_:)`` would: cross-validation scores each
    /// held-out scan once and replays the scores under every smoothing.
    mutating func classify(_ scan: Scan, logScores given: [Double]?) -> PlaceClassification? {
        guard let given, given.count == scores.count else { return nil }
        for index in scores.indices { scores[index] = given[index] }
        return classifyScored(scan)
    }

    /// The rest of ``classify(_:)``, on the scores in `scores`.
    private mutating func classifyScored(_ scan: Scan, slot given: Int? = nil) -> PlaceClassification? {
        let labels = classifier.labels
        let slot = given ?? slot(of: scan)
        guard let smoothing else {
            guard var result = PlaceClassification(logScores: scores, labels: labels) else { return nil }
            voteFloor(slot, into: &result)
            return result
        }
        var evidence = scores
        Self.step(&evidence, previous: beliefs[slot].places, smoothing: smoothing)
        guard var result = PlaceClassification(logScores: consume evidence, labels: labels) else { return nil }
        beliefs.update(slot) { $0.places = result.probabilities }
        voteFloor(slot, into: &result)
        return result
    }
}
