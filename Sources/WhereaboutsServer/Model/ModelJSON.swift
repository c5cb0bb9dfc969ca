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

extension Event {
    /// Appends the event's JSON — the same text as `JSONWriter().bytes(from: jsonValue)` — without
    /// building the `JSONValue` tree first: batch answers write thousands of events.
    public func writeJSON(to out: inout [UInt8]) {
        let writer = JSONWriter()
        JSONWriter.appendRaw(#"{"id":"#, to: &out)
        JSONWriter.appendString(id, to: &out)
        JSONWriter.appendRaw(#","streamIds":"#, to: &out)
        out.append(UInt8(ascii: "["))
        for (index, streamId) in streamIds.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(streamId, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        JSONWriter.appendRaw(#","streamId":"#, to: &out)
        JSONWriter.appendString(streamIds.first ?? "", to: &out)
        JSONWriter.appendRaw(#","time":"#, to: &out)
        JSONWriter.appendNumber(time, to: &out)
        if let duration {
            if duration != 0 {
                JSONWriter.appendRaw(#","duration":"#, to: &out)
                JSONWriter.appendNumber(duration, to: &out)
            }
        } else {
            JSONWriter.appendRaw(#","duration":null"#, to: &out)
        }
        JSONWriter.appendRaw(#","type":"#, to: &out)
        JSONWriter.appendString(type, to: &out)
        if let content {
            JSONWriter.appendRaw(#","content":"#, to: &out)
            writer.write(content, to: &out)
        }
        if let description {
            JSONWriter.appendRaw(#","description":"#, to: &out)
            JSONWriter.appendString(description, to: &out)
        }
        if !tags.isEmpty {
            JSONWriter.appendRaw(#","tags":"#, to: &out)
            writer.write(.array(tags.map(JSONValue.string)), to: &out)
        }
        if let clientData {
            JSONWriter.appendRaw(#","clientData":"#, to: &out)
            writer.write(clientData, to: &out)
        }
        if !attachments.isEmpty {
            JSONWriter.appendRaw(#","attachments":"#, to: &out)
            writer.write(.array(attachments.map(\.jsonValue)), to: &out)
        }
        if trashed { JSONWriter.appendRaw(#","trashed":true"#, to: &out) }
        JSONWriter.appendRaw(#","created":"#, to: &out)
        JSONWriter.appendNumber(created, to: &out)
        JSONWriter.appendRaw(#","createdBy":"#, to: &out)
        JSONWriter.appendString(createdBy, to: &out)
        JSONWriter.appendRaw(#","modified":"#, to: &out)
        JSONWriter.appendNumber(modified, to: &out)
        JSONWriter.appendRaw(#","modifiedBy":"#, to: &out)
        JSONWriter.appendString(modifiedBy, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

extension Attachment {
    /// The attachment as the API shows it and as stores keep it (`readToken` only when set,
    /// which it never is in a store).
    public var jsonValue: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(id)), ("fileName", .string(fileName)), ("type", .string(type)),
            ("size", .number(Double(size))), ("integrity", .string(integrity)),
        ]
        if let readToken { members.append(("readToken", .string(readToken))) }
        return .object(members)
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

}
