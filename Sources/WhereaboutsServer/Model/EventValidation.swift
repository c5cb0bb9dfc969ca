import Whereabouts

/// Reading events from API requests: the fields a client may send, their types, and the content
/// each event type requires. Every failure is an ``EventValidationError`` that names the field and
/// what was expected.
enum EventValidation {
    /// Fields a client may send when creating an event.
    static let creatableFields: Set<String> = [
        "id", "streamIds", "streamId", "time", "duration", "type", "content", "description", "tags", "clientData",
    ]
    /// Fields a client may change with an update.
    static let updatableFields: Set<String> = [
        "streamIds", "streamId", "time", "duration", "type", "content", "description", "tags", "clientData", "trashed",
    ]
    /// Fields of a `position/wgs84` content other than latitude and longitude, all numbers.
    static let optionalPositionFields = [
        "altitude", "horizontalAccuracy", "verticalAccuracy", "speed", "bearing",
    ]

    /// An event from the JSON of a create request. `time` defaults to `now`; the identifier is
    /// taken from `identifiers` when absent.
    static func event(
        fromCreate value: JSONValue, now: Double, accessId: String
    ) throws(EventValidationError) -> Event {
        var identifiers = IdentifierGenerator()
        return try event(fromCreate: value, now: now, accessId: accessId, identifiers: &identifiers)
    }

    /// An event from the JSON of a create request, with a new identifier from `identifiers` when
    /// the request has none (a batch shares one generator).
    static func event(
        fromCreate value: JSONValue, now: Double, accessId: String, identifiers: inout IdentifierGenerator
    ) throws(EventValidationError) -> Event {
        guard case .object(let members) = value else {
            throw .notAnObject("The event must be a JSON object, found \(value.kindDescription).")
        }
        try rejectUnknownFields(members, allowed: creatableFields, action: "creating an event")
        let id: String
        if let given = value["id"] {
            guard case .string(let string) = given, isValidIdentifier(string) else {
                throw .invalidField("id", "`id` must be 1 to 100 letters, digits, `-`, `_` or `.`.")
            }
            id = string
        } else {
            id = identifiers.next()
        }
        guard let typeValue = value["type"] else {
            throw .invalidField("type", "`type` is required (e.g. \"position/wgs84\" or \"note/txt\").")
        }
        var event = Event(
            id: id, streamIds: [], time: now, type: try type(typeValue),
            created: now, createdBy: accessId, modified: now, modifiedBy: accessId
        )
        try apply(members, to: &event)
        guard !event.streamIds.isEmpty else {
            throw .invalidField(
                "streamIds", "`streamIds` is required: the streams the event belongs to, e.g. [\"position\"].")
        }
        return event
    }

    /// Applies the fields of an update request to a stored event and checks the result.
    static func apply(update value: JSONValue, to event: inout Event) throws(EventValidationError) {
        guard case .object(let members) = value else {
            throw .notAnObject("The update must be a JSON object, found \(value.kindDescription).")
        }
        try rejectUnknownFields(members, allowed: updatableFields, action: "updating an event")
        if let typeValue = value["type"] { event.type = try type(typeValue) }
        try apply(members, to: &event)
        if event.streamIds.isEmpty {
            throw .invalidField("streamIds", "`streamIds` cannot be empty.")
        }
        try checkContent(of: event, requireAttachment: false)
    }

    /// Checks that an event's content fits its type: `position/wgs84` needs latitude and
    /// longitude in range and numeric optional fields, `note/txt` a string, `picture/attached`
    /// an attachment (when `requireAttachment`); other types are opaque JSON.
    static func checkContent(of event: Event, requireAttachment: Bool) throws(EventValidationError) {
        switch event.type {
        case "position/wgs84":
            try checkPosition(event.content)
        case "note/txt":
            guard case .string? = event.content else {
                throw .invalidField("content", "A `note/txt` event's `content` must be a string.")
            }
        case "picture/attached":
            if requireAttachment && event.attachments.isEmpty {
                throw .invalidField(
                    "attachments",
                    "A `picture/attached` event needs an attached file: send it as multipart/form-data "
                        + "with an `event` part and a file part.")
            }
        default:
            break
        }
    }

