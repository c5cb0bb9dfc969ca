import Foundation
import Whereabouts

/// Writing a user's positions as a track for other tools: GeoJSON, GPX or CSV.
///
/// Only `position/wgs84` events are exported, ordered by time (oldest first; positions with the
/// same time in the order the server received them). The formats are one file each:
/// - **GeoJSON** (RFC 7946): a FeatureCollection with one `LineString` feature for the track
///   (when it has two points or more) and one `Point` feature per position whose properties
///   hold the time (ISO 8601 and seconds), the event id, streams and the optional fields.
/// - **GPX 1.1**: one `trk` with one `trkseg` of `trkpt`s (`ele`, `time`, and the accuracy as
///   `hdop`-free `<desc>`).
/// - **CSV** (RFC 4180): a header line and one line per position.
///
/// ```swift
/// let file = EventExport.Format.gpx.render(events)
/// print(file.mediaType)   // "application/gpx+xml"
/// ```
///
/// A long track is written as it is read, a chunk at a time, by ``Writer`` (which `render` uses
/// too), or straight from a store by ``write(_:reading:from:userName:to:)``: memory holds one chunk,
/// whatever the track's length.
public enum EventExport {
    /// An export format.
    public enum Format: String, Sendable, CaseIterable {
        /// GeoJSON FeatureCollection.
        case geojson
        /// GPX 1.1.
        case gpx
        /// Comma-separated values.
        case csv

        /// The media type to serve the file with.
        public var mediaType: String {
            switch self {
            case .geojson: "application/geo+json"
            case .gpx: "application/gpx+xml"
            case .csv: "text/csv; charset=utf-8"
            }
        }

        /// The usual file name extension.
        public var fileExtension: String { rawValue }

        /// The file for `events` (positions only, ordered by time; equal times keep the order
        /// they have in `events`).
        public func render(_ events: [Event]) -> String {
            let positions = EventExport.positions(in: events)
            var writer = Writer(format: self)
            var text = ""
            for pass in 0..<writer.passCount {
                text += writer.begin(pass: pass)
                text += writer.write(positions)
                text += writer.end()
            }
            return text
        }
    }

    /// A position read from a `position/wgs84` event.
    public struct Position: Sendable, Equatable {
        /// The event.
        public var event: Event
        /// Degrees north.
        public var latitude: Double
        /// Degrees east.
        public var longitude: Double
        /// Metres above the WGS84 ellipsoid, if known.
        public var altitude: Double?
        /// Horizontal accuracy in metres, if known.
        public var horizontalAccuracy: Double?
        /// Vertical accuracy in metres, if known.
        public var verticalAccuracy: Double?
        /// Speed in m/s, if known.
        public var speed: Double?
        /// Bearing in degrees from north, if known.
        public var bearing: Double?

        /// The position an event holds: `nil` unless it is a `position/wgs84` event with a
        /// numeric latitude and longitude.
        public init?(_ event: Event) {
            guard event.type == "position/wgs84", let content = event.content,
                  case .number(let latitude)? = content["latitude"], case .number(let longitude)? = content["longitude"]
            else { return nil }
            func number(_ key: String) -> Double? { if case .number(let n)? = content[key] { n } else { nil } }
            self.event = event
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = number("altitude")
            self.horizontalAccuracy = number("horizontalAccuracy")
            self.verticalAccuracy = number("verticalAccuracy")
            self.speed = number("speed")
            self.bearing = number("bearing")
        }
    }

    /// The positions among `events`, oldest first (equal times in the order of `events`).
    public static func positions(in events: [Event]) -> [Position] {
        events.compactMap(Position.init).enumerated()
            .sorted { ($0.element.event.time, $0.offset) < ($1.element.event.time, $1.offset) }
            .map(\.element)
    }

    /// Writes the export of the events `query` matches in `store` to `sink`, a chunk at a time,
    /// oldest first; returns how many positions were written. The query is read in ascending
    /// order whatever its `sortAscending` says, its `skip` and `limit` applying in that order.
    /// GeoJSON reads the store twice (the track's line first, then its points).
    public static func write(
        _ format: Format, reading query: EventQuery, from store: any EventStore, userName: String,
        to sink: (String) async throws -> Void
    ) async throws -> Int {
        var query = query
        query.sortAscending = true
        var writer = Writer(format: format)
        var written = 0
        for pass in 0..<writer.passCount {
            try await sink(writer.begin(pass: pass))
            var reader = EventReader(store: store, userName: userName, query: query, pageSize: 1_000)
            written = 0
            while let events = try await reader.next() {
                let positions = events.compactMap(Position.init)
                written += positions.count
                try await sink(writer.write(positions))
            }
            try await sink(writer.end())
        }
        return written
    }

