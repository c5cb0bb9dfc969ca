import Whereabouts

/// How hard a store works to keep an acknowledged write when the machine fails.
///
/// Both levels keep every acknowledged write when the server *process* dies (a crash, an
/// out-of-memory kill, `kill -9`): the write is in the operating system's hands before the
/// store returns. They differ when the *machine* loses power or the kernel crashes.
///
/// ```swift
/// let store = try SQLiteEventStore(directory: "/var/lib/whereabouts", durability: .full)
/// ```
public enum Durability: String, Sendable, CaseIterable {
    /// Survives the process being killed; a power cut can lose the last commits (the database
    /// stays consistent). SQLite: WAL with `synchronous=NORMAL`, the WAL is synced at each
    /// checkpoint rather than each commit. The default, and many times faster.
    case normal
    /// Also survives a power cut: every commit waits for the disk. SQLite: WAL with
    /// `synchronous=FULL`; event writes that arrive while one is being committed are committed
    /// together (group commit), so that one sync acknowledges all of them.
    case full
}

/// Conversions between the model and the text columns both stores keep.
enum StoreEncoding {
    /// `position/wgs84` → `position`: what a `class/*` filter compares.
    static func typeClass(of type: String) -> String {
        String(type.prefix { $0 != "/" })
    }

    /// A JSON value as the text a store keeps, or `nil`.
    static func text(_ value: JSONValue?) -> String? {
        value.map { JSONWriter().string(from: $0) }
    }

    /// An event's attachment list as the JSON text both stores keep (`[]` when it has none).
    static func attachmentsText(of event: Event) -> String {
        JSONWriter().string(from: .array(event.attachments.map(\.jsonValue)))
    }

    /// Reads JSON text kept by ``text(_:)``.
    static func json(_ text: String?, column: String) throws(StoreError) -> JSONValue? {
        guard let text else { return nil }
        do {
            return try JSONParser.parse(text)
        } catch {
            throw .corrupt("column \(column) does not hold JSON: \(error)")
        }
    }

    /// An access's permissions as JSON text: `[{"streamId": "…", "level": "read"}, …]`.
    static func permissionsText(_ permissions: [Permission]) -> String {
        JSONWriter().string(from: .array(permissions.map {
            .object([("streamId", .string($0.streamId)), ("level", .string($0.level.rawValue))])
        }))
    }

    /// Reads permissions written by ``permissionsText(_:)``.
    static func permissions(_ text: String) throws(StoreError) -> [Permission] {
        guard case .array(let items)? = try json(text, column: "permissions") else {
            throw .corrupt("permissions are not a JSON array")
        }
        return try items.map { (item) throws(StoreError) -> Permission in
            guard case .string(let streamId)? = item["streamId"], case .string(let raw)? = item["level"],
                  let level = AccessLevel(rawValue: raw)
            else { throw .corrupt("a permission lacks streamId or a known level") }
            return Permission(streamId: streamId, level: level)
        }
    }
}

extension EventQuery {
    /// The query's stream, type and class sets in a stable order (for binding).
    var sortedStreamIds: [String]? { streamIds.map { $0.sorted() } }
    var sortedTypes: [String] { (types ?? []).sorted() }
    var sortedTypeClasses: [String] { (typeClasses ?? []).sorted() }

    /// The bounds on `time` of the events that start in the range (after the cursor, if any):
    /// `fromTime` or the cursor's time, whichever is later (ascending); `toTime` or the
    /// cursor's time, whichever is earlier (descending). An index seek takes one bound a side.
    var timeBounds: (lower: Double?, upper: Double?) {
        var lower = fromTime, upper = toTime
        if let after {
            if sortAscending {
                lower = max(lower ?? after.time, after.time)
            } else {
                upper = min(upper ?? after.time, after.time)
            }
        }
        return (lower, upper)
    }
}

extension Attachment {
    /// Reads a list of attachments written by ``Attachment/jsonValue`` (stores use it on their rows).
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

extension Array where Element == String {
    /// Reads a JSON array of strings written by `jsonText`.
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
