import ArgumentParser
import Whereabouts

/// The value of `eval --algorithm`: one positioning algorithm, or all of them.
enum AlgorithmChoice: Hashable, Sendable, ExpressibleByArgument {
    /// The algorithm named.
    case algorithm(PositioningAlgorithm)
    /// Every algorithm, run over the same single pass (`all`).
    case all

    /// The choice named `argument`: an algorithm's name or `all`.
    init?(argument: String) {
        if argument == "all" {
            self = .all
        } else if let algorithm = PositioningAlgorithm(argument: argument) {
            self = .algorithm(algorithm)
        } else {
            return nil
        }
    }

    /// Every name the option accepts: the algorithms', then `all`.
    static var allValueStrings: [String] { PositioningAlgorithm.allValueStrings + ["all"] }

    /// The choice's name on the command line.
    var defaultValueDescription: String {
        switch self {
        case .algorithm(let algorithm): algorithm.rawValue
        case .all: "all"
        }
    }

    /// The algorithms chosen, in the order `all` runs them.
    var algorithms: [PositioningAlgorithm] {
        switch self {
        case .algorithm(let algorithm): [algorithm]
        case .all: PositioningAlgorithm.allCases
        }
    }
}
