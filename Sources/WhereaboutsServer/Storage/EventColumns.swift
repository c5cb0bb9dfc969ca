import Whereabouts

/// One event as both stores keep it, column by column: what a store writes (made from an event
/// before the writer's turn: the JSON text of its content, tags, client data and attachments)
/// and what it reads back (``event()``). The owner (`user_name`) is the write's; the end time
/// and the type class follow from the columns (``endTime(running:)``, ``typeClass``).
///
/// SQLite keeps the stream ids as JSON text (`EventColumns+SQLite.swift`), PostgreSQL as a
/// `text[]`.
struct EventColumns {
    var id: String
    var streamIds: [String]
    var time: Double
    var duration: Double?
    var type: String
    var content: String?
    var description: String?
    var tags: String
    var clientData: String?
    var attachments: String
    var trashed: Bool
    var created: Double
    var createdBy: String
    var modified: Double
    var modifiedBy: String

    /// `position/wgs84` → `position`: what a `class/*` filter compares (``StoreEncoding/typeClass(of:)``).
    var typeClass: String { StoreEncoding.typeClass(of: type) }

    /// The end time the store keeps: `time + duration`, or `runningEndTime` (the store's stand-in
    /// for "still running") when the event has no duration.
    func endTime(running runningEndTime: Double) -> Double {
        duration.map { time + $0 } ?? runningEndTime
    }

    /// The event the columns describe.
    func event() throws(StoreError) -> Event {
        let attachmentList: [Attachment]
        if let value = try StoreEncoding.json(attachments, column: "attachments") {
            attachmentList = try Attachment.list(from: value)
        } else {
            attachmentList = []
        }
        return Event(
            id: id, streamIds: streamIds, time: time, duration: duration, type: type,
            content: try StoreEncoding.json(content, column: "content"), description: description,
            tags: try [String](jsonText: tags), clientData: try StoreEncoding.json(clientData, column: "client_data"),
            attachments: attachmentList, trashed: trashed, created: created, createdBy: createdBy,
            modified: modified, modifiedBy: modifiedBy)
    }
}

extension EventColumns {
    /// The columns of `event`.
    init(_ event: Event) {
        id = event.id
        streamIds = event.streamIds
        time = event.time
        duration = event.duration
        type = event.type
        content = StoreEncoding.text(event.content)
        description = event.description
        tags = event.tags.jsonText
        clientData = StoreEncoding.text(event.clientData)
        attachments = StoreEncoding.attachmentsText(of: event)
        trashed = event.trashed
        created = event.created
        createdBy = event.createdBy
        modified = event.modified
        modifiedBy = event.modifiedBy
    }
}
