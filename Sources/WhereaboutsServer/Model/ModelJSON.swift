import Whereabouts

extension Event {
    /// The event as the API shows it (Pryv's shape): `duration` only when it is not a point
    /// event (`null` while running), `tags`, `attachments` and `trashed` only when set, and the
    /// legacy `streamId` (the first stream) for older clients.
    public var jsonValue: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(id)),
            ("streamIds", .array(streamIds.map(JSONValue.string))),
            ("streamId", .string(streamIds.first ?? "")),
            ("time", .number(time)),
        ]
        if let duration {
            if duration != 0 { members.append(("duration", .number(duration))) }
        } else {
            members.append(("duration", .null))
        }
        members.append(("type", .string(type)))
        if let content { members.append(("content", content)) }
        if let description { members.append(("description", .string(description))) }
        if !tags.isEmpty { members.append(("tags", .array(tags.map(JSONValue.string)))) }
        if let clientData { members.append(("clientData", clientData)) }
        if !attachments.isEmpty { members.append(("attachments", .array(attachments.map(\.jsonValue)))) }
        if trashed { members.append(("trashed", .bool(true))) }
        members.append(contentsOf: [
            ("created", .number(created)), ("createdBy", .string(createdBy)),
            ("modified", .number(modified)), ("modifiedBy", .string(modifiedBy)),
        ])
        return .object(members)
    }
}

extension Attachment {
    /// The attachment as the API shows it and as stores keep it.
    public var jsonValue: JSONValue {
        .object([
            ("id", .string(id)), ("fileName", .string(fileName)), ("type", .string(type)),
            ("size", .number(Double(size))), ("integrity", .string(integrity)),
        ])
    }

    /// Reads a list of attachments written by ``jsonValue`` (stores use it on their rows).
    public static func list(from value: JSONValue) throws(StoreError) -> [Attachment] {
        guard case .array(let items) = value else { throw .corrupt("attachments are not an array") }
        return try items.map { (item) throws(StoreError) -> Attachment in
            guard case .string(let id)? = item["id"], case .string(let fileName)? = item["fileName"],
                  case .string(let type)? = item["type"], case .number(let size)? = item["size"],
                  case .string(let integrity)? = item["integrity"]
            else { throw .corrupt("an attachment lacks id, fileName, type, size or integrity") }
            return Attachment(id: id, fileName: fileName, type: type, size: Int(size), integrity: integrity)
        }
    }
}

extension EventStream {
    /// The stream as the API shows it, with its children already converted.
    public func jsonValue(children: [JSONValue]) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(id)), ("name", .string(name)),
            ("parentId", parentId.map(JSONValue.string) ?? .null),
        ]
        if let clientData { members.append(("clientData", clientData)) }
        if trashed { members.append(("trashed", .bool(true))) }
        members.append(contentsOf: [
            ("children", .array(children)),
            ("created", .number(created)), ("createdBy", .string(createdBy)),
            ("modified", .number(modified)), ("modifiedBy", .string(modifiedBy)),
        ])
        return .object(members)
    }
}

extension Array where Element == String {
    /// The strings as a JSON array text, as stores keep stream ids and tags.
    public var jsonText: String { JSONWriter().string(from: .array(map(JSONValue.string))) }

    /// Reads a JSON array of strings written by ``jsonText``.
    public init(jsonText: String) throws(StoreError) {
        guard case .array(let items)? = try? JSONParser.parse(jsonText) else {
            throw .corrupt("expected a JSON array of strings, found \(jsonText.prefix(40))")
        }
        self = try items.map { (item) throws(StoreError) -> String in
            guard case .string(let string) = item else { throw .corrupt("expected a string in \(jsonText.prefix(40))") }
            return string
        }
    }
}
