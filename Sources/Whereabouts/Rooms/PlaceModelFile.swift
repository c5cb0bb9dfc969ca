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

    /// Parses a model from JSON bytes; `file` names the source in errors.
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes, file: String? = nil) throws(FormatError) -> PlaceModel {
        try JSONDocument.decode(bytes, file: file, with: decode)
    }

    /// Builds a model from a parsed JSON value.
    public static func decode(_ value: JSONValue) throws(FormatError) -> PlaceModel {
        let root = JSONReader(value)
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
        } else {
            throw FormatError(key: "naiveBayes", message: "missing: a model holds \"naiveBayes\" or \"nearestNeighbours\"")
        }
        return PlaceModel(kind: kind, classifier: classifier, smoothing: smoothing, floorSmoothing: floorSmoothing, validationAccuracy: accuracy)
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
        let beacons: PlaceBeacons
        switch model.classifier {
        case .naiveBayes(let nb): beacons = nb.beacons
        case .nearestNeighbours(let knn): beacons = knn.beacons
        }
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
        }
        return .object(members)
    }

    /// Writes a model file atomically.
    public static func write(_ model: PlaceModel, to url: URL) throws {
        try Data(JSONWriter().string(from: encode(model)).utf8).write(to: url, options: .atomic)
    }
}