    /// Whether `id` is acceptable as an event or stream identifier.
    static func isValidIdentifier(_ id: String) -> Bool {
        (1...100).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == 0x2D || byte == 0x5F || byte == 0x2E
            }
    }

    /// Whether `type` has the `class/format` shape (lowercase letters, digits and `-`).
    static func isValidType(_ type: String) -> Bool {
        guard type.utf8.count <= 100 else { return false }
        var slashes = 0
        var partLength = 0
        for byte in type.utf8 {
            if byte == UInt8(ascii: "/") {
                guard partLength > 0 else { return false }
                slashes += 1
                partLength = 0
            } else if (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D {
                partLength += 1
            } else {
                return false
            }
        }
        return slashes == 1 && partLength > 0
    }

    // MARK: Fields

    private static func rejectUnknownFields(
        _ members: [(key: String, value: JSONValue)], allowed: Set<String>, action: String
    ) throws(EventValidationError) {
        if let unknown = members.first(where: { !allowed.contains($0.key) }) {
            throw .invalidField(
                unknown.key,
                "Unknown field `\(unknown.key)` when \(action); allowed: \(allowed.sorted().joined(separator: ", ")).")
        }
    }

    private static func type(_ value: JSONValue) throws(EventValidationError) -> String {
        guard case .string(let type) = value, isValidType(type) else {
            throw .invalidField("type", "`type` must be a string of the form class/format, e.g. \"position/wgs84\".")
        }
        return type
    }

    private static func apply(
        _ members: [(key: String, value: JSONValue)], to event: inout Event
    ) throws(EventValidationError) {
        for (key, value) in members {
            switch key {
            case "streamIds":
                guard case .array(let items) = value, !items.isEmpty else {
                    throw .invalidField("streamIds", "`streamIds` must be a non-empty array of stream ids.")
                }
                var ids: [String] = []
                for item in items {
                    guard case .string(let id) = item, isValidIdentifier(id) else {
                        throw .invalidField(
                            "streamIds", "`streamIds` must hold stream ids (strings of letters, digits, -, _ or .).")
                    }
                    if !ids.contains(id) { ids.append(id) }
                }
                event.streamIds = ids
            case "streamId":
                guard case .string(let id) = value, isValidIdentifier(id) else {
                    throw .invalidField("streamId", "`streamId` must be a stream id.")
                }
                if members.contains(where: { $0.key == "streamIds" }) { continue }
                event.streamIds = [id]
            case "time":
                event.time = try number(value, field: "time", range: 0...1e11)
            case "duration":
                if case .null = value {
                    event.duration = nil
                } else {
                    event.duration = try number(value, field: "duration", range: 0...1e11)
                }
            case "content":
                event.content = value
            case "description":
                if case .null = value { event.description = nil; continue }
                guard case .string(let text) = value else {
                    throw .invalidField("description", "`description` must be a string.")
                }
                event.description = text
            case "tags":
                guard case .array(let items) = value else {
                    throw .invalidField("tags", "`tags` must be an array of strings.")
                }
                var tags: [String] = []
                for item in items {
                    guard case .string(let tag) = item else {
                        throw .invalidField("tags", "`tags` must be an array of strings.")
                    }
                    tags.append(tag)
                }
                event.tags = tags
            case "clientData":
                if case .null = value { event.clientData = nil; continue }
                guard case .object = value else { throw .invalidField("clientData", "`clientData` must be an object.") }
                event.clientData = value
            case "trashed":
                guard case .bool(let trashed) = value else {
                    throw .invalidField("trashed", "`trashed` must be true or false.")
                }
                event.trashed = trashed
            default:
                break
            }
        }
    }

    /// The members a `position/wgs84` content may have.
    private static let positionFields = Set(["latitude", "longitude"] + optionalPositionFields)
    /// Each member of a `position/wgs84` content with its range and whether it is required.
    static let positionRanges: [(field: String, range: ClosedRange<Double>, required: Bool)] = [
        ("latitude", -90...90, true), ("longitude", -180...180, true),
        ("altitude", -20_000...1e6, false), ("horizontalAccuracy", 0...1e7, false),
        ("verticalAccuracy", 0...1e7, false), ("speed", 0...1e5, false), ("bearing", 0...360, false),
    ]

    private static func number(
        _ value: JSONValue, field: @autoclosure () -> String, range: ClosedRange<Double>
    ) throws(EventValidationError) -> Double {
        guard case .number(let number) = value, range.contains(number) else {
            throw .invalidField(
                field(),
                "`\(field())` must be a number from \(formatted(range.lowerBound)) to \(formatted(range.upperBound)), found \(describe(value)).")
        }
        return number
    }

    private static func checkPosition(_ content: JSONValue?) throws(EventValidationError) {
        guard let content, case .object(let members) = content else {
            throw .invalidField(
                "content", "A `position/wgs84` event's `content` must be an object with `latitude` and `longitude`.")
        }
        let allowed = positionFields
        if let unknown = members.first(where: { !allowed.contains($0.key) }) {
            throw .invalidField(
                "content." + unknown.key,
                "Unknown member `\(unknown.key)` in a `position/wgs84` content; allowed: \(allowed.sorted().joined(separator: ", ")).")
        }
        for (field, range, required) in positionRanges {
            guard let value = content[field] else {
                if required {
                    throw .invalidField(
                        "content." + field,
                        "A `position/wgs84` content needs `\(field)` (a number from \(formatted(range.lowerBound)) to \(formatted(range.upperBound))).")
                }
                continue
            }
            _ = try number(value, field: "content." + field, range: range)
        }
    }

    private static func formatted(_ number: Double) -> String {
        var text = ""
        JSONWriter.appendNumber(number, to: &text)
        return text
    }

    private static func describe(_ value: JSONValue) -> String {
        if case .number(let number) = value { return formatted(number) }
        return value.kindDescription
    }
}
