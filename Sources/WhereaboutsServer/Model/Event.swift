import Whereabouts

/// One event of a user's history, as the Pryv events API models it: something that happened at
/// `time` (seconds since 1970) in one or more streams, with a typed content.
///
/// ```swift
/// let fix = Event(id: "ckq9x2", streamIds: ["position"], time: 1_700_000_000,
///                 type: "position/wgs84",
///                 content: .object([("latitude", .number(46.52)), ("longitude", .number(6.63))]))
/// ```
public struct Event: Hashable, Sendable {
    /// The event's identifier, unique per user (client-supplied or generated).
    public var id: String
    /// The streams the event belongs to; never empty.
    public var streamIds: [String]
    /// When the event happened, in seconds since 1970 (UTC).
    public var time: Double
    /// How long the event lasted in seconds: `0` for a point event, `nil` for a period that is
    /// still running.
    public var duration: Double?
    /// The content type, `class/format` (e.g. `position/wgs84`, `note/txt`).
    public var type: String
    /// The content, whose shape the type gives (`nil` when the event has none).
    public var content: JSONValue?
    /// Free text describing the event.
    public var description: String?
    /// Labels.
    public var tags: [String]
    /// Data a client keeps with the event (a JSON object), opaque to the server.
    public var clientData: JSONValue?
    /// Files attached to the event.
    public var attachments: [Attachment]
    /// Whether the event has been moved to the trash (a second delete removes it).
    public var trashed: Bool
    /// When the server first stored the event.
    public var created: Double
    /// The access that created the event.
    public var createdBy: String
    /// When the event was last changed.
    public var modified: Double
    /// The access that last changed the event.
    public var modifiedBy: String

    /// Creates an event; the bookkeeping fields default to "not yet stored".
    public init(
        id: String, streamIds: [String], time: Double, duration: Double? = 0, type: String,
        content: JSONValue? = nil, description: String? = nil, tags: [String] = [],
        clientData: JSONValue? = nil, attachments: [Attachment] = [], trashed: Bool = false,
        created: Double = 0, createdBy: String = "", modified: Double = 0, modifiedBy: String = ""
    ) {
        self.id = id
        self.streamIds = streamIds
        self.time = time
        self.duration = duration
        self.type = type
        self.content = content
        self.description = description
        self.tags = tags
        self.clientData = clientData
        self.attachments = attachments
        self.trashed = trashed
        self.created = created
        self.createdBy = createdBy
        self.modified = modified
        self.modifiedBy = modifiedBy
    }

    /// Whether the event is a period that has not ended yet.
    public var isRunning: Bool { duration == nil }

    /// When the event ends: `time + duration`, or infinity while it runs.
    public var endTime: Double { duration.map { time + $0 } ?? .infinity }
}

/// A file attached to an event.
public struct Attachment: Hashable, Sendable {
    /// The attachment's identifier, unique within its event.
    public var id: String
    /// The name the client gave the file.
    public var fileName: String
    /// The file's media type (e.g. `image/jpeg`).
    public var type: String
    /// The file's size in bytes.
    public var size: Int
    /// The file's digest as a Subresource Integrity string (`sha256-…` in base 64).
    public var integrity: String
    /// A token that downloads the file without the `Authorization` header
    /// (`…/events/{id}/{attachmentId}?readToken=…`), set in answers for the access that reads
    /// them (``AccessToken/readToken(for:eventId:attachmentId:)``); never stored.
    public var readToken: String?

    /// Creates the description of an attachment.
    public init(id: String, fileName: String, type: String, size: Int, integrity: String) {
        self.id = id
        self.fileName = fileName
        self.type = type
        self.size = size
        self.integrity = integrity
    }
}
