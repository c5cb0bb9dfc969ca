import Foundation

/// The room classifiers Whereabouts can train, by the names the command line uses.
public enum PlaceClassifierKind: String, CaseIterable, Sendable {
    /// ``DefaultPlaceClassifier``: naive Bayes with missing beacons, smoothed over the stream,
    /// every setting chosen by grouped cross-validation.
    case `default`
    /// ``NaiveBayesPlaceClassifier`` with ``NaiveBayesPlaceClassifier/Options/improved``, scan by scan.
    case naiveBayes = "naive-bayes"
    /// The Bluenet basic classifier as it was (``NaiveBayesPlaceClassifier/Options/bluenet``).
    case basic
    /// ``NearestNeighbourPlaceClassifier``, `k` by grouped cross-validation.
    case knn
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

    /// Creates a model from its parts.
    public init(kind: PlaceClassifierKind, classifier: Classifier, smoothing: PlaceSmoothing? = nil,
                floorSmoothing: PlaceSmoothing? = nil, validationAccuracy: Double? = nil) {
        self.kind = kind
        self.classifier = classifier
        self.smoothing = smoothing
        self.floorSmoothing = floorSmoothing
        self.validationAccuracy = validationAccuracy
    }

    /// Trains a classifier of the given kind.
    public static func train(_ kind: PlaceClassifierKind, on set: PlaceTrainingSet) -> PlaceModel {
        switch kind {
        case .default:
            let model = DefaultPlaceClassifier(training: set)
            return PlaceModel(kind: kind, classifier: .naiveBayes(model.classifier), smoothing: model.smoothing,
                              floorSmoothing: model.floorSmoothing, validationAccuracy: model.validationAccuracy)
        case .naiveBayes:
            return PlaceModel(kind: kind, classifier: .naiveBayes(NaiveBayesPlaceClassifier(training: set, options: .improved)))
        case .basic:
            return PlaceModel(kind: kind, classifier: .naiveBayes(NaiveBayesPlaceClassifier(training: set, options: .bluenet)))
        case .knn:
            let model = NearestNeighbourPlaceClassifier(training: set)
            return PlaceModel(kind: kind, classifier: .nearestNeighbours(model), validationAccuracy: model.validationAccuracy)
        }
    }

    /// The classifier, as the protocol.
    public var placeClassifier: any PlaceClassifier {
        switch classifier {
        case .naiveBayes(let model): model
        case .nearestNeighbours(let model): model
        }
    }

    /// The places the model names.
    public var labels: [PlaceLabel] { placeClassifier.labels }

    /// A tracker of streams with this model and its smoothing.
    public func tracker() -> PlaceTracker { PlaceTracker(classifier: placeClassifier, smoothing: smoothing, floorSmoothing: floorSmoothing) }
}
