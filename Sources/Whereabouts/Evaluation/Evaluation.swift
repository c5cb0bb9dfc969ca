/// Scores fixes against ground truth, scan by scan, into the report of FORMATS.md §3.
///
/// Errors are horizontal distances (venue units) between the fix and `truth.x/y`, over the scans
/// that have a true position; a scan without a fix counts as not located, never as zero error.
/// Floor accuracy counts scans with a true floor; place accuracy counts scans with a true place,
/// a scan without a predicted place counting as wrong. Given a fix's placement
/// (``add(truth:fix:placement:pointPlace:)``), the place is the placement's and the place of the
/// fix's point alone is scored beside it.
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
    private var scoresPointPlaces = false
    private var pointPlaceRight = 0, pointPlaceLocated = 0, nearestPlaces = 0
    private var scoresMonitoredPlaces = false, monitoredPlaceRight = 0
    private var monitoredChanges = 0, trueChanges = 0

    /// Scans with a true place.
    public var scansWithPlace: Int { withPlace }

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

    /// Adds one scan's truth, its fix, the place chosen for the fix (``PlaceContainment/placement(of:)``,
    /// `nil` without a fix) and the place containing the fix's point, for comparison.
    public mutating func add(truth: GroundTruth?, fix: Fix?, placement: PlaceContainment.Placement?, pointPlace: String?) {
        scoresPointPlaces = true
        if let truePlace = truth?.place {
            if pointPlace != nil { pointPlaceLocated += 1 }
            if pointPlace == truePlace { pointPlaceRight += 1 }
            if placement?.isNearest == true { nearestPlaces += 1 }
        }
        add(truth: truth, fix: fix, place: placement?.place?.id)
    }

    /// Adds the place a ``PlaceMonitor`` reported for the scan's device once it had taken in the
    /// scan's placement (its hysteresis; `nil`: in no place), scored against the true place.
    /// Call it after the scan's ``add(truth:fix:placement:pointPlace:)``.
    public mutating func addMonitoredPlace(_ place: String?, truth: GroundTruth?) {
        scoresMonitoredPlaces = true
        if let truePlace = truth?.place, place == truePlace { monitoredPlaceRight += 1 }
    }

    /// Counts a change of room: by the monitor (`monitor`: its place differs from the one it
    /// reported for the device's previous scan, once it had reported one) and in the truth
    /// (`truth`: the true place differs from the last one the device's track had). What
    /// ``EvaluationReport/monitoredRoomChanges`` and ``EvaluationReport/trueRoomChanges`` sum.
    public mutating func addRoomChanges(monitor: Bool, truth: Bool) {
        if monitor { monitoredChanges += 1 }
        if truth { trueChanges += 1 }
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
            accuracyCoverage: errors.isEmpty ? nil : Double(insideAccuracy) / Double(errors.count),
            pointPlaceAccuracy: scoresPointPlaces && withPlace > 0 ? Double(pointPlaceRight) / Double(withPlace) : nil,
            pointPlaceLocated: scoresPointPlaces && withPlace > 0 ? pointPlaceLocated : nil,
            nearestPlaces: scoresPointPlaces && withPlace > 0 ? nearestPlaces : nil,
            monitoredPlaceAccuracy: scoresMonitoredPlaces && withPlace > 0 ? Double(monitoredPlaceRight) / Double(withPlace) : nil,
            monitoredRoomChanges: scoresMonitoredPlaces && withPlace > 0 ? monitoredChanges : nil,
            trueRoomChanges: scoresMonitoredPlaces && withPlace > 0 ? trueChanges : nil)
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
    /// `Quantile.ofSorted(_:_:)`.
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
        /// The places of a positioning algorithm's fixes, scan by scan: by the fix's most probable
        /// place (``PlaceContainment/Rule/mostProbable``) and, for comparison, by its point alone.
        case rooms
    }

    /// What the report scores; positioning unless said otherwise.
    public var kind: Kind = .positioning
    /// Name of the data set.
    public var dataset: String
    /// Name of the algorithm.
    public var algorithm: String

    /// A name unique among the reports of one evaluation: the algorithm's for positioning,
    /// `classifier:NAME` for a classifier (a classifier and an algorithm may share a name, such
    /// as `default` or `knn`), `rooms:NAME` for the places of an algorithm's fixes.
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
    /// Share of scans with a true place whose fix's point lay in it (the smallest place of the
    /// fix's floor containing the point): the place accuracy of point containment; an extra field.
    public var pointPlaceAccuracy: Double?
    /// Scans with a true place whose fix's point lay in some place; an extra field.
    public var pointPlaceLocated: Int?
    /// Scans with a true place whose place was the nearest one, no place holding enough of the
    /// fix; an extra field.
    public var nearestPlaces: Int?
    /// Share of scans with a true place that a ``PlaceMonitor`` (with ``EvaluationRun/placeMonitor``'s
    /// hysteresis) fed with the fixes' places reported in that place once it had the scan: what a
    /// live place monitor shows; an extra field.
    public var monitoredPlaceAccuracy: Double?
    /// How often that place monitor changed its place (a room entered or left, "unknown"
    /// included), summed over the devices' tracks, after its first place; an extra field.
    public var monitoredRoomChanges: Int?
    /// How often the true place changed, summed over the devices' tracks: what
    /// ``monitoredRoomChanges`` should come near (more is flapping, fewer is lagging or missing
    /// rooms); an extra field.
    public var trueRoomChanges: Int?

    /// Creates a report.
    public init(kind: Kind = .positioning, dataset: String, algorithm: String, units: String, scans: Int, located: Int,
                error: ErrorStatistics? = nil, floorAccuracy: Double? = nil, placeAccuracy: Double? = nil,
                placeLocated: Int? = nil, fixesPerSecond: Double? = nil, accuracyCoverage: Double? = nil,
                pointPlaceAccuracy: Double? = nil, pointPlaceLocated: Int? = nil, nearestPlaces: Int? = nil,
                monitoredPlaceAccuracy: Double? = nil, monitoredRoomChanges: Int? = nil, trueRoomChanges: Int? = nil) {
        self.kind = kind
        self.dataset = dataset
        self.algorithm = algorithm
        self.units = units
        self.scans = scans
        self.located = located
        self.error = error
        self.floorAccuracy = floorAccuracy
        self.placeAccuracy = placeAccuracy
        self.placeLocated = placeLocated
        self.fixesPerSecond = fixesPerSecond
        self.accuracyCoverage = accuracyCoverage
        self.pointPlaceAccuracy = pointPlaceAccuracy
        self.pointPlaceLocated = pointPlaceLocated
        self.nearestPlaces = nearestPlaces
        self.monitoredPlaceAccuracy = monitoredPlaceAccuracy
        self.monitoredRoomChanges = monitoredRoomChanges
        self.trueRoomChanges = trueRoomChanges
    }

    /// The room figures of a positioning report, as a record of their own (kind ``Kind/rooms``):
    /// the counts and the place figures, without errors, floors or throughput; `nil` when the
    /// report scored no place.
    public var roomsReport: EvaluationReport? {
        guard kind == .positioning, placeAccuracy != nil else { return nil }
        return EvaluationReport(kind: .rooms, dataset: dataset, algorithm: algorithm, units: units, scans: scans, located: located,
                                placeAccuracy: placeAccuracy, placeLocated: placeLocated, pointPlaceAccuracy: pointPlaceAccuracy,
                                pointPlaceLocated: pointPlaceLocated, nearestPlaces: nearestPlaces,
                                monitoredPlaceAccuracy: monitoredPlaceAccuracy, monitoredRoomChanges: monitoredRoomChanges,
                                trueRoomChanges: trueRoomChanges)
    }

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
        if let pointPlaceAccuracy { members.append(("pointPlaceAccuracy", rounded(pointPlaceAccuracy, 10000))) }
        if kind == .rooms, let pointPlaceLocated { members.append(("pointPlaceLocated", .number(Double(pointPlaceLocated)))) }
        if kind == .rooms, let nearestPlaces { members.append(("nearestPlaces", .number(Double(nearestPlaces)))) }
        if kind == .rooms, let monitoredPlaceAccuracy { members.append(("monitoredPlaceAccuracy", rounded(monitoredPlaceAccuracy, 10000))) }
        if kind == .rooms, let monitoredRoomChanges { members.append(("monitoredRoomChanges", .number(Double(monitoredRoomChanges)))) }
        if kind == .rooms, let trueRoomChanges { members.append(("trueRoomChanges", .number(Double(trueRoomChanges)))) }
        if let fixesPerSecond { members.append(("fixesPerSecond", .number(fixesPerSecond.rounded()))) }
        if let accuracyCoverage { members.append(("accuracyCoverage", rounded(accuracyCoverage, 10000))) }
        return .object(members)
    }
}
