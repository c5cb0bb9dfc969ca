import Foundation
import Whereabouts

/// Reads Google's location history, in the shapes it has been given out:
/// - **Records.json** (Takeout until 2024): `{"locations": [...]}`, each a fix with `latitudeE7`,
///   `longitudeE7`, `timestamp` (or `timestampMs`), `accuracy`, `altitude`,
///   `verticalAccuracy`, `velocity`, `heading`, `source`, `deviceTag`;
/// - **Semantic Location History** (Takeout's monthly files): `{"timelineObjects": [...]}`, each
///   a `placeVisit` (a position over the visit's duration) or an `activitySegment` (its start,
///   its raw path's points and its end);
/// - **Timeline.json** (the phone's own export since 2024): `semanticSegments` (visits,
///   activities' ends and timeline paths, points written `"48.1°, 11.5°"`) and `rawSignals`
///   (positions); iOS writes a top-level array of segments with points as `geo:48.1,11.5` and
///   path times as minutes after the segment's start.
///
/// Each fix becomes a position (accuracy and altitude in metres, speed in m/s, heading in
/// degrees), with what Google said about it (`source`, `deviceTag`, a visit's place) in
/// `clientData.takeout`. Activities' kinds, Wi-Fi scans and profiles are passed over. A
/// record is named by its line in the file. The file is mapped, not read: only one record is
/// a value at a time.
enum GoogleTakeoutReader {
    /// The largest record read: 64 MiB (a day's path is a few kilobytes).
    static let largestRecord = 64 << 20

    /// The top-level arrays read.
    static let arrays: Set<String> = ["locations", "timelineObjects", "semanticSegments", "rawSignals"]

