import Foundation

/// Converts between ``Fix`` and its JSON Lines form: the fixes file that `whereabouts locate`
/// writes, one fix a line.
///
/// ```json
/// {"t": 1700000012, "device": "phone", "x": 2.913, "y": 1.842, "z": 1.2, "floor": 0, "accuracy": 1.35, "latitude": 41.3550165, "longitude": 2.1320348, "method": "centroid", "beacons": ["node1", "node4", "node2"]}
/// ```
///
/// - `t` (required): the time of the scan the fix answers, seconds, on the recording's clock.
/// - `device` (optional): the recording's `device`, when the scan named one.
/// - `x`, `y` (required), `z`: the position in the venue's local frame and units; `z` is the
///   receiver height the solver assumed or found (read as 0 when absent).
/// - `floor` (optional): the floor level, when known.
/// - `floorProbability` (optional): the probability of that floor, 0…1, when the algorithm holds
///   the floor in a posterior (``Fix/floorProbability``).
/// - `accuracy` (required): radius in venue units expected to hold the truth 68 % of the time.
/// - `latitude`, `longitude` (optional, together): WGS84 degrees, when the venue has an origin.
/// - `method` (optional, read as `""` when absent): the algorithm that produced the fix.
/// - `beacons` (optional, read as empty): venue ids of the beacons the fix used.
/// - `places` (optional): the probability of each place of the fix's floor, most probable
///   first, `[{"id": "kitchen", "probability": 0.82}, …]`, when the algorithm holds a posterior
///   over positions (``Fix/placeProbabilities``; an estimate of no place is left out); each
///   probability 0…1.
///
/// Scans that get no fix get no line. Unknown keys are ignored; a missing required key or a wrong
/// type is a ``FormatError`` naming the key.
///
/// ```swift
/// let line = FixCoding.line(for: fix, decimalPlaces: 3)
/// let back = try FixCoding.decode(JSONParser.parse(line))
/// ```
public enum FixCoding {
    /// The JSON value of a fix, keys in the documented order. With `decimalPlaces`, lengths (`x`,
    /// `y`, `z`, `accuracy`) are rounded to that many decimals and `latitude`/`longitude` to five
    /// more (10⁻⁵ degree is about a metre); the time is never rounded.
    public static func encode(_ fix: Fix, decimalPlaces: Int? = nil) -> JSONValue {
        func length(_ value: Double) -> JSONValue { .number(rounded(value, decimalPlaces)) }
        func angle(_ value: Double) -> JSONValue { .number(rounded(value, decimalPlaces.map { $0 + 5 })) }
        var members: [(key: String, value: JSONValue)] = [("t", .number(fix.time))]
        if let device = fix.device { members.append(("device", .string(device))) }
        members.append(("x", length(fix.point.x)))
        members.append(("y", length(fix.point.y)))
        members.append(("z", length(fix.point.z)))
        if let floor = fix.floor { members.append(("floor", .number(Double(floor)))) }
        if let probability = fix.floorProbability {
            members.append(("floorProbability", .number(rounded(probability, decimalPlaces.map { $0 + 1 }))))
        }
        members.append(("accuracy", length(fix.accuracy)))
        if let coordinate = fix.coordinate {
            members.append(("latitude", angle(coordinate.latitude)))
            members.append(("longitude", angle(coordinate.longitude)))
        }
        members.append(("method", .string(fix.method)))
        members.append(("beacons", .array(fix.beacons.map { .string($0) })))
        if let places = fix.placeProbabilities {
            members.append(("places", .array(places.compactMap { estimate in
                estimate.place.map { id in
                    .object([("id", .string(id)), ("probability", .number(rounded(estimate.probability, decimalPlaces.map { $0 + 1 })))])
                }
            })))
        }
        return .object(members)
    }

    /// One line of JSON (no newline) for a fix.
    public static func line(for fix: Fix, decimalPlaces: Int? = nil) -> String {
        JSONWriter().string(from: encode(fix, decimalPlaces: decimalPlaces))
    }

