import ArgumentParser
import Logging
import Whereabouts
import WhereaboutsServer

// The library's and the server's enums, named on the command line by their raw values.

/// `--algorithm default|centroid|…` of `locate`, `watch` and `rank`.
extension PositioningAlgorithm: ExpressibleByArgument {}

/// `--classifier default|naive-bayes|basic|knn` of `train`.
extension PlaceClassifierKind: ExpressibleByArgument {}

/// The models of `--tracking` (see ``PipelineOptions/Tracking``).
extension MotionTracker.Configuration.Model: ExpressibleByArgument {}

/// `--preset espresense-room|example` of `simulate`.
extension SimulationPreset: ExpressibleByArgument {}

/// `--level read|contribute|manage` of `users token`.
extension AccessLevel: ExpressibleByArgument {}

/// `--durability normal|full` of the store options.
extension Durability: ExpressibleByArgument {
    /// What each durability promises, for the help.
    public static var allValueDescriptions: [String: String] {
        [
            Self.normal.rawValue: "a write acknowledged survives the server being killed; a power cut may lose the last ones",
            Self.full.rawValue: "fsync every commit (writes that arrive together share one)",
        ]
    }
}

/// `--format geojson|gpx|csv` of `export`.
extension EventExport.Format: ExpressibleByArgument {}

/// `--log-level trace|debug|…|critical` of `serve`.
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// `--loss tukey|huber|least-squares` of `calibrate`: the raw values, in kebab case.
extension Calibration.Loss: ExpressibleByArgument {
    /// The loss named `argument` on the command line.
    public init?(argument: String) {
        guard let loss = Self.allCases.first(where: { $0.argument == argument }) else { return nil }
        self = loss
    }

    /// The loss's name on the command line (`least-squares` for ``leastSquares``).
    var argument: String {
        self == .leastSquares ? "least-squares" : rawValue
    }

    /// The name shown as an option's default.
    public var defaultValueDescription: String { argument }

    /// Every loss's name on the command line.
    public static var allValueStrings: [String] { allCases.map(\.argument) }
}

extension ExpressibleByArgument {
    /// Every value's name, comma-separated, for help texts: `default, centroid, …`.
    static var valueList: String { allValueStrings.joined(separator: ", ") }
}
