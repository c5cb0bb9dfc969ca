import ArgumentParser
import Whereabouts

/// The value of `eval --classifier`: one room classifier, all of them, or none.
enum ClassifierChoice: Hashable, Sendable, ExpressibleByArgument {
    /// The classifier named.
    case kind(PlaceClassifierKind)
    /// Every classifier (`all`).
    case all
    /// No classifier (`none`).
    case noClassifier

    /// The choice named `argument`: a classifier's name, `all` or `none`.
    init?(argument: String) {
        switch argument {
        case "all": self = .all
        case "none": self = .noClassifier
        default:
            guard let kind = PlaceClassifierKind(argument: argument) else { return nil }
            self = .kind(kind)
        }
    }

    /// Every name the option accepts: the classifiers', then `all` and `none`.
    static var allValueStrings: [String] { PlaceClassifierKind.allValueStrings + ["all", "none"] }

    /// The choice's name on the command line.
    var defaultValueDescription: String {
        switch self {
        case .kind(let kind): kind.rawValue
        case .all: "all"
        case .noClassifier: "none"
        }
    }

    /// The classifier kinds chosen.
    var kinds: [PlaceClassifierKind] {
        switch self {
        case .kind(let kind): [kind]
        case .all: PlaceClassifierKind.allCases
        case .noClassifier: []
        }
    }
}
