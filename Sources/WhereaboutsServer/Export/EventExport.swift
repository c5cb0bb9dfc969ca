import Foundation
import Whereabouts

/// Writing a user's positions as a track for other tools: GeoJSON, GPX or CSV.
///
/// Only `position/wgs84` events are exported, ordered by time (oldest first, ties by id). The
/// formats are one file each:
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

        /// The file for `events` (positions only, ordered by time).
        public func render(_ events: [Event]) -> String {
            let positions = EventExport.positions(in: events)
            switch self {
            case .geojson: return EventExport.geoJSON(positions)
            case .gpx: return EventExport.gpx(positions)
            case .csv: return EventExport.csv(positions)
            }
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
    }

    /// The positions among `events`, oldest first (ties by id).
    public static func positions(in events: [Event]) -> [Position] {
        events.compactMap { event -> Position? in
            guard event.type == "position/wgs84", let content = event.content,
                  case .number(let latitude)? = content["latitude"], case .number(let longitude)? = content["longitude"]
            else { return nil }
            func number(_ key: String) -> Double? { if case .number(let n)? = content[key] { n } else { nil } }
            return Position(event: event, latitude: latitude, longitude: longitude, altitude: number("altitude"),
                            horizontalAccuracy: number("horizontalAccuracy"), verticalAccuracy: number("verticalAccuracy"),
                            speed: number("speed"), bearing: number("bearing"))
        }
        .sorted { ($0.event.time, $0.event.id) < ($1.event.time, $1.event.id) }
    }

    /// `seconds` since 1970 as ISO 8601 UTC with milliseconds, e.g. `2023-11-14T22:13:20.000Z`.
    public static func isoTime(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    static func geoJSON(_ positions: [Position]) -> String {
        func coordinates(_ p: Position) -> JSONValue {
            .array([.number(p.longitude), .number(p.latitude)] + (p.altitude.map { [.number($0)] } ?? []))
        }
        var features: [JSONValue] = []
        if positions.count >= 2 {
            features.append(.object([
                ("type", .string("Feature")),
                ("geometry", .object([("type", .string("LineString")), ("coordinates", .array(positions.map(coordinates)))])),
                ("properties", .object([
                    ("kind", .string("track")),
                    ("start", .string(isoTime(positions[0].event.time))),
                    ("end", .string(isoTime(positions[positions.count - 1].event.time))),
                ])),
            ]))
        }
        for p in positions {
            var properties: [(key: String, value: JSONValue)] = [
                ("kind", .string("position")), ("id", .string(p.event.id)),
                ("time", .string(isoTime(p.event.time))), ("timestamp", .number(p.event.time)),
                ("streamIds", .array(p.event.streamIds.map(JSONValue.string))),
            ]
            for (key, value) in [("horizontalAccuracy", p.horizontalAccuracy), ("verticalAccuracy", p.verticalAccuracy),
                                 ("speed", p.speed), ("bearing", p.bearing)] {
                if let value { properties.append((key, .number(value))) }
            }
            features.append(.object([
                ("type", .string("Feature")),
                ("geometry", .object([("type", .string("Point")), ("coordinates", coordinates(p))])),
                ("properties", .object(properties)),
            ]))
        }
        return JSONWriter().string(from: .object([("type", .string("FeatureCollection")), ("features", .array(features))])) + "\n"
    }

    static func gpx(_ positions: [Position]) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Whereabouts \(WhereaboutsInfo.version)" xmlns="http://www.topografix.com/GPX/1/1">
              <trk>
                <name>Whereabouts track</name>
                <trkseg>

            """
        for p in positions {
            out += "      <trkpt lat=\"\(number(p.latitude))\" lon=\"\(number(p.longitude))\">"
            if let altitude = p.altitude { out += "<ele>\(number(altitude))</ele>" }
            out += "<time>\(isoTime(p.event.time))</time>"
            if let accuracy = p.horizontalAccuracy { out += "<desc>accuracy \(number(accuracy)) m</desc>" }
            out += "</trkpt>\n"
        }
        out += "    </trkseg>\n  </trk>\n</gpx>\n"
        return out
    }

    static func csv(_ positions: [Position]) -> String {
        var out = "time,timestamp,latitude,longitude,altitude,horizontalAccuracy,verticalAccuracy,speed,bearing,id,streamIds\r\n"
        for p in positions {
            let fields: [String] = [
                isoTime(p.event.time), number(p.event.time), number(p.latitude), number(p.longitude),
                p.altitude.map(number) ?? "", p.horizontalAccuracy.map(number) ?? "", p.verticalAccuracy.map(number) ?? "",
                p.speed.map(number) ?? "", p.bearing.map(number) ?? "", csvField(p.event.id),
                csvField(p.event.streamIds.joined(separator: " ")),
            ]
            out += fields.joined(separator: ",") + "\r\n"
        }
        return out
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