    /// Decodes one fix. Unknown keys are ignored; a missing required key or a wrong type is a
    /// ``FormatError`` naming the key (the caller adds the file and line).
    public static func decode(_ value: JSONValue) throws(FormatError) -> Fix {
        let root = JSONReader(value)
        _ = try root.object()
        let time = try root.required("t").double()
        let x = try root.required("x").double()
        let y = try root.required("y").double()
        let z = try root.optionalDouble("z") ?? 0
        let accuracy = try root.required("accuracy").double()
        let latitude = try root.optionalDouble("latitude"), longitude = try root.optionalDouble("longitude")
        if (latitude == nil) != (longitude == nil) {
            throw root.fail("\"latitude\" and \"longitude\" must be given together")
        }
        var floorProbability: Double?
        if let field = root.member("floorProbability") {
            let probability = try field.double()
            guard probability.isFinite, probability >= 0, probability <= 1 else {
                throw field.fail("a probability must be between 0 and 1, not \(probability)")
            }
            floorProbability = probability
        }
        var beacons: [String] = []
        if let list = root.member("beacons") {
            for item in try list.elements() { beacons.append(try item.string()) }
        }
        return Fix(time: time, device: try root.optionalString("device"), point: SpatialPoint(x: x, y: y, z: z),
                   floor: try root.optionalInt("floor"), accuracy: accuracy,
                   coordinate: latitude.flatMap { lat in longitude.map { GeoCoordinate(latitude: lat, longitude: $0) } },
                   beacons: beacons, method: try root.optionalString("method") ?? "",
                   placeProbabilities: try root.member("places").map(decodePlaces), floorProbability: floorProbability)
    }

    /// The `places` of a fix: objects of an `id` and a `probability` in 0…1.
    private static func decodePlaces(_ list: JSONReader) throws(FormatError) -> [PlaceEstimate] {
        var places: [PlaceEstimate] = []
        for item in try list.elements() {
            let field = try item.required("probability")
            let probability = try field.double()
            guard probability.isFinite, probability >= 0, probability <= 1 else {
                throw field.fail("a probability must be between 0 and 1, not \(probability)")
            }
            places.append(PlaceEstimate(place: try item.required("id").string(), probability: probability))
        }
        return places
    }

    /// Decodes one line of a fixes file.
    public static func decode(line: String) throws(FormatError) -> Fix {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw FormatError(syntax: error, advice: "each line of a fixes file is one fix, a JSON object (FORMATS.md §5)")
        }
        return try decode(value)
    }

    private static func rounded(_ value: Double, _ decimalPlaces: Int?) -> Double {
        guard let decimalPlaces, value.isFinite else { return value }
        let scale = pow(10, Double(max(0, min(decimalPlaces, 15))))
        let result = (value * scale).rounded() / scale
        return result.isFinite ? result : value
    }
}

/// Writes fixes (see ``FixCoding``) one a line through a buffer: memory stays constant however
/// many fixes are written.
///
/// Call ``finish()`` when done: it writes what is buffered and, for a file, moves the finished
/// file into place, so that a reader never sees a half-written file under the final name.
///
/// ```swift
/// let writer = try FixWriter(url: URL(fileURLWithPath: "fixes.jsonl"))
/// if let fix = locator.locate(scan) { try writer.write(fix) }
/// try writer.finish()
/// ```
public final class FixWriter {
    private let lines: JSONLinesWriter

    /// Decimal places of lengths (see ``FixCoding/encode(_:decimalPlaces:)``); `nil` keeps full precision.
    public let decimalPlaces: Int?
    /// Fixes written so far.
    public var fixesWritten: Int { lines.linesWritten }

    /// Creates (or replaces, on ``finish()``) the file at `url`; lengths are written to
    /// `decimalPlaces` decimals (millimetres in a metre venue by default).
    public init(url: URL, decimalPlaces: Int? = 3) throws {
        lines = try JSONLinesWriter(url: url)
        self.decimalPlaces = decimalPlaces
    }

    /// Creates (or empties) the file at `url` and writes into it directly, so that a reader sees
    /// each fix once it is flushed: the output of a live source.
    public init(appendingTo url: URL, decimalPlaces: Int? = 3) throws {
        lines = try JSONLinesWriter(appendingLinesTo: url)
        self.decimalPlaces = decimalPlaces
    }

    /// Writes to an open handle (standard output, a pipe); ``finish()`` flushes but does not close it.
    public init(handle: FileHandle, decimalPlaces: Int? = 3) {
        lines = JSONLinesWriter(handle: handle)
        self.decimalPlaces = decimalPlaces
    }

    /// Appends one fix.
    public func write(_ fix: Fix) throws {
        try lines.write(FixCoding.encode(fix, decimalPlaces: decimalPlaces))
    }

    /// Writes the buffered lines out.
    public func flush() throws {
        try lines.flush()
    }

    /// Flushes, and for a file closes it and moves it to its final name.
    public func finish() throws {
        try lines.finish()
    }
}
