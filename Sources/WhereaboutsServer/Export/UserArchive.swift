import Foundation
import Whereabouts

/// Everything a store holds of one user as one JSON Lines file (FORMATS.md §10): what
/// `whereabouts users export` writes and `users import` reads, so that a user moves between
/// servers, or between SQLite and PostgreSQL, with every stream, event (all fields, ids kept)
/// and attachment byte as they were.
///
/// The lines, in order: a header (`format`, `version`, `user`, `created`, `retention`,
/// `exported`), one `stream` per stream (parents before children), one `access` per token
/// (without the token: secrets are not exported, and tokens are issued anew after an import),
/// then one `event` per event, oldest first, with its attachments' bytes in base 64. A reader
/// holds one line at a time.
///
/// ```swift
/// let handle = try FileHandle(forWritingTo: url)
/// let counts = try await UserArchive.export(user: "alice", from: store) { line in handle.write(Data(line.utf8)) }
/// ```
public enum UserArchive {
    /// The header's `format`.
    public static let format = "whereabouts-user-archive"
    /// The version this code writes and reads.
    public static let version = 1
    /// Events read from the store per page while exporting.
    static let pageSize = 500

    /// What an export wrote or an import stored.
    public struct Counts: Hashable, Sendable {
        /// Streams.
        public var streams = 0
        /// Accesses (exported without their tokens; not imported).
        public var accesses = 0
        /// Events.
        public var events = 0
        /// Attachments, and their bytes.
        public var attachments = 0, attachmentBytes = 0
    }

    /// Why an archive cannot be imported.
    public enum ArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The first line is not a header of this format and version.
        case notAnArchive(String)
        /// A line is not what the format allows.
        case badLine(Int, String)
        /// The user to import into exists already.
        case userExists(String)

