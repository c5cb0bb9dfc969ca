import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Whereabouts

/// Reads a GPX file (1.0 or 1.1): each track point (`trkpt`) becomes a position — `lat`, `lon`,
/// `ele` as altitude, `time`, and the speed (m/s) and course (degrees) GPX 1.0 writes in the
/// point and Garmin's TrackPointExtension in its `extensions` — with the track's name in
/// `clientData.gpx`. Waypoints and route points are plans or marks, not where someone was:
/// passed over. A track point without a time or a valid position is refused, named by its line.
///
/// The file is parsed by libxml2 (Foundation's `XMLParser`), external entities unresolved; a
/// file is read whole, so one larger than ``largestFile`` is refused (split it, as GPX tools do).
enum GPXReader {
    /// The largest GPX file read: 1 GiB.
    static let largestFile = 1 << 30

    /// Reads `file` into `sink`.
    static func read(_ file: String, into sink: inout ImportSink) async throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        guard size <= largestFile else {
            sink.refuse(file, 0, "larger than 1 GiB (\(size) bytes): split it into several files")
            return
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            sink.refuse(file, 0, "cannot be read")
            return
        }
        let points = GPXPoints()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = points
        let parsed = parser.parse()
        for record in points.records {
            switch record {
            case .position(let position, let line):
                try await sink.add(position, file: file, line: line) { content in
                    ImportedPosition.identifier(prefix: "gpx", name: nil, time: position.time, content: content)
                }
            case .passedOver:
                sink.passOver()
            case .refused(let line, let reason):
                sink.refuse(file, line, reason)
            }
        }
        if let error = points.error {
            sink.refuse(file, error.line, "not well-formed XML, read up to here (\(error.reason))")
        } else if !parsed {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "the parser stopped"
            sink.refuse(file, parser.lineNumber, "not well-formed XML, read up to here (\(reason))")
        } else if points.openElements > 0 {
            sink.refuse(file, parser.lineNumber, "ends before its elements close (a file cut short?): read up to here")
        } else if !points.sawGPX {
            sink.refuse(file, 0, "not a GPX file (its root element is not <gpx>)")
        }
    }
}

/// What a GPX file holds, collected as `XMLParser` reads it.
private final class GPXPoints: NSObject, XMLParserDelegate {
    enum Record {
        case position(ImportedPosition, line: Int)
        case passedOver
        case refused(line: Int, reason: String)
    }

    private(set) var records: [Record] = []
    private(set) var sawGPX = false
    /// The first error the parser reported: its line and what.
    private(set) var error: (line: Int, reason: String)?
    /// Elements begun and not yet ended.
    private(set) var openElements = 0
    /// The point being read: its kind, line, coordinates and what its children said.
    private var point: (kind: String, line: Int, latitude: Double?, longitude: Double?)?
    private var fields: [String: String] = [:]
    private var trackName: String?
    private var inTrack = false
    private var text = ""
    private var depthInPoint = 0

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        let name = Self.localName(elementName)
        text = ""
        openElements += 1
        if point != nil { depthInPoint += 1; return }
        switch name {
        case "gpx": sawGPX = true
        case "trk": inTrack = true; trackName = nil
        case "trkpt", "rtept", "wpt":
            point = (name, parser.lineNumber, attributes["lat"].flatMap(Double.init), attributes["lon"].flatMap(Double.init))
            fields = [:]
            depthInPoint = 0
        default: break
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard error == nil else { return }
        let code = (parseError as NSError).code
        // libxml2's error numbers, which Foundation's XMLParser.ErrorCode mirrors.
        let reason = switch code {
        case 5: "it ends before its elements close: a file cut short?"
        case 76: "a closing tag does not match the element open"
        case 4: "it is empty"
        case 9, 31, 32: "a character its encoding does not allow"
        default: "XML parser error \(code)"
        }
        error = (parser.lineNumber, reason)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if text.utf8.count < 1_000 { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        let name = Self.localName(elementName)
        openElements -= 1
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        text = ""
        if let current = point {
            if depthInPoint > 0 {
                depthInPoint -= 1
                // ele, time, speed, course: in the point (GPX 1.0) or in its extensions (1.1).
                if ["ele", "time", "speed", "course"].contains(name), fields[name] == nil { fields[name] = value }
                return
            }
            point = nil
            guard current.kind == "trkpt" else { records.append(.passedOver); return }
            records.append(Self.record(current, fields: fields, track: inTrack ? trackName : nil))
            return
        }
        switch name {
        case "name" where inTrack && trackName == nil: trackName = String(value.prefix(200))
        case "trk": inTrack = false
        default: break
        }
    }

    private static func record(_ point: (kind: String, line: Int, latitude: Double?, longitude: Double?),
                               fields: [String: String], track: String?) -> Record {
        guard let latitude = point.latitude, let longitude = point.longitude else {
            return .refused(line: point.line, reason: "a track point needs numeric lat and lon attributes")
        }
        guard let timeText = fields["time"] else {
            return .refused(line: point.line, reason: "a track point without a <time> cannot be placed in a history")
        }
        guard let time = ISO8601Time.seconds(in: timeText) else {
            return .refused(line: point.line, reason: "its <time> \(timeText.prefix(40).debugDescription) is not an ISO 8601 date-time with a time zone")
        }
        var position = ImportedPosition(latitude: latitude, longitude: longitude, time: time)
        position.altitude = fields["ele"].flatMap(Double.init)
        position.speed = fields["speed"].flatMap(Double.init).flatMap { $0 >= 0 ? $0 : nil }
        position.bearing = fields["course"].flatMap(Double.init).flatMap { (0...360).contains($0) ? $0 : nil }
        if let track { position.clientData = .object([("gpx", .object([("track", .string(track))]))]) }
        return .position(position, line: point.line)
    }

    /// `gpxtpx:speed` → `speed` (when the parser left a prefix).
    private static func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }
}
