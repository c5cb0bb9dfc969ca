/// The default room classifier, chosen entirely by grouped cross-validation on its training set:
/// the improved Gaussian naive Bayes (``NaiveBayesPlaceClassifier``) whose standard-deviation
/// floor and variance shrinkage, and the ``PlaceSmoothing`` of its stream (how much one scan
/// counts, how likely a move is), maximise the accuracy on held-out contiguous blocks of each
/// place (``PlaceTrainingSet/contiguousFolds(_:)``).
///
/// It answers whenever a scan heard a beacon. Use it through a ``PlaceTracker`` (its
/// ``tracker()``), which keeps the belief of each device and track.
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

    /// The naive Bayes model, trained on the whole set with the chosen options.
    public let classifier: NaiveBayesPlaceClassifier
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

    /// A model from its parts (as a model file holds them).
    public init(classifier: NaiveBayesPlaceClassifier, smoothing: PlaceSmoothing, floorSmoothing: PlaceSmoothing? = nil,
                validationAccuracy: Double? = nil) {
        self.classifier = classifier
        self.smoothing = smoothing
        self.floorSmoothing = floorSmoothing
        self.validationAccuracy = validationAccuracy
    }

    /// Trains on a set, choosing every setting by `folds`-fold grouped cross-validation (ties go
    /// to the earlier candidate: less smoothing of the variances, then the smaller temperature
    /// and switching). With fewer than two samples per place and fold, the settings are the
    /// defaults of ``NaiveBayesPlaceClassifier/Options/improved`` with temperature 1 and switching 0.1.
    public init(training set: PlaceTrainingSet, folds: Int = 5) {
        let fold = set.contiguousFolds(folds)
        var perPlace = [Int](repeating: 0, count: set.labels.count)
        for sample in set.samples { perPlace[sample.place] += 1 }
        guard folds > 1, let fewest = perPlace.min(), fewest >= 2 * folds else {
            self.init(classifier: NaiveBayesPlaceClassifier(training: set, options: .improved),
                      smoothing: PlaceSmoothing(temperature: 1, switching: 0.1))
            return
        }
        var best: (options: NaiveBayesPlaceClassifier.Options, smoothing: PlaceSmoothing, accuracy: Double)?
        let stage = "cross-validating the room classifier's settings"
        let steps = Self.standardDeviationFloors.count * Self.pooledVarianceWeights.count
        var step = 0
        WorkProgress.report(stage, completed: 0, total: steps)
        for floor in Self.standardDeviationFloors {
            for weight in Self.pooledVarianceWeights {
                defer {
                    step += 1
                    WorkProgress.report(stage, completed: step, total: steps)
                }
                let options = NaiveBayesPlaceClassifier.Options(standardDeviationFloor: floor, pooledVarianceWeight: weight)
                let models = (0..<folds).map { f in NaiveBayesPlaceClassifier(training: set.subset { fold[$0] != f }, options: options) }
                for temperature in Self.temperatures {
                    for switching in Self.switchingProbabilities {
                        let smoothing = PlaceSmoothing(temperature: temperature, switching: switching)
                        var right = 0, total = 0
                        for f in 0..<folds {
                            var tracker = PlaceTracker(classifier: models[f], smoothing: smoothing)
                            for (index, sample) in set.samples.enumerated() where fold[index] == f {
                                total += 1
                                if tracker.classify(sample.scan)?.index == sample.place { right += 1 }
                            }
                        }
                        let accuracy = total > 0 ? Double(right) / Double(total) : 0
                        if best == nil || accuracy > (best?.accuracy ?? 0) { best = (options, smoothing, accuracy) }
                    }
                }
            }
        }
        let chosen = best ?? (.improved, PlaceSmoothing(temperature: 1, switching: 0.1), 0)
        // The floor vote, chosen by the same folds for floor accuracy, on the chosen place model.
        let levels = Set(set.labels.compactMap(\.floor))
        var bestFloor: (smoothing: PlaceSmoothing, accuracy: Double)?
        if levels.count > 1 {
            let models = (0..<folds).map { f in NaiveBayesPlaceClassifier(training: set.subset { fold[$0] != f }, options: chosen.options) }
            for temperature in Self.floorTemperatures {
                for switching in Self.floorSwitchingProbabilities {
                    let floorSmoothing = PlaceSmoothing(temperature: temperature, switching: switching)
                    var right = 0, total = 0
                    for f in 0..<folds {
                        var tracker = PlaceTracker(classifier: models[f], smoothing: nil, floorSmoothing: floorSmoothing)
                        for (index, sample) in set.samples.enumerated() where fold[index] == f {
                            guard let floor = set.labels[sample.place].floor else { continue }
                            total += 1
                            if tracker.classify(sample.scan)?.floor == floor { right += 1 }
                        }
                    }
                    let accuracy = total > 0 ? Double(right) / Double(total) : 0
                    if bestFloor == nil || accuracy > (bestFloor?.accuracy ?? 0) { bestFloor = (floorSmoothing, accuracy) }
                }
            }
        }
        self.init(classifier: NaiveBayesPlaceClassifier(training: set, options: chosen.options), smoothing: chosen.smoothing,
                  floorSmoothing: bestFloor?.smoothing, validationAccuracy: best?.accuracy)
    }

    /// A tracker of streams with this model and its smoothing.
    public func tracker() -> PlaceTracker { PlaceTracker(classifier: classifier, smoothing: smoothing, floorSmoothing: floorSmoothing) }
}
