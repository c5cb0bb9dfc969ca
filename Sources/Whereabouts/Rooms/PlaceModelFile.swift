import Foundation

/// Reads and writes place model files (FORMATS.md §6): versioned JSON, errors naming the file
/// and the key path.
///
/// ```swift
/// try PlaceModelFile.write(model, to: URL(fileURLWithPath: "model.json"))
/// let again = try PlaceModelFile.read(from: URL(fileURLWithPath: "model.json"))
/// ```
public enum PlaceModelFile {
    /// The value of the file's `format` key.
    public static let format = "whereabouts-place-model"
    /// The version this code writes and the newest it reads.
    public static let version = 1

    /// Reads a model file.
    public static func read(from url: URL) throws(FormatError) -> PlaceModel {
        try decode(JSONDocument.contents(of: url), file: url.path)
    }

    /// Reads a model file as ``read(from:)`` does, adding the keys its format does not know (which
    /// are ignored) to `unknownKeys`, each with its line and column and the known key it most
    /// likely meant: a misspelt optional key is otherwise dropped without a word.
    public static func read(from url: URL, unknownKeys: inout [UnknownKey]) throws(FormatError) -> PlaceModel {
        try JSONDocument.decode(JSONDocument.contents(of: url), file: url.path, unknownKeys: &unknownKeys, with: decode(root:))
    }

