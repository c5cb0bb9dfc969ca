/// Scores fixes against ground truth, scan by scan, into the report of FORMATS.md §3.
///
/// Errors are horizontal distances (venue units) between the fix and `truth.x/y`, over the scans
/// that have a true position; a scan without a fix counts as not located, never as zero error.
/// Floor accuracy counts scans with a true floor; place accuracy counts scans with a true place,
/// a scan without a predicted place counting as wrong.
///
/// ```swift
/// var evaluation = Evaluation()
/// for scan in scans { evaluation.add(truth: scan.truth, fix: locator.locate(scan)) }
/// let report = evaluation.report(dataset: "uji-lib", algorithm: "default", units: venue.units)
/// print(report.error?.median ?? .nan)
/// ```
public struct Evaluation: Sendable {
    /// Scans seen.
    public private(set) var scans = 0
    /// Scans that got a fix.
    public private(set) var located = 0
    /// Horizontal errors of the located scans with a true position, in order.
    public private(set) var errors: [Double] = []
    /// For each error, whether the truth lay inside the fix's accuracy radius.
    public private(set) var insideAccuracy = 0
    private var withFloor = 0, floorRight = 0
    private var withPlace = 0, placeRight = 0, placeLocated = 0
    private var placePredictions = 0

    /// Creates an empty evaluation.
    public init() {}

    /// Adds one scan's truth and what the algorithm said (`fix`, and `place` when it names places).
    public mutating func add(truth: GroundTruth?, fix: Fix?, place: String? = nil) {
        scans += 1
        if fix != nil { located += 1 }
        if place != nil { placePredictions += 1 }
        guard let truth else { return }
        if let fix, let point = truth.planarPoint {
            let error = fix.point.planar.distance(to: point)
            errors.append(error)
            if error <= fix.accuracy { insideAccuracy += 1 }
        }
        if let floor = truth.floor {
            withFloor += 1
            if fix?.floor == floor { floorRight += 1 }
        }
        if let truePlace = truth.place {
            withPlace += 1
            if place != nil { placeLocated += 1 }
            if place == truePlace { placeRight += 1 }
        }
    }

    /// The report; fields that do not apply (no true positions, floors or places) are `nil`.
    public func report(dataset: String, algorithm: String, units: Venue.LengthUnit, fixesPerSecond: Double? = nil) -> EvaluationReport {
        EvaluationReport(
            dataset: dataset, algorithm: algorithm, units: units.rawValue, scans: scans, located: located,
            error: ErrorStatistics(errors),
            floorAccuracy: withFloor > 0 ? Double(floorRight) / Double(withFloor) : nil,
            placeAccuracy: withPlace > 0 ? Double(placeRight) / Double(withPlace) : nil,
            placeLocated: withPlace > 0 || placePredictions > 0 ? placeLocated : nil,
            fixesPerSecond: fixesPerSecond,
            accuracyCoverage: errors.isEmpty ? nil : Double(insideAccuracy) / Double(errors.count))
    }
}

/// Summary statistics of a set of errors.
public struct ErrorStatistics: Hashable, Sendable {
    /// Arithmetic mean.
    public var mean: Double
    /// 50th percentile.
    public var median: Double
    /// 75th percentile.
    public var p75: Double
    /// 95th percentile.
    public var p95: Double
    /// Largest error.
    public var max: Double
    /// How many errors.
    public var count: Int

    /// The statistics of `errors`, or `nil` when there are none. Percentiles interpolate linearly
    /// between order statistics (NumPy's default), so they match the baselines' figures.
    public init?(_ errors: [Double]) {
        guard !errors.isEmpty else { return nil }
        let sorted = errors.sorted()
        count = sorted.count
        mean = sorted.reduce(0, +) / Double(sorted.count)
        median = Quantile.ofSorted(sorted, 0.5)
        p75 = Quantile.ofSorted(sorted, 0.75)
        p95 = Quantile.ofSorted(sorted, 0.95)
        max = sorted[sorted.count - 1]
    }

    /// The `q` quantile (0…1) of sorted values, linear between order statistics; the same as
    /// ``Quantile/ofSorted(_:_:)``.
    public static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        Quantile.ofSorted(sorted, q)
    }
}

/// The evaluation report of FORMATS.md §3 (`whereabouts eval --json`).
public struct EvaluationReport: Hashable, Sendable {
    /// What a report scores.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// A positioning algorithm: fixes with errors, the accuracy radius, floors, and the
        /// places the fixes fall in.
        case positioning
        /// A room classifier: a place and a floor for each scan, no position.
        case classifier
    }

    /// What the report scores; positioning unless said otherwise.
    public var kind: Kind = .positioning
    /// Name of the data set.
    public var dataset: String
    /// Name of the algorithm.
    public var algorithm: String

    /// A name unique among the reports of one evaluation: the algorithm's for positioning,
    /// `classifier:NAME` for a classifier (a classifier and an algorithm may share a name, such
    /// as `default` or `knn`).
    public var name: String {
        kind == .positioning ? algorithm : "\(kind.rawValue):\(algorithm)"
    }
    /// Unit of the errors (`m`, `ft` or `cell`).
    public var units: String
    /// Scans evaluated.
    public var scans: Int
    /// Scans that produced a fix.
    public var located: Int
    /// Horizontal error statistics over located scans with a true position.
    public var error: ErrorStatistics?
    /// Share of scans with a true floor whose fix had that floor.
    public var floorAccuracy: Double?
    /// Share of scans with a true place whose predicted place was it.
    public var placeAccuracy: Double?
    /// Scans with a true place that got a prediction.
    public var placeLocated: Int?
    /// The solver's own throughput in this run, fixes per second.
    public var fixesPerSecond: Double?
    /// Share of located scans whose truth lay inside the fix's accuracy radius (the radius
    /// promises 68 %); an extra field.
    public var accuracyCoverage: Double?

    /// The report as JSON, keys in the order FORMATS.md shows them; absent fields left out.
    public var json: JSONValue {
        func rounded(_ value: Double, _ digits: Double = 1000) -> JSONValue { .number((value * digits).rounded() / digits) }
        var members: [(key: String, value: JSONValue)] = [
            ("kind", .string(kind.rawValue)), ("name", .string(name)),
            ("dataset", .string(dataset)), ("algorithm", .string(algorithm)), ("units", .string(units)),
            ("scans", .number(Double(scans))), ("located", .number(Double(located))),
        ]
        if let error {
            members.append(("error", .object([("mean", rounded(error.mean)), ("median", rounded(error.median)),
                                              ("p75", rounded(error.p75)), ("p95", rounded(error.p95)), ("max", rounded(error.max))])))
        }
        if let floorAccuracy { members.append(("floorAccuracy", rounded(floorAccuracy, 10000))) }
        if let placeAccuracy { members.append(("placeAccuracy", rounded(placeAccuracy, 10000))) }
        if let placeLocated { members.append(("placeLocated", .number(Double(placeLocated)))) }
        if let fixesPerSecond { members.append(("fixesPerSecond", .number(fixesPerSecond.rounded()))) }
        if let accuracyCoverage { members.append(("accuracyCoverage", rounded(accuracyCoverage, 10000))) }
        return .object(members)
    }
}
