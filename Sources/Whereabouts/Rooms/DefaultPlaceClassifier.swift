/// The default room classifier, chosen entirely by grouped cross-validation on its training set,
/// on held-out contiguous blocks of each place (``PlaceTrainingSet/contiguousFolds(_:)``).
///
/// Two models compete: the improved Gaussian naive Bayes (``NaiveBayesPlaceClassifier``), with
/// each of its standard-deviation floors and variance shrinkages, and a random forest
/// (``RandomForestPlaceClassifier``), with each of its depths, beacons per split and tree counts;
/// each with each ``PlaceSmoothing`` of the stream (how much one scan counts, how likely a move
/// is). The model with the higher held-out accuracy of the stream wins (a tie goes to naive
/// Bayes); it is trained again on the whole set with its best settings, and the separate floor
/// vote's smoothing is then chosen on that model by the same folds, for floor accuracy.
///
/// It answers whenever a scan heard a beacon. Use it through a ``PlaceTracker`` (its
/// ``tracker()``), which keeps the belief of each device and track and learns each phone's RSSI
/// offset against the survey's means as it goes (``offsetEstimator``): visitors' phones rarely
/// read like the survey's (the survey's own phones are not learnt).
///
/// ```swift
/// let model = DefaultPlaceClassifier(training: PlaceTrainingSet(scans: survey, venue: venue))
/// var tracker = model.tracker()
/// let result = tracker.classify(scan)
/// ```
public struct DefaultPlaceClassifier: Sendable {
    /// The candidate standard-deviation floors (dB).
    public static let standardDeviationFloors: [Double] = [1, 2, 4]
    /// The candidate pooled-variance weights.
    public static let pooledVarianceWeights: [Double] = [0, 0.3, 0.6]
    /// The candidate temperatures.
    public static let temperatures: [Double] = [0.25, 0.5, 1]
    /// The candidate switching probabilities (1 = no smoothing).
    public static let switchingProbabilities: [Double] = [0.01, 0.03, 0.1, 0.3, 1]
    /// The candidate maximum depths of the forest.
    public static let forestDepths: [Int] = [8, 16]
    /// The candidate tree counts of the forest: one forest of the largest count is grown per
    /// setting and fold, and the smaller counts are scored on its first trees.
    public static let forestTreeCounts: [Int] = [50, 100]
    /// The candidate beacons per split of the forest: ⌈√beacons⌉ and ⌈beacons / 2⌉.
    public static func forestFeaturesPerSplit(beacons: Int) -> [Int] {
        let root = RandomForestPlaceClassifier.defaultFeaturesPerSplit(beacons: beacons)
        let half = max(1, (beacons + 1) / 2)
        return half > root ? [root, half] : [root]
    }

    /// The chosen model, trained on the whole set with its chosen settings.
    public let model: PlaceModel.Classifier
    /// The candidate temperatures of the floor vote.
    public static let floorTemperatures: [Double] = [0.1, 0.25, 0.5, 1]
    /// The candidate switching probabilities of the floor vote.
    public static let floorSwitchingProbabilities: [Double] = [0.001, 0.003, 0.01, 0.03, 0.1, 1]

    /// The chosen smoothing.
    public let smoothing: PlaceSmoothing
    /// The chosen smoothing of the separate floor vote (`nil` with fewer than two floors).
    public let floorSmoothing: PlaceSmoothing?
    /// The grouped cross-validation accuracy of the chosen settings, when there were enough
    /// samples to cross-validate.
    public let validationAccuracy: Double?
    /// The grouped cross-validation accuracy of each candidate model with its best settings
    /// (keys ``PlaceClassifierKind/naiveBayes`` and ``PlaceClassifierKind/forest``), when
    /// cross-validated.
    public let candidateAccuracies: [PlaceClassifierKind: Double]

    /// What each device's RSSI offset is learnt against (the training set's mean RSSI per place
    /// and beacon), or `nil` for no learning.
    public let offsetEstimator: PlaceOffsetEstimator?

    /// The chosen model, as the protocol.
    public var classifier: any PlaceClassifier { model.placeClassifier }

    /// A model from its parts (as a model file holds them).
    public init(model: PlaceModel.Classifier, smoothing: PlaceSmoothing, floorSmoothing: PlaceSmoothing? = nil,
                validationAccuracy: Double? = nil, candidateAccuracies: [PlaceClassifierKind: Double] = [:],
                offsetEstimator: PlaceOffsetEstimator? = nil) {
        self.model = model
        self.smoothing = smoothing
        self.floorSmoothing = floorSmoothing
        self.validationAccuracy = validationAccuracy
        self.candidateAccuracies = candidateAccuracies
        self.offsetEstimator = offsetEstimator
    }