    /// Parses a model from JSON bytes; `file` names the source in errors.
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes, file: String? = nil) throws(FormatError) -> PlaceModel {
        try JSONDocument.decode(bytes, file: file, with: decode(root:))
    }

    /// Builds a model from a parsed JSON value.
    public static func decode(_ value: JSONValue) throws(FormatError) -> PlaceModel {
        try decode(root: JSONReader(value))
    }

    static func decode(root: JSONReader) throws(FormatError) -> PlaceModel {
        _ = try root.object()
        let formatKey = try root.required("format")
        guard try formatKey.string() == format else { throw formatKey.fail("expected \"\(format)\" (this is not a place model file)") }
        let versionKey = try root.required("version")
        let version = try versionKey.int()
        guard (1...Self.version).contains(version) else {
            throw versionKey.fail("version \(version) is not supported (this build reads up to \(Self.version)); retrain the model or update Whereabouts")
        }
        let kindKey = try root.required("kind")
        let kindName = try kindKey.string()
        guard let kind = PlaceClassifierKind(rawValue: kindName) else {
            throw kindKey.fail("unknown kind \"\(kindName)\" (expected \(PlaceClassifierKind.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        var labels: [PlaceLabel] = []
        for place in try root.required("places").elements() {
            labels.append(PlaceLabel(id: try place.required("id").string(), floor: try place.optionalInt("floor")))
        }
        var keys: [String] = [], identities: [IBeaconIdentity?] = []
        for beacon in try root.required("beacons").elements() {
            keys.append(try beacon.required("id").string())
            identities.append(try IBeaconIdentity.decode(beacon))
        }
        let beacons = PlaceBeacons(keys: keys, identities: identities)
        guard beacons.count == keys.count else { throw FormatError(key: "beacons", message: "beacon ids must be unique") }
        func readSmoothing(_ key: String) throws(FormatError) -> PlaceSmoothing? {
            guard let item = root.member(key) else { return nil }
            let temperature = try item.required("temperature").double(), switching = try item.required("switching").double()
            guard temperature > 0, switching > 0, switching <= 1 else {
                throw item.fail("temperature must be positive and switching in (0, 1]")
            }
            return PlaceSmoothing(temperature: temperature, switching: switching)
        }
        let smoothing = try readSmoothing("smoothing"), floorSmoothing = try readSmoothing("floorSmoothing")
        let accuracy = try root.optionalDouble("validationAccuracy")
        var candidates: [PlaceClassifierKind: Double] = [:]
        if let item = root.member("candidates") {
            for (name, _) in try item.members() {
                guard let candidate = PlaceClassifierKind(rawValue: name) else {
                    throw FormatError(key: item.childPath(name), message: "unknown kind \"\(name)\"")
                }
                candidates[candidate] = try item.required(name).double()
            }
        }
        var offsetEstimator: PlaceOffsetEstimator?
        if let item = root.member("offsetReference") {
            let devices = try item.required("devices").elements().map { (device: JSONReader) throws(FormatError) -> String in
                try device.string()
            }
            let meansKey = try item.required("means")
            let rows = try meansKey.elements()
            guard rows.count == labels.count else { throw meansKey.fail("expected \(labels.count) rows, one per place, found \(rows.count)") }
            var means: [[Double?]] = []
            for row in rows {
                let values = try row.elements()
                guard values.count == keys.count else { throw row.fail("expected \(keys.count) means, one per beacon, found \(values.count)") }
                means.append(try values.map { (value: JSONReader) throws(FormatError) -> Double? in
                    try value.value == .null ? nil : value.double()
                })
            }
            offsetEstimator = PlaceOffsetEstimator(means: means, beacons: beacons, knownDevices: Set(devices))
        }
        let classifier: PlaceModel.Classifier
        if let item = root.member("naiveBayes") {
            let options = NaiveBayesPlaceClassifier.Options(
                standardDeviationFloor: try item.required("standardDeviationFloor").double(),
                pooledVarianceWeight: try item.required("pooledVarianceWeight").double(),
                usesPriors: try item.required("priors").bool(),
                modelsMissingBeacons: try item.required("missingBeacons").bool(),
                minimumMatchingBeacons: try item.required("minimumMatchingBeacons").int())
            let scansKey = try item.required("scans")
            let scans = try scansKey.elements().map { (element: JSONReader) throws(FormatError) -> Int in try element.int() }
            guard scans.count == labels.count else { throw scansKey.fail("expected \(labels.count) counts, one per place, found \(scans.count)") }
            let cellsKey = try item.required("cells")
            let rows = try cellsKey.elements()
            guard rows.count == labels.count else { throw cellsKey.fail("expected \(labels.count) rows, one per place, found \(rows.count)") }
            var cells: [[GaussianPlaceStatistics.Cell]] = []
            for row in rows {
                let items = try row.elements()
                guard items.count == keys.count else { throw row.fail("expected \(keys.count) cells, one per beacon, found \(items.count)") }
                var line: [GaussianPlaceStatistics.Cell] = []
                for cell in items {
                    let parts = try cell.elements()
                    guard parts.count == 3 else { throw cell.fail("expected [heard, mean, variance]") }
                    let heard = try parts[0].int(), mean = try parts[1].double(), variance = try parts[2].double()
                    guard heard >= 0, variance >= 0 else { throw cell.fail("heard and variance must not be negative") }
                    line.append(.init(heard: heard, mean: mean, variance: variance))
                }
                cells.append(line)
            }
            classifier = .naiveBayes(NaiveBayesPlaceClassifier(labels: labels, beacons: beacons,
                                                               statistics: GaussianPlaceStatistics(scans: scans, cells: cells), options: options))
        } else if let item = root.member("nearestNeighbours") {
            let k = try item.required("k").int()
            guard k >= 1 else { throw FormatError(key: item.childPath("k"), message: "k must be at least 1") }
            let missing = try item.required("missingRSSI").double()
            var vectors: [[Double]] = [], places: [Int] = []
            for sample in try item.required("samples").elements() {
                let placeKey = try sample.required("place")
                let place = try placeKey.int()
                guard labels.indices.contains(place) else { throw placeKey.fail("no place \(place) (the model has \(labels.count))") }
                let rssiKey = try sample.required("rssi")
                let values = try rssiKey.elements().map { (element: JSONReader) throws(FormatError) -> Double in try element.double() }
                guard values.count == keys.count else { throw rssiKey.fail("expected \(keys.count) values, one per beacon, found \(values.count)") }
                vectors.append(values)
                places.append(place)
            }
            classifier = .nearestNeighbours(NearestNeighbourPlaceClassifier(labels: labels, beacons: beacons, k: k, missingRSSI: missing,
                                                                            vectors: vectors, places: places, validationAccuracy: accuracy))
        } else if let item = root.member("forest") {
            classifier = .forest(try decodeForest(item, labels: labels, beacons: beacons))
        } else {
            throw FormatError(key: "naiveBayes", message: "missing: a model holds \"naiveBayes\", \"nearestNeighbours\" or \"forest\"")
        }
        return PlaceModel(kind: kind, classifier: classifier, smoothing: smoothing, floorSmoothing: floorSmoothing, validationAccuracy: accuracy,
                          candidateAccuracies: candidates, offsetEstimator: offsetEstimator)
    }

    /// Reads the `forest` member: its options and trees, each bounded before it is read.
    private static func decodeForest(_ item: JSONReader, labels: [PlaceLabel], beacons: PlaceBeacons) throws(FormatError) -> RandomForestPlaceClassifier {
        typealias Forest = RandomForestPlaceClassifier
        typealias Tree = Forest.Tree
        var options = Forest.Options(laplace: try item.required("laplace").double())
        if let depth = try item.optionalInt("maximumDepth") { options.maximumDepth = depth }
        if let size = try item.optionalInt("minimumLeafSize") { options.minimumLeafSize = size }
        options.featuresPerSplit = try item.optionalInt("featuresPerSplit")
        if let seed = try item.optionalInt("seed"), seed >= 0 { options.seed = UInt64(seed) }
        let treesKey = try item.required("trees")
        guard case .array(let treeValues) = treesKey.value else { throw treesKey.fail("expected an array, found \(treesKey.value.kindDescription)") }
        guard (1...Forest.maximumTrees).contains(treeValues.count) else {
            throw treesKey.fail("expected 1 to \(Forest.maximumTrees) trees, found \(treeValues.count)")
        }
        /// A number of an array at a path built only for the error.
        func number(_ value: JSONValue, _ path: @autoclosure () -> String) throws(FormatError) -> Double {
            guard case .number(let n) = value else { throw FormatError(key: path(), message: "expected a number, found \(value.kindDescription)") }
            return n
        }
        func integer(_ value: JSONValue, _ path: @autoclosure () -> String) throws(FormatError) -> Int {
            let n = try number(value, path())
            guard n == n.rounded(), abs(n) < 1e15 else { throw FormatError(key: path(), message: "expected an integer, found \(n)") }
            return Int(n)
        }
        var trees: [Tree] = []
        var nodes = 0
        for (t, treeValue) in treeValues.enumerated() {
            let tree = treesKey.child(treeValue, path: "\(treesKey.path)[\(t)]", pattern: treesKey.pattern + "[]")
            let splitsKey = try tree.required("splits"), leavesKey = try tree.required("leaves")
            guard case .array(let splitValues) = splitsKey.value else { throw splitsKey.fail("expected an array, found \(splitsKey.value.kindDescription)") }
            guard case .array(let leafValues) = leavesKey.value else { throw leavesKey.fail("expected an array, found \(leavesKey.value.kindDescription)") }
            let count = splitValues.count + leafValues.count
            guard count <= Forest.maximumNodesPerTree else {
                throw tree.fail("\(count) nodes, more than the \(Forest.maximumNodesPerTree) a tree may have")
            }
            nodes += count
            guard nodes <= Forest.maximumNodes else { throw treesKey.fail("more than the \(Forest.maximumNodes) nodes a forest may have") }
            var splits: [Tree.Split] = []
            splits.reserveCapacity(splitValues.count)
            for (index, value) in splitValues.enumerated() {
                let path = "\(splitsKey.path)[\(index)]"
                guard case .array(let parts) = value, parts.count == 5 else {
                    throw FormatError(key: path, message: "expected [beacon, threshold or null, \"left\" or \"right\", left, right]")
                }
                let threshold: Double = parts[1] == .null ? -.infinity : try number(parts[1], path + "[1]")
                let side: Bool
                switch parts[2] {
                case .string("left"): side = true
                case .string("right"): side = false
                default: throw FormatError(key: path + "[2]", message: "expected \"left\" or \"right\" (where a scan that did not hear the beacon goes)")
                }
                splits.append(Tree.Split(beacon: try integer(parts[0], path + "[0]"), threshold: threshold, notHeardGoesLeft: side,
                                         left: try integer(parts[3], path + "[3]"), right: try integer(parts[4], path + "[4]")))
            }
            var leaves: [Tree.Leaf] = []
            leaves.reserveCapacity(leafValues.count)
            for (index, value) in leafValues.enumerated() {
                let path = "\(leavesKey.path)[\(index)]"
                guard case .array(let parts) = value, !parts.isEmpty, parts.count % 2 == 0, parts.count <= 2 * labels.count else {
                    throw FormatError(key: path, message: "expected pairs of a place index and its weight, at most one per place")
                }
                var leaf = Tree.Leaf(places: [], weights: [])
                for pair in 0..<(parts.count / 2) {
                    leaf.places.append(try integer(parts[2 * pair], "\(path)[\(2 * pair)]"))
                    leaf.weights.append(try number(parts[2 * pair + 1], "\(path)[\(2 * pair + 1)]"))
                }
                leaves.append(leaf)
            }
            trees.append(Tree(splits: splits, leaves: leaves))
        }
        do {
            return try Forest(labels: labels, beacons: beacons, trees: trees, options: options)
        } catch {
            throw FormatError(key: item.childPath(error.key), message: error.message)
        }
    }

    /// The JSON value of a model.
    public static func encode(_ model: PlaceModel) -> JSONValue {
        func number(_ value: Double) -> JSONValue { .number(value) }
        var members: [(key: String, value: JSONValue)] = [
            ("format", .string(format)), ("version", number(Double(version))), ("kind", .string(model.kind.rawValue)),
        ]
        let classifier = model.placeClassifier
        members.append(("places", .array(classifier.labels.map { label in
            var item: [(key: String, value: JSONValue)] = [("id", .string(label.id))]
            if let floor = label.floor { item.append(("floor", number(Double(floor)))) }
            return .object(item)
        })))
        let beacons = model.classifier.beacons
        members.append(("beacons", .array(zip(beacons.keys, beacons.identities).map { key, identity in
            var item: [(key: String, value: JSONValue)] = [("id", .string(key))]
            if let identity {
                item += [("uuid", .string(identity.uuid.uuidString)), ("major", number(Double(identity.major))),
                         ("minor", number(Double(identity.minor)))]
            }
            return .object(item)
        })))
        if let smoothing = model.smoothing {
            members.append(("smoothing", .object([("temperature", number(smoothing.temperature)), ("switching", number(smoothing.switching))])))
        }
        if let smoothing = model.floorSmoothing {
            members.append(("floorSmoothing", .object([("temperature", number(smoothing.temperature)), ("switching", number(smoothing.switching))])))
        }
        if let accuracy = model.validationAccuracy { members.append(("validationAccuracy", number(accuracy))) }
        if !model.candidateAccuracies.isEmpty {
            let candidates = PlaceClassifierKind.allCases.compactMap { kind in
                model.candidateAccuracies[kind].map { (key: kind.rawValue, value: number($0)) }
            }
            members.append(("candidates", .object(candidates)))
        }
        if let estimator = model.offsetEstimator {
            members.append(("offsetReference", .object([
                ("devices", .array(estimator.knownDevices.sorted().map { .string($0) })),
                ("means", .array(estimator.means.map { row in
                    .array((0..<beacons.count).map { index in index < row.count ? row[index].map(number) ?? .null : .null })
                })),
            ])))
        }
        switch model.classifier {
        case .naiveBayes(let nb):
            let o = nb.options
            members.append(("naiveBayes", .object([
                ("standardDeviationFloor", number(o.standardDeviationFloor)), ("pooledVarianceWeight", number(o.pooledVarianceWeight)),
                ("priors", .bool(o.usesPriors)), ("missingBeacons", .bool(o.modelsMissingBeacons)),
                ("minimumMatchingBeacons", number(Double(o.minimumMatchingBeacons))),
                ("scans", .array(nb.statistics.scans.map { number(Double($0)) })),
                ("cells", .array(nb.statistics.cells.map { row in
                    .array(row.map { .array([number(Double($0.heard)), number($0.mean), number($0.variance)]) })
                })),
            ])))
        case .nearestNeighbours(let knn):
            members.append(("nearestNeighbours", .object([
                ("k", number(Double(knn.k))), ("missingRSSI", number(knn.missingRSSI)),
                ("samples", .array(zip(knn.places, knn.vectors).map { place, vector in
                    .object([("place", number(Double(place))), ("rssi", .array(vector.map(number)))])
                })),
            ])))
        case .forest(let forest):
            let o = forest.options
            var item: [(key: String, value: JSONValue)] = [
                ("laplace", number(o.laplace)), ("maximumDepth", number(Double(o.maximumDepth))),
                ("minimumLeafSize", number(Double(o.minimumLeafSize))),
            ]
            if let features = o.featuresPerSplit { item.append(("featuresPerSplit", number(Double(features)))) }
            if o.seed < 1 << 53 { item.append(("seed", number(Double(o.seed)))) }
            item.append(("trees", .array(forest.trees.map { tree in
                .object([
                    ("splits", .array(tree.splits.map { split in
                        .array([number(Double(split.beacon)), split.threshold.isFinite ? number(split.threshold) : .null,
                                .string(split.notHeardGoesLeft ? "left" : "right"), number(Double(split.left)), number(Double(split.right))])
                    })),
                    ("leaves", .array(tree.leaves.map { leaf in
                        .array(zip(leaf.places, leaf.weights).flatMap { [number(Double($0)), number($1)] })
                    })),
                ])
            })))
            members.append(("forest", .object(item)))
        }
        return .object(members)
    }

    /// Writes a model file atomically.
    public static func write(_ model: PlaceModel, to url: URL) throws {
        try Data(JSONWriter().string(from: encode(model)).utf8).write(to: url, options: .atomic)
    }
}
