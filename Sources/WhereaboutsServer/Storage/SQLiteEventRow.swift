import GRDB
import GRDBSQLite

/// The values of one row of the SQLite `events` table, made from an event before the writer's
/// turn (the JSON text of its content, tags…), and bound straight to SQLite's statement: the
/// writer, which every write waits for, only binds and steps.
///
/// The column order is ``SQLiteEventRow/insertSQL``'s and ``SQLiteEventRow/arguments``'.
struct SQLiteEventRow: Sendable {
    var userName: String
    var id: String
    var time: Double
    var duration: Double?
    var endTime: Double
    var type: String
    var typeClass: String
    var content: String?
    var description: String?
    var tags: String
    var clientData: String?
    var attachments: String
    var streamIds: String
    var trashed: Bool
    var created: Double
    var createdBy: String
    var modified: Double
    var modifiedBy: String

    /// The columns, in binding order.
    static let columns = """
        user_name, id, time, duration, end_time, type, type_class, content, description, tags, \
        client_data, attachments, stream_ids, trashed, created, created_by, modified, modified_by
        """

    /// Inserts a row unless the user already has an event with its identifier.
    static let insertSQL = """
        INSERT INTO events (\(columns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (user_name, id) DO NOTHING
        """

    /// The row of `event`, owned by `userName`.
    init(_ event: Event, userName: String) {
        self.userName = userName
        id = event.id
        time = event.time
        duration = event.duration
        endTime = StoreEncoding.endTime(of: event, running: SQLiteSchema.runningEndTime)
        type = event.type
        typeClass = StoreEncoding.typeClass(of: event.type)
        content = StoreEncoding.text(event.content)
        description = event.description
        tags = event.tags.jsonText
        clientData = StoreEncoding.text(event.clientData)
        attachments = StoreEncoding.attachmentsText(of: event)
        streamIds = event.streamIds.jsonText
        trashed = event.trashed
        created = event.created
        createdBy = event.createdBy
        modified = event.modified
        modifiedBy = event.modifiedBy
    }

    /// The values as GRDB arguments, in column order (for statements other than the insert).
    var arguments: StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            userName, id, time, duration, endTime, type, typeClass, content, description, tags,
            clientData, attachments, streamIds, trashed, created, createdBy, modified, modifiedBy,
        ]
        return StatementArguments(values)
    }

    /// Runs `statement` (prepared from ``insertSQL``) with this row's values.
    ///
    /// Binds through SQLite's C interface: GRDB's `StatementArguments` boxes each value, which
    /// cost more than the insert itself when a batch stores thousands of events.
    func insert(with statement: Statement, in db: Database) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        var code = SQLITE_OK
        func check(_ result: Int32) { if code == SQLITE_OK { code = result } }
        check(Self.bind(userName, at: 1, handle))
        check(Self.bind(id, at: 2, handle))
        check(sqlite3_bind_double(handle, 3, time))
        check(duration.map { sqlite3_bind_double(handle, 4, $0) } ?? sqlite3_bind_null(handle, 4))
        check(sqlite3_bind_double(handle, 5, endTime))
        check(Self.bind(type, at: 6, handle))
        check(Self.bind(typeClass, at: 7, handle))
        check(Self.bind(content, at: 8, handle))
        check(Self.bind(description, at: 9, handle))
        check(Self.bind(tags, at: 10, handle))
        check(Self.bind(clientData, at: 11, handle))
        check(Self.bind(attachments, at: 12, handle))
        check(Self.bind(streamIds, at: 13, handle))
        check(sqlite3_bind_int(handle, 14, trashed ? 1 : 0))
        check(sqlite3_bind_double(handle, 15, created))
        check(Self.bind(createdBy, at: 16, handle))
        check(sqlite3_bind_double(handle, 17, modified))
        check(Self.bind(modifiedBy, at: 18, handle))
        if code == SQLITE_OK {
            code = sqlite3_step(handle)
            if code == SQLITE_DONE { code = SQLITE_OK }
        }
        sqlite3_reset(handle)
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                sql: Self.insertSQL)
        }
    }

    /// SQLite's `SQLITE_TRANSIENT`: it copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bind(_ text: String?, at index: Int32, _ handle: SQLiteStatement) -> Int32 {
        guard var text else { return sqlite3_bind_null(handle, index) }
        return text.withUTF8 { bytes in
            // A non-null pointer even for "", which SQLite would otherwise read as NULL.
            withUnsafePointer(to: 0 as UInt8) { empty in
                let start = bytes.baseAddress ?? empty
                return start.withMemoryRebound(to: CChar.self, capacity: max(bytes.count, 1)) {
                    sqlite3_bind_text(handle, index, $0, Int32(bytes.count), transient)
                }
            }
        }
    }
}
