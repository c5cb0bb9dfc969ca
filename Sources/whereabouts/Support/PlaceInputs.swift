import Whereabouts

/// The room classifiers that `eval` trains and scores.
enum PlaceInputs {
    /// The classifier kinds `choice` selects; `nil` picks the default classifier when the
    /// training scans have places, and none otherwise.
    static func kinds(_ choice: ClassifierChoice?, training: [Scan]) -> [PlaceClassifierKind] {
        guard let choice else { return training.contains { $0.truth?.place != nil } ? [.default] : [] }
        return choice.kinds
    }

    /// One evaluation per selected classifier, each trained on the scans with `truth.place`.
    static func evaluations(_ choice: ClassifierChoice?, training: [Scan], venue: Venue) throws -> [PlaceEvaluation] {
        let kinds = kinds(choice, training: training)
        guard !kinds.isEmpty else { return [] }
        let set = PlaceTrainingSet(scans: training, venue: venue)
        guard !set.samples.isEmpty else {
            throw CommandFailure("The room classifiers learn from scans with truth.place: give --train with such scans.")
        }
        return kinds.map { PlaceEvaluation(model: PlaceModel.train($0, on: set), deviceOffsets: venue.deviceOffsets) }
    }
}
