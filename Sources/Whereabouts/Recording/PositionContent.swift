import Foundation

/// How a fix is written as an event's content.
///
/// - With latitude and longitude (a venue with an origin): type `position/wgs84`, content
///   `{latitude, longitude, horizontalAccuracy}` (metres), as Pryv's position tracker wrote it
///   (without its swap of horizontal and vertical accuracy).
/// - Without: type `position/local`, content `{x, y, accuracy}` in the venue's units, and `floor`
///   when known.
///
/// Both carry `clientData: {"whereabouts": {device, floor, method}}`.
public enum PositionContent {
    /// The type of a geographic position.
    public static let wgs84Type = "position/wgs84"
    /// The type of a position in venue coordinates.
    public static let localType = "position/local"

    /// The content for `fix`.
    public static func content(of fix: Fix, metresPerUnit: Double) -> JSONValue {
        if let coordinate = fix.coordinate {
            return .object([("latitude", .number(coordinate.latitude)), ("longitude", .number(coordinate.longitude)),
                            ("horizontalAccuracy", .number(fix.accuracy * metresPerUnit))])
        }
        var members: [(key: String, value: JSONValue)] = [("x", .number(fix.point.x)), ("y", .number(fix.point.y)),
                                                          ("accuracy", .number(fix.accuracy))]
        if let floor = fix.floor { members.append(("floor", .number(Double(floor)))) }
        return .object(members)
    }

    /// The client data for `fix`: what the position content has no field for.
    public static func clientData(of fix: Fix) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let device = fix.device { members.append(("device", .string(device))) }
        if let floor = fix.floor { members.append(("floor", .number(Double(floor)))) }
        members.append(("method", .string(fix.method)))
        return .object([("whereabouts", .object(members))])
    }
}