    /// Reads `file` into `sink`.
    static func read(_ file: String, into sink: inout ImportSink) async throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped) } catch {
            sink.refuse(file, 0, "cannot be read (\(error.localizedDescription))")
            return
        }
        let elements: [JSONArrayElements.Element]
        do {
            elements = try data.withUnsafeBytes { bytes throws(JSONArrayElements.Malformed) in
                try JSONArrayElements.elements(of: bytes, in: arrays)
            }
        } catch {
            sink.refuse(file, 0, "not JSON Google wrote: \(error)")
            return
        }
        guard !elements.isEmpty else {
            sink.refuse(file, 0, "holds no location history (no locations, timelineObjects, semanticSegments or rawSignals)")
            return
        }
        var line = 1, counted = 0
        for element in elements {
            line += data[counted..<element.range.lowerBound].reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
            counted = element.range.lowerBound
            guard element.range.count <= largestRecord else {
                sink.refuse(file, line, "a record of \(element.range.count) bytes, more than 64 MiB")
                continue
            }
            let value: JSONValue
            do { value = try JSONParser.parse(data[element.range]) } catch {
                sink.refuse(file, line, "its JSON does not parse (\(error))")
                continue
            }
            let positions: [ImportedPosition]
            do {
                positions = try Self.positions(in: value, array: element.key)
            } catch {
                sink.refuse(file, line, error.reason)
                continue
            }
            if positions.isEmpty { sink.passOver() }
            for position in positions {
                // A visit and a fix at the same place and time are two events.
                try await sink.add(position, file: file, line: line) { content in
                    ImportedPosition.identifier(prefix: "gt", name: position.duration > 0 ? "visit" : nil, time: position.time, content: content)
                }
            }
        }
    }

    /// Why a record is not a position.
    struct Refused: Error {
        var reason: String
    }

    /// The positions of one record of `array` (`""`: iOS's top-level array).
    static func positions(in record: JSONValue, array: String) throws(Refused) -> [ImportedPosition] {
        guard case .object = record else { throw Refused(reason: "a record must be a JSON object") }
        switch array {
        case "locations": return [try recordsFix(record)]
        case "timelineObjects": return try semanticHistory(record)
        case "rawSignals":
            guard let position = record["position"] else { return [] }
            return [try rawSignal(position)]
        default: return try timelineSegment(record)
        }
    }

    // MARK: Records.json

    private static func recordsFix(_ record: JSONValue) throws(Refused) -> ImportedPosition {
        guard let (latitude, longitude) = e7(record, "latitudeE7", "longitudeE7") else {
            throw Refused(reason: "a location needs latitudeE7 and longitudeE7")
        }
        guard let time = time(record, text: "timestamp", milliseconds: "timestampMs") else {
            throw Refused(reason: "a location needs a timestamp (ISO 8601) or timestampMs")
        }
        var position = ImportedPosition(latitude: latitude, longitude: longitude, time: time)
        position.horizontalAccuracy = record["accuracy"]?.numberValue
        position.altitude = record["altitude"]?.numberValue
        position.verticalAccuracy = record["verticalAccuracy"]?.numberValue
        position.speed = record["velocity"]?.numberValue.flatMap { $0 >= 0 ? $0 : nil }
        position.bearing = record["heading"]?.numberValue.flatMap { (0...360).contains($0) ? $0 : nil }
        position.clientData = takeout(record, keys: ["source", "deviceTag", "platformType"])
        return position
    }

    // MARK: Semantic Location History

    private static func semanticHistory(_ record: JSONValue) throws(Refused) -> [ImportedPosition] {
        if let visit = record["placeVisit"] {
            guard let location = visit["location"], let (latitude, longitude) = e7(location, "latitudeE7", "longitudeE7") else {
                throw Refused(reason: "a placeVisit needs location.latitudeE7 and longitudeE7")
            }
            guard let duration = visit["duration"],
                  let start = time(duration, text: "startTimestamp", milliseconds: "startTimestampMs") else {
                throw Refused(reason: "a placeVisit needs duration.startTimestamp")
            }
            let end = time(duration, text: "endTimestamp", milliseconds: "endTimestampMs") ?? start
            var position = ImportedPosition(latitude: latitude, longitude: longitude, time: start)
            position.duration = max(0, end - start)
            position.clientData = .object([("takeout", .object([("visit", takeoutMembers(location, keys: ["name", "address", "placeId"]))]))])
            return [position]
        }
        guard let segment = record["activitySegment"] else { return [] }
        var positions: [ImportedPosition] = []
        let duration = segment["duration"]
        let start = duration.flatMap { time($0, text: "startTimestamp", milliseconds: "startTimestampMs") }
        let end = duration.flatMap { time($0, text: "endTimestamp", milliseconds: "endTimestampMs") }
        if let start, let location = segment["startLocation"], let (latitude, longitude) = e7(location, "latitudeE7", "longitudeE7") {
            positions.append(ImportedPosition(latitude: latitude, longitude: longitude, time: start))
        }
        if case .array(let points)? = segment["simplifiedRawPath"]?["points"] {
            for point in points {
                guard let (latitude, longitude) = e7(point, "latE7", "lngE7") ?? e7(point, "latitudeE7", "longitudeE7"),
                      let time = time(point, text: "timestamp", milliseconds: "timestampMs") else { continue }
                var position = ImportedPosition(latitude: latitude, longitude: longitude, time: time)
                position.horizontalAccuracy = point["accuracyMeters"]?.numberValue
                positions.append(position)
            }
        }
        if let end, let location = segment["endLocation"], let (latitude, longitude) = e7(location, "latitudeE7", "longitudeE7") {
            positions.append(ImportedPosition(latitude: latitude, longitude: longitude, time: end))
        }
        return positions
    }

    // MARK: Timeline.json

    private static func rawSignal(_ position: JSONValue) throws(Refused) -> ImportedPosition {
        guard case .string(let text)? = position["LatLng"] ?? position["latLng"], let (latitude, longitude) = latLng(text) else {
            throw Refused(reason: "a raw signal's position needs LatLng (\"48.1°, 11.5°\")")
        }
        guard case .string(let stamp)? = position["timestamp"], let time = ISO8601Time.seconds(in: stamp) else {
            throw Refused(reason: "a raw signal's position needs a timestamp (ISO 8601)")
        }
        var fix = ImportedPosition(latitude: latitude, longitude: longitude, time: time)
        fix.horizontalAccuracy = position["accuracyMeters"]?.numberValue
        fix.altitude = position["altitudeMeters"]?.numberValue
        fix.speed = position["speedMetersPerSecond"]?.numberValue.flatMap { $0 >= 0 ? $0 : nil }
        fix.clientData = takeout(position, keys: ["source"])
        return fix
    }

    private static func timelineSegment(_ segment: JSONValue) throws(Refused) -> [ImportedPosition] {
        let start = (segment["startTime"]?.stringValue).flatMap(ISO8601Time.seconds(in:))
        let end = (segment["endTime"]?.stringValue).flatMap(ISO8601Time.seconds(in:))
        var positions: [ImportedPosition] = []
        if let visit = segment["visit"] {
            let candidate = visit["topCandidate"]
            let place = candidate?["placeLocation"]
            guard let text = place?["latLng"]?.stringValue ?? place?.stringValue, let (latitude, longitude) = latLng(text) else {
                throw Refused(reason: "a visit needs topCandidate.placeLocation")
            }
            guard let start else { throw Refused(reason: "a visit needs a startTime (ISO 8601)") }
            var position = ImportedPosition(latitude: latitude, longitude: longitude, time: start)
            position.duration = max(0, (end ?? start) - start)
            if let candidate {
                position.clientData = .object([("takeout", .object([("visit", takeoutMembers(candidate, keys: ["placeId", "placeID", "semanticType"]))]))])
            }
            positions.append(position)
        }
        if let activity = segment["activity"] {
            for (key, time) in [("start", start), ("end", end)] {
                guard let time, let text = activity[key]?["latLng"]?.stringValue ?? activity[key]?.stringValue,
                      let (latitude, longitude) = latLng(text) else { continue }
                positions.append(ImportedPosition(latitude: latitude, longitude: longitude, time: time))
            }
        }
        if case .array(let path)? = segment["timelinePath"] {
            for point in path {
                guard let text = point["point"]?.stringValue, let (latitude, longitude) = latLng(text) else { continue }
                let time: Double?
                if let stamp = point["time"]?.stringValue {
                    time = ISO8601Time.seconds(in: stamp)
                } else if let minutes = point["durationMinutesOffsetFromStartTime"].flatMap(number), let start {
                    time = start + minutes * 60
                } else {
                    time = nil
                }
                guard let time else { continue }
                positions.append(ImportedPosition(latitude: latitude, longitude: longitude, time: time))
            }
        }
        return positions
    }

    // MARK: Fields

    /// Degrees from Google's E7 integers; values written past 2³¹ (an old Takeout bug) are
    /// wrapped back.
    private static func e7(_ object: JSONValue, _ latitudeKey: String, _ longitudeKey: String) -> (Double, Double)? {
        guard var latitude = object[latitudeKey].flatMap(number), var longitude = object[longitudeKey].flatMap(number) else { return nil }
        if latitude > 900_000_000 { latitude -= 4_294_967_296 }
        if longitude > 1_800_000_000 { longitude -= 4_294_967_296 }
        return (latitude / 1e7, longitude / 1e7)
    }

    /// `48.1234567°, 11.1234567°` or `geo:48.1234567,11.1234567`.
    static func latLng(_ text: String) -> (Double, Double)? {
        var text = Substring(text)
        if text.hasPrefix("geo:") { text = text.dropFirst(4) }
        let parts = text.split(separator: ",", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        func degrees(_ part: Substring) -> Double? {
            Double(part.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "°", with: ""))
        }
        guard let latitude = degrees(parts[0]), let longitude = degrees(parts[1]) else { return nil }
        return (latitude, longitude)
    }

    /// A number, or a number written as a string (Takeout writes `timestampMs` so).
    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let number): number
        case .string(let text): Double(text)
        default: nil
        }
    }

    /// Seconds since 1970 from an ISO 8601 member, else a milliseconds one.
    private static func time(_ object: JSONValue, text: String, milliseconds: String) -> Double? {
        if case .string(let stamp)? = object[text] { return ISO8601Time.seconds(in: stamp) }
        return object[milliseconds].flatMap(number).map { $0 / 1_000 }
    }

    /// `{"takeout": {…}}` with the members of `object` under `keys` that are strings or numbers.
    private static func takeout(_ object: JSONValue, keys: [String]) -> JSONValue? {
        guard case .object(let members) = takeoutMembers(object, keys: keys), !members.isEmpty else { return nil }
        return .object([("takeout", .object(members))])
    }

    private static func takeoutMembers(_ object: JSONValue, keys: [String]) -> JSONValue {
        .object(keys.compactMap { key in
            switch object[key] {
            case .string(let text)?: (key, .string(String(text.prefix(500))))
            case .number(let number)?: (key, .number(number))
            default: nil
            }
        })
    }
}

extension JSONValue {
    /// The number, when this is one.
    fileprivate var numberValue: Double? { if case .number(let number) = self { number } else { nil } }
    /// The string, when this is one.
    fileprivate var stringValue: String? { if case .string(let text) = self { text } else { nil } }
}