    /// `seconds` since 1970 as ISO 8601 UTC with milliseconds, e.g. `2023-11-14T22:13:20.000Z`
    /// (rounded to the nearest millisecond, as Foundation's ISO 8601 formatter rounds them).
    public static func isoTime(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e13 else { return "" }
        let milliseconds = Int((seconds * 1000).rounded())
        let millisecond = ((milliseconds % 1_000) + 1_000) % 1_000
        let (days, secondOfDay) = CivilDate.split(seconds: (milliseconds - millisecond) / 1_000)
        let date = CivilDate(daysSince1970: days)
        func digits(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return "\(digits(date.year, 4))-\(digits(date.month, 2))-\(digits(date.day, 2))T"
            + "\(digits(secondOfDay / 3_600, 2)):\(digits(secondOfDay / 60 % 60, 2)):\(digits(secondOfDay % 60, 2))."
            + "\(digits(millisecond, 3))Z"
    }

    /// An export written a chunk at a time: for each pass (``passCount``), ``begin(pass:)``,
    /// ``write(_:)`` with every position in time order, then ``end()``; the texts returned,
    /// concatenated, are the file. GeoJSON takes two passes over the positions (the track's line,
    /// then the points); GPX and CSV one.
    public struct Writer: Sendable {
        /// The format written.
        public let format: Format
        private var pass = 0
        private var count = 0
        private var first: Position?
        private var lastTime = 0.0
        private var hasTrack = false

        /// Creates a writer.
        public init(format: Format) {
            self.format = format
        }

        /// How many times the positions are written.
        public var passCount: Int { format == .geojson ? 2 : 1 }

        /// The text that starts pass `pass`.
        public mutating func begin(pass: Int) -> String {
            self.pass = pass
            count = 0
            switch (format, pass) {
            case (.geojson, 0): return #"{"type":"FeatureCollection","features":["#
            case (.geojson, _): return ""
            case (.gpx, _):
                return """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <gpx version="1.1" creator="Whereabouts \(WhereaboutsInfo.version)" xmlns="http://www.topografix.com/GPX/1/1">
                      <trk>
                        <name>Whereabouts track</name>
                        <trkseg>

                    """
            case (.csv, _):
                return "time,timestamp,latitude,longitude,altitude,horizontalAccuracy,verticalAccuracy,speed,bearing,id,streamIds\r\n"
            }
        }

        /// The text of the next positions (in time order, after those written before in this pass).
        public mutating func write(_ positions: [Position]) -> String {
            var out = ""
            for p in positions {
                switch (format, pass) {
                case (.geojson, 0): geoJSONTrackPoint(p, to: &out)
                case (.geojson, _): geoJSONPoint(p, to: &out)
                case (.gpx, _): EventExport.gpxPoint(p, to: &out)
                case (.csv, _): EventExport.csvLine(p, to: &out)
                }
                count += 1
            }
            return out
        }

        /// The text that ends the current pass (after the last pass, the file's end).
        public mutating func end() -> String {
            switch (format, pass) {
            case (.geojson, 0):
                guard count >= 2, let first else { return "" }
                hasTrack = true
                var out = #"]},"properties":"#
                JSONWriter().write(.object([
                    ("kind", .string("track")),
                    ("start", .string(isoTime(first.event.time))), ("end", .string(isoTime(lastTime))),
                ]), to: &out)
                return out + "}"
            case (.geojson, _): return "]}\n"
            case (.gpx, _): return "    </trkseg>\n  </trk>\n</gpx>\n"
            case (.csv, _): return ""
            }
        }

        private mutating func geoJSONTrackPoint(_ p: Position, to out: inout String) {
            lastTime = p.event.time
            switch count {
            case 0:
                first = p
            case 1:
                out += #"{"type":"Feature","geometry":{"type":"LineString","coordinates":["#
                if let first { JSONWriter().write(EventExport.coordinates(first), to: &out) }
                out += ","
                JSONWriter().write(EventExport.coordinates(p), to: &out)
            default:
                out += ","
                JSONWriter().write(EventExport.coordinates(p), to: &out)
            }
        }

        private mutating func geoJSONPoint(_ p: Position, to out: inout String) {
            if hasTrack || count > 0 { out += "," }
            var properties: [(key: String, value: JSONValue)] = [
                ("kind", .string("position")), ("id", .string(p.event.id)),
                ("time", .string(isoTime(p.event.time))), ("timestamp", .number(p.event.time)),
                ("streamIds", .array(p.event.streamIds.map(JSONValue.string))),
            ]
            for (key, value) in [("horizontalAccuracy", p.horizontalAccuracy), ("verticalAccuracy", p.verticalAccuracy),
                                 ("speed", p.speed), ("bearing", p.bearing)] {
                if let value { properties.append((key, .number(value))) }
            }
            JSONWriter().write(.object([
                ("type", .string("Feature")),
                ("geometry", .object([("type", .string("Point")), ("coordinates", EventExport.coordinates(p))])),
                ("properties", .object(properties)),
            ]), to: &out)
        }
    }

    private static func coordinates(_ p: Position) -> JSONValue {
        .array([.number(p.longitude), .number(p.latitude)] + (p.altitude.map { [.number($0)] } ?? []))
    }

    private static func gpxPoint(_ p: Position, to out: inout String) {
        out += "      <trkpt lat=\"\(number(p.latitude))\" lon=\"\(number(p.longitude))\">"
        if let altitude = p.altitude { out += "<ele>\(number(altitude))</ele>" }
        out += "<time>\(isoTime(p.event.time))</time>"
        if let accuracy = p.horizontalAccuracy { out += "<desc>accuracy \(number(accuracy)) m</desc>" }
        out += "</trkpt>\n"
    }

    private static func csvLine(_ p: Position, to out: inout String) {
        let fields: [String] = [
            isoTime(p.event.time), number(p.event.time), number(p.latitude), number(p.longitude),
            p.altitude.map(number) ?? "", p.horizontalAccuracy.map(number) ?? "", p.verticalAccuracy.map(number) ?? "",
            p.speed.map(number) ?? "", p.bearing.map(number) ?? "", csvField(p.event.id),
            csvField(p.event.streamIds.joined(separator: " ")),
        ]
        out += fields.joined(separator: ",") + "\r\n"
    }

    private static func number(_ value: Double) -> String {
        var text = ""
        JSONWriter.appendNumber(value, to: &text)
        return text
    }

    /// A CSV field, quoted when it holds a comma, quote or line break.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
