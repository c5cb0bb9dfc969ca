/// Scores a room classifier against the truth of a recording, into the report of FORMATS.md §3:
/// `placeAccuracy` (a scan with a true place and no prediction counts as wrong), `placeLocated`,
/// `floorAccuracy` (from the classification's floor) and `located` (scans that got an answer).
/// Classifiers give no position, so the report (of kind ``EvaluationReport/Kind/classifier``) has
/// no errors.
///
/// ```swift
/// var evaluation = PlaceEvaluation(model: model)
/// for scan in test { evaluation.add(scan) }
/// print(evaluation.report(dataset: "esiiab").placeAccuracy ?? 0)
/// ```
public struct PlaceEvaluation: Sendable {
    /// The name reports give the classifier.
    public let name: String
    /// The classifier, with its stream memory.
    public private(set) var tracker: PlaceTracker
    /// Scans seen and scans that got an answer.
    public private(set) var scans = 0, located = 0
    private var withPlace = 0, placeRight = 0, placeLocated = 0, withFloor = 0, floorRight = 0
    private var seconds = 0.0

    /// Creates an evaluation of a trained model; `deviceOffsets` (``Venue/deviceOffsets``) are
    /// subtracted from each listed device's readings, as the training set subtracted them.
    public init(model: PlaceModel, name: String? = nil, deviceOffsets: [String: Double] = [:]) {
        self.name = name ?? model.kind.rawValue
        tracker = model.tracker()
        tracker.deviceOffsets = deviceOffsets
    }

    /// Classifies a scan and scores the answer.
    public mutating func add(_ scan: Scan) {
        let start = ContinuousClock.now
        let result = tracker.classify(scan)
        let elapsed = ContinuousClock.now - start
        seconds += elapsed.inSeconds
        scans += 1
        if result != nil { located += 1 }
        guard let truth = scan.truth else { return }
        if let place = truth.place {
            withPlace += 1
            if result != nil { placeLocated += 1 }
            if result?.place == place { placeRight += 1 }
        }
        if let floor = truth.floor {
            withFloor += 1
            if result?.floor == floor { floorRight += 1 }
        }
    }

    /// The report (`fixesPerSecond` is classifications per second).
    public func report(dataset: String, units: Venue.LengthUnit = .metre) -> EvaluationReport {
        EvaluationReport(kind: .classifier, dataset: dataset, algorithm: name, units: units.rawValue, scans: scans,
                         located: located, error: nil,
                         floorAccuracy: withFloor > 0 ? Double(floorRight) / Double(withFloor) : nil,
                         placeAccuracy: withPlace > 0 ? Double(placeRight) / Double(withPlace) : nil,
                         placeLocated: withPlace > 0 ? placeLocated : nil,
                         fixesPerSecond: seconds > 0 ? Double(scans) / seconds : nil, accuracyCoverage: nil)
    }
}
