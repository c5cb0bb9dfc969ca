import Foundation

/// The room classifiers Whereabouts can train, by the names the command line uses.
public enum PlaceClassifierKind: String, CaseIterable, Sendable {
    /// ``DefaultPlaceClassifier``: naive Bayes with missing beacons or a random forest, smoothed
    /// over the stream, the model and every setting chosen by grouped cross-validation, learning
    /// each phone's RSSI offset as it goes.
    case `default`
    /// ``NaiveBayesPlaceClassifier`` with ``NaiveBayesPlaceClassifier/Options/improved``, scan by scan.
    case naiveBayes = "naive-bayes"
    /// The Bluenet basic classifier as it was (``NaiveBayesPlaceClassifier/Options/bluenet``).
    case basic
    /// ``NearestNeighbourPlaceClassifier``, `k` by grouped cross-validation.
    case knn
    /// ``RandomForestPlaceClassifier`` with its default options, scan by scan.
    case forest
}

/// A trained room classifier that can be saved and loaded: train once, classify later.
///
/// ```swift
/// let model = PlaceModel.train(.default, on: PlaceTrainingSet(scans: survey, venue: venue))
/// try PlaceModelFile.write(model, to: URL(fileURLWithPath: "model.json"))
/// var tracker = try PlaceModelFile.read(from: URL(fileURLWithPath: "model.json")).tracker()
/// ```
public struct PlaceModel: Sendable {
    /// The trained classifier.
    public enum Classifier: Sendable {
        /// A Gaussian naive Bayes model.
        case naiveBayes(NaiveBayesPlaceClassifier)
        /// A k-nearest-neighbour model.
        case nearestNeighbours(NearestNeighbourPlaceClassifier)
        /// A random forest.
        case forest(RandomForestPlaceClassifier)

        /// The classifier, as the protocol.
        public var placeClassifier: any PlaceClassifier {
            switch self {
            case .naiveBayes(let model): model
            case .nearestNeighbours(let model): model
            case .forest(let model): model
            }
        }

        /// The beacons the classifier knows.
        public var beacons: PlaceBeacons {
            switch self {
            case .naiveBayes(let model): model.beacons
            case .nearestNeighbours(let model): model.beacons
            case .forest(let model): model.beacons
            }
        }
    }

    /// Which kind of classifier this is.
    public var kind: PlaceClassifierKind
    /// The trained classifier.
    public var classifier: Classifier
    /// The smoothing of streams, or `nil` for scan-by-scan answers.
    public var smoothing: PlaceSmoothing?
    /// The smoothing of the separate floor vote, or `nil` to take the floor from the places.
    public var floorSmoothing: PlaceSmoothing?
    /// The grouped cross-validation accuracy measured while training, when measured.
    public var validationAccuracy: Double?
    /// The grouped cross-validation accuracy of each model the default classifier weighed, by
    /// kind (empty for the other kinds).
    public var candidateAccuracies: [PlaceClassifierKind: Double]
    /// What the tracker learns each device's RSSI offset against (``PlaceOffsetEstimator``), or
    /// `nil` for no learning: set by the default classifier.
    public var offsetEstimator: PlaceOffsetEstimator?

    /// Creates a model from its parts.
    public init(kind: PlaceClassifierKind, classifier: Classifier, smoothing: PlaceSmoothing? = nil,
                floorSmoothing: PlaceSmoothing? = nil, validationAccuracy: Double? = nil,
                candidateAccuracies: [PlaceClassifierKind: Double] = [:], offsetEstimator: PlaceOffsetEstimator? = nil) {
        self.kind = kind
        self.classifier = classifier
        self.smoothing = smoothing
        self.floorSmoothing = floorSmoothing
        self.validationAccuracy = validationAccuracy
        self.candidateAccuracies = candidateAccuracies
        self.offsetEstimator = offsetEstimator
    }

    /// Trains a classifier of the given kind.
    public static func train(_ kind: PlaceClassifierKind, on set: PlaceTrainingSet) -> PlaceModel {
        switch kind {
        case .default:
            let model = DefaultPlaceClassifier(training: set)
            return PlaceModel(kind: kind, classifier: model.model, smoothing: model.smoothing, floorSmoothing: model.floorSmoothing,
                              validationAccuracy: model.validationAccuracy, candidateAccuracies: model.candidateAccuracies,
                              offsetEstimator: model.offsetEstimator)
        case .naiveBayes:
            return PlaceModel(kind: kind, classifier: .naiveBayes(NaiveBayesPlaceClassifier(training: set, options: .improved)))
        case .basic:
            return PlaceModel(kind: kind, classifier: .naiveBayes(NaiveBayesPlaceClassifier(training: set, options: .bluenet)))
        case .knn:
            let model = NearestNeighbourPlaceClassifier(training: set)
            return PlaceModel(kind: kind, classifier: .nearestNeighbours(model), validationAccuracy: model.validationAccuracy)
        case .forest:
            return PlaceModel(kind: kind, classifier: .forest(RandomForestPlaceClassifier(training: set)))
        }
    }

    /// The classifier, as the protocol.
    public var placeClassifier: any PlaceClassifier { classifier.placeClassifier }

    /// The places the model names.
    public var labels: [PlaceLabel] { placeClassifier.labels }

    /// A tracker of streams with this model, its smoothing and its offset learning.
    public func tracker() -> PlaceTracker {
        PlaceTracker(classifier: placeClassifier, smoothing: smoothing, floorSmoothing: floorSmoothing, offsetEstimator: offsetEstimator)
    }
}