    /// A naive Bayes model from its parts.
    public init(classifier: NaiveBayesPlaceClassifier, smoothing: PlaceSmoothing, floorSmoothing: PlaceSmoothing? = nil,
                validationAccuracy: Double? = nil, offsetEstimator: PlaceOffsetEstimator? = nil) {
        self.init(model: .naiveBayes(classifier), smoothing: smoothing, floorSmoothing: floorSmoothing,
                  validationAccuracy: validationAccuracy, offsetEstimator: offsetEstimator)
    }

    /// Trains on a set, choosing the model and every setting by `folds`-fold grouped
    /// cross-validation (ties go to naive Bayes, then to the earlier candidate: less smoothing of
    /// the variances, the shallower forest with fewer beacons per split and fewer trees, then the
    /// smaller temperature and switching). With fewer than two samples per place and fold, the
    /// model is naive Bayes with ``NaiveBayesPlaceClassifier/Options/improved``, temperature 1
    /// and switching 0.1. Either way each device's offset is learnt against the set's means
    /// (``offsetEstimator``); the cross-validation scores the survey's own phone, without it.
    public init(training set: PlaceTrainingSet, folds: Int = 5) {
        let fold = set.contiguousFolds(folds)
        var perPlace = [Int](repeating: 0, count: set.labels.count)
        for sample in set.samples { perPlace[sample.place] += 1 }
        let statistics = GaussianPlaceStatistics(set)
        let offsetEstimator = PlaceOffsetEstimator(training: set, statistics: statistics)
        guard folds > 1, let fewest = perPlace.min(), fewest >= 2 * folds else {
            self.init(classifier: NaiveBayesPlaceClassifier(labels: set.labels, beacons: set.beacons, statistics: statistics,
                                                            options: .improved),
                      smoothing: PlaceSmoothing(temperature: 1, switching: 0.1), offsetEstimator: offsetEstimator)
            return
        }
        let placeCount = set.labels.count
        /// The log-scores of each sample under the model of the fold that held it out (`nil`: no answer).
        typealias HeldOut = [[Double]?]
        func heldOut(_ models: [any PlaceClassifier]) -> HeldOut {
            var scores = [Double](repeating: 0, count: placeCount)
            return set.samples.enumerated().map { index, sample in
                models[fold[index]].logScores(for: sample.scan, into: &scores) ? scores : nil
            }
        }
        /// The accuracy of the stream under `smoothing`, replaying held-out scores fold by fold.
        func accuracy(_ scores: HeldOut, smoothing: PlaceSmoothing?, floorSmoothing: PlaceSmoothing? = nil,
                      of classifier: any PlaceClassifier, floors: Bool = false) -> Double {
            var right = 0, total = 0
            for f in 0..<folds {
                var tracker = PlaceTracker(classifier: classifier, smoothing: smoothing, floorSmoothing: floorSmoothing)
                for (index, sample) in set.samples.enumerated() where fold[index] == f {
                    if floors {
                        guard let floor = set.labels[sample.place].floor else { continue }
                        total += 1
                        if tracker.classify(sample.scan, logScores: scores[index])?.floor == floor { right += 1 }
                    } else {
                        total += 1
                        if tracker.classify(sample.scan, logScores: scores[index])?.index == sample.place { right += 1 }
                    }
                }
            }
            return total > 0 ? Double(right) / Double(total) : 0
        }
        /// The best smoothing of held-out scores, and its accuracy (ties to the earlier).
        func bestSmoothing(_ scores: HeldOut, of classifier: any PlaceClassifier) -> (smoothing: PlaceSmoothing, accuracy: Double) {
            var best: (smoothing: PlaceSmoothing, accuracy: Double)?
            for temperature in Self.temperatures {
                for switching in Self.switchingProbabilities {
                    let smoothing = PlaceSmoothing(temperature: temperature, switching: switching)
                    let accuracy = accuracy(scores, smoothing: smoothing, of: classifier)
                    if best == nil || accuracy > (best?.accuracy ?? 0) { best = (smoothing, accuracy) }
                }
            }
            return best ?? (PlaceSmoothing(temperature: 1, switching: 0.1), 0)
        }

        let stage = "cross-validating the room classifier's settings"
        let depths = Self.forestDepths, featureCounts = Self.forestFeaturesPerSplit(beacons: set.beacons.count)
        let treeCounts = Self.forestTreeCounts.sorted()
        let steps = Self.standardDeviationFloors.count * Self.pooledVarianceWeights.count + depths.count * featureCounts.count * folds
        var step = 0
        WorkProgress.report(stage, completed: 0, total: steps)
        func advance() {
            step += 1
            WorkProgress.report(stage, completed: step, total: steps)
        }

        // Naive Bayes.
        var bayes: (options: NaiveBayesPlaceClassifier.Options, smoothing: PlaceSmoothing, accuracy: Double, scores: HeldOut)?
        let foldSets = (0..<folds).map { f in set.subset { fold[$0] != f } }
        for floor in Self.standardDeviationFloors {
            for weight in Self.pooledVarianceWeights {
                defer { advance() }
                let options = NaiveBayesPlaceClassifier.Options(standardDeviationFloor: floor, pooledVarianceWeight: weight)
                let models = foldSets.map { NaiveBayesPlaceClassifier(training: $0, options: options) }
                let scores = heldOut(models)
                let best = bestSmoothing(scores, of: models[0])
                if bayes == nil || best.accuracy > (bayes?.accuracy ?? 0) { bayes = (options, best.smoothing, best.accuracy, scores) }
            }
        }

        // The forest: one forest of the most trees per setting and fold; fewer trees are its first ones.
        var forest: (options: RandomForestPlaceClassifier.Options, smoothing: PlaceSmoothing, accuracy: Double, scores: HeldOut)?
        if let most = treeCounts.last, most > 0, set.beacons.count > 0 {
            let trainers = foldSets.map { RandomForestTrainer($0) }
            for depth in depths {
                for features in featureCounts {
                    let options = RandomForestPlaceClassifier.Options(trees: most, maximumDepth: depth, featuresPerSplit: features)
                    var scores = [HeldOut](repeating: HeldOut(repeating: nil, count: set.samples.count), count: treeCounts.count)
                    var classifier: RandomForestPlaceClassifier?
                    for f in 0..<folds {
                        defer { advance() }
                        let model = RandomForestPlaceClassifier(training: foldSets[f], trainer: trainers[f], options: options)
                        classifier = model
                        for (index, sample) in set.samples.enumerated() where fold[index] == f {
                            var votes = [Double](repeating: 0, count: placeCount)
                            var done = 0
                            for (c, count) in treeCounts.enumerated() {
                                let upTo = min(count, model.trees.count)
                                guard model.addVotes(for: sample.scan, trees: done..<upTo, into: &votes) else { break }
                                done = upTo
                                var logScores = votes
                                model.logProbabilities(fromVotes: &logScores, treeCount: upTo)
                                scores[c][index] = logScores
                            }
                        }
                    }
                    guard let classifier else { continue }
                    for (c, count) in treeCounts.enumerated() {
                        let best = bestSmoothing(scores[c], of: classifier)
                        if forest == nil || best.accuracy > (forest?.accuracy ?? 0) {
                            var chosen = options
                            chosen.trees = count
                            forest = (chosen, best.smoothing, best.accuracy, scores[c])
                        }
                    }
                }
            }
        }

        let model: PlaceModel.Classifier
        let chosen: (smoothing: PlaceSmoothing, accuracy: Double, scores: HeldOut)
        var candidates: [PlaceClassifierKind: Double] = [:]
        if let bayes { candidates[.naiveBayes] = bayes.accuracy }
        if let forest { candidates[.forest] = forest.accuracy }
        if let forest, forest.accuracy > (bayes?.accuracy ?? -1) {
            model = .forest(RandomForestPlaceClassifier(training: set, options: forest.options))
            chosen = (forest.smoothing, forest.accuracy, forest.scores)
        } else {
            model = .naiveBayes(NaiveBayesPlaceClassifier(training: set, options: bayes?.options ?? .improved))
            chosen = (bayes?.smoothing ?? PlaceSmoothing(temperature: 1, switching: 0.1), bayes?.accuracy ?? 0, bayes?.scores ?? [])
        }
        // The floor vote, chosen by the same folds for floor accuracy, on the chosen model.
        let levels = Set(set.labels.compactMap(\.floor))
        var bestFloor: (smoothing: PlaceSmoothing, accuracy: Double)?
        if levels.count > 1, chosen.scores.count == set.samples.count {
            let classifier = model.placeClassifier
            for temperature in Self.floorTemperatures {
                for switching in Self.floorSwitchingProbabilities {
                    let floorSmoothing = PlaceSmoothing(temperature: temperature, switching: switching)
                    let accuracy = accuracy(chosen.scores, smoothing: nil, floorSmoothing: floorSmoothing, of: classifier, floors: true)
                    if bestFloor == nil || accuracy > (bestFloor?.accuracy ?? 0) { bestFloor = (floorSmoothing, accuracy) }
                }
            }
        }
        self.init(model: model, smoothing: chosen.smoothing, floorSmoothing: bestFloor?.smoothing,
                  validationAccuracy: chosen.accuracy, candidateAccuracies: candidates, offsetEstimator: offsetEstimator)
    }

    /// A tracker of streams with this model, its smoothing and its offset learning.
    public func tracker() -> PlaceTracker {
        PlaceTracker(classifier: classifier, smoothing: smoothing, floorSmoothing: floorSmoothing, offsetEstimator: offsetEstimator)
    }
}