        /// What went wrong and what to do.
        public var description: String {
            switch self {
            case .notAnArchive(let why): "not a Whereabouts user archive: \(why)"
            case .badLine(let line, let why): "line \(line): \(why)"
            case .userExists(let name):
                "user \"\(name)\" exists already: import into a new name (--as), or erase it first (`whereabouts users delete`)"
            }
        }
    }

    // MARK: Export

    /// Writes every line of `user`'s archive to `write`, one line (with its newline) at a time.
    public static func export(user: String, from store: any EventStore, now: Double = Date().timeIntervalSince1970,
                              write: (String) throws -> Void) async throws -> Counts {
        guard let found = try await store.user(named: user) else { throw StoreError.notFound("user", id: user) }
        var counts = Counts()
        let retention = try await store.retention(of: user)
        try write(line(.object([("format", .string(format)), ("version", .number(Double(version))), ("user", .string(user)),
                                ("created", .number(found.created)), ("retention", retentionJSON(retention)),
                                ("exported", .number(now))])))
        let streamRetentions = try await store.streamRetentions(of: user)
        for stream in orderedByParent(try await store.streams(of: user)) {
            var members: [(key: String, value: JSONValue)] = [("stream", streamJSON(stream))]
            if let seconds = streamRetentions[stream.id] { members.append(("retention", retentionJSON(seconds))) }
            try write(line(.object(members)))
            counts.streams += 1
        }
        for access in try await store.accesses(of: user) {
            try write(line(.object([("access", .object([
                ("id", .string(access.id)), ("name", .string(access.name)), ("type", .string(access.type.rawValue)),
                ("permissions", .array(access.permissions.map { .object([("streamId", .string($0.streamId)),
                                                                         ("level", .string($0.level.rawValue))]) })),
                ("created", .number(access.created)), ("expires", access.expires.map(JSONValue.number) ?? .null),
            ]))])))
            counts.accesses += 1
        }
        var cursor: EventCursor?
        while true {
            let page = try await store.eventPage(matching: EventQuery(sortAscending: true, limit: pageSize, state: .all, after: cursor),
                                                 for: user)
            for event in page.events {
                var attachments: [JSONValue] = []
                for attachment in event.attachments {
                    let bytes = try await store.attachmentData(eventId: event.id, attachmentId: attachment.id, for: user) ?? []
                    attachments.append(.object([("id", .string(attachment.id)), ("data", .string(Data(bytes).base64EncodedString()))]))
                    counts.attachments += 1
                    counts.attachmentBytes += bytes.count
                }
                try write(line(.object([("event", event.jsonValue), ("files", .array(attachments))])))
                counts.events += 1
            }
            guard page.events.count == pageSize, let end = page.end else { break }
            cursor = end
        }
        return counts
    }

    // MARK: Import

    /// Stores the archive whose lines `lines` gives as user `name` (the archive's own user when
    /// `nil`), which must not exist yet: the user, their retention, streams and events with
    /// their attachments, ids and times as they were. Accesses are not imported (their tokens
    /// were not exported). Importing the same archive again is refused (the user exists).
    public static func importArchive(_ lines: some Sequence<String>, into store: any EventStore, as name: String? = nil) async throws -> Counts {
        var counts = Counts()
        var user: String?
        var pending: [EventWrite] = []
        func flush() async throws {
            guard let user, !pending.isEmpty else { return }
            _ = try await store.addEvents(pending, for: user)
            pending.removeAll(keepingCapacity: true)
        }
        for (index, text) in lines.enumerated() {
            let number = index + 1
            guard !text.isEmpty else { continue }
            let json: JSONValue
            do { json = try JSONParser.parse(Array(text.utf8)) } catch { throw ArchiveError.badLine(number, "not JSON (\(error))") }
            guard let current = user else {
                guard json["format"]?.archivedText == format else { throw ArchiveError.notAnArchive("its first line has no \"format\": \"\(format)\"") }
                guard json["version"]?.archivedNumber == Double(version) else {
                    let found = json["version"]?.archivedNumber.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int($0)) : String($0) }
                    throw ArchiveError.notAnArchive("version \(found ?? "none"), this server reads \(version)")
                }
                guard let archived = json["user"]?.archivedText, let created = json["created"]?.archivedNumber else {
                    throw ArchiveError.notAnArchive("its header has no user or creation time")
                }
                let target = name ?? archived
                if try await store.user(named: target) != nil { throw ArchiveError.userExists(target) }
                try await store.addUser(User(name: target, created: created), streams: [])
                if let retention = json["retention"]?.archivedNumber ?? (json["retention"]?.archivedText == "forever" ? .infinity : nil) {
                    try await store.setRetention(retention, for: target)
                }
                user = target
                continue
            }
            if let stream = json["stream"] {
                guard let decoded = decodeStream(stream) else { throw ArchiveError.badLine(number, "a stream without an id or a name") }
                try await store.addStream(decoded, for: current)
                if let retention = json["retention"]?.archivedNumber ?? (json["retention"]?.archivedText == "forever" ? .infinity : nil) {
                    try await store.setRetention(retention, for: current, stream: decoded.id)
                }
                counts.streams += 1
            } else if json["access"] != nil {
                counts.accesses += 1
            } else if let eventJSON = json["event"] {
                guard let event = decodeEvent(eventJSON) else { throw ArchiveError.badLine(number, "an event lacking a field") }
                var uploads: [AttachmentUpload] = []
                for file in json["files"]?.archivedItems ?? [] {
                    guard let id = file["id"]?.archivedText, let encoded = file["data"]?.archivedText, let data = Data(base64Encoded: encoded),
                          let attachment = event.attachments.first(where: { $0.id == id })
                    else { throw ArchiveError.badLine(number, "an attachment that is not one of its event's, or not base 64") }
                    uploads.append(AttachmentUpload(attachment: attachment, data: [UInt8](data)))
                    counts.attachments += 1
                    counts.attachmentBytes += data.count
                }
                pending.append(EventWrite(event: event, uploads: uploads))
                counts.events += 1
                if pending.count >= pageSize || !uploads.isEmpty { try await flush() }
            } else {
                throw ArchiveError.badLine(number, "neither a stream, an access nor an event")
            }
        }
        guard user != nil else { throw ArchiveError.notAnArchive("it is empty") }
        try await flush()
        return counts
    }

    // MARK: Lines

    /// Seconds, `"forever"` (JSON has no infinity), or `null` for the server's default.
    private static func retentionJSON(_ seconds: Double?) -> JSONValue {
        guard let seconds else { return .null }
        return seconds.isFinite ? .number(seconds) : .string("forever")
    }

    private static func line(_ value: JSONValue) -> String {
        JSONWriter().string(from: value) + "\n"
    }

    /// Streams with every parent before its children (the store's order otherwise kept).
    static func orderedByParent(_ streams: [EventStream]) -> [EventStream] {
        let ids = Set(streams.map(\.id))
        var placed = Set<String>(), ordered: [EventStream] = [], waiting = streams
        while !waiting.isEmpty {
            // Ready: no parent, a parent placed already, or one the user does not have.
            let ready = waiting.filter { stream in stream.parentId.map { placed.contains($0) || !ids.contains($0) } ?? true }
            if ready.isEmpty { ordered += waiting; break }   // a cycle a store refuses anyway: kept as it is
            for stream in ready { placed.insert(stream.id) }
            ordered += ready
            waiting.removeAll { stream in placed.contains(stream.id) }
        }
        return ordered
    }

    private static func streamJSON(_ stream: EventStream) -> JSONValue {
        .object([("id", .string(stream.id)), ("name", .string(stream.name)), ("parentId", stream.parentId.map(JSONValue.string) ?? .null),
                 ("clientData", stream.clientData ?? .null), ("trashed", .bool(stream.trashed)),
                 ("created", .number(stream.created)), ("createdBy", .string(stream.createdBy)),
                 ("modified", .number(stream.modified)), ("modifiedBy", .string(stream.modifiedBy))])
    }

    private static func decodeStream(_ json: JSONValue) -> EventStream? {
        guard let id = json["id"]?.archivedText, let name = json["name"]?.archivedText else { return nil }
        var clientData = json["clientData"]
        if clientData == .null { clientData = nil }
        return EventStream(id: id, name: name, parentId: json["parentId"]?.archivedText, clientData: clientData,
                           trashed: json["trashed"] == .bool(true), created: json["created"]?.archivedNumber ?? 0,
                           createdBy: json["createdBy"]?.archivedText ?? "", modified: json["modified"]?.archivedNumber ?? 0,
                           modifiedBy: json["modifiedBy"]?.archivedText ?? "")
    }

    /// An event from its API JSON (``Event/jsonValue``): a missing `duration` is a point event, a
    /// `null` one is running.
    static func decodeEvent(_ json: JSONValue) -> Event? {
        guard let id = json["id"]?.archivedText, let time = json["time"]?.archivedNumber, let type = json["type"]?.archivedText,
              let streamIds = json["streamIds"]?.archivedItems?.compactMap(\.archivedText),
              let created = json["created"]?.archivedNumber, let modified = json["modified"]?.archivedNumber
        else { return nil }
        let duration: Double? = switch json["duration"] {
        case nil: 0
        case .null?: nil
        case .number(let value)?: value
        default: 0
        }
        var attachments: [Attachment] = []
        for item in json["attachments"]?.archivedItems ?? [] {
            guard let id = item["id"]?.archivedText, let fileName = item["fileName"]?.archivedText, let type = item["type"]?.archivedText,
                  let size = item["size"]?.archivedNumber, let integrity = item["integrity"]?.archivedText else { return nil }
            attachments.append(Attachment(id: id, fileName: fileName, type: type, size: Int(size), integrity: integrity))
        }
        return Event(id: id, streamIds: streamIds, time: time, duration: duration, type: type, content: json["content"],
                     description: json["description"]?.archivedText, tags: json["tags"]?.archivedItems?.compactMap(\.archivedText) ?? [],
                     clientData: json["clientData"], attachments: attachments, trashed: json["trashed"] == .bool(true),
                     created: created, createdBy: json["createdBy"]?.archivedText ?? "",
                     modified: modified, modifiedBy: json["modifiedBy"]?.archivedText ?? "")
    }
}

/// The parts of archived JSON, read leniently (a wrong kind is no value).
fileprivate extension JSONValue {
    var archivedText: String? { if case .string(let text) = self { text } else { nil } }
    var archivedNumber: Double? { if case .number(let number) = self { number } else { nil } }
    var archivedItems: [JSONValue]? { if case .array(let items) = self { items } else { nil } }
}
