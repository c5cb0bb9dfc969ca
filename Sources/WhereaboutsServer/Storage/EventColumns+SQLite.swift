import GRDB
import GRDBSQLite

/// How an event's columns go into SQLite's `events` table: its stream ids as JSON text, bound
/// straight to SQLite's statement, so that the writer, which every write waits for, only binds
/// and steps.
///
/// The column order is ``EventColumns/sqliteColumns``'.
extension EventColumns {
    /// The columns, in binding order.
    static let sqliteColumns = """
        user_name, id, time, duration, end_time, type, type_class, content, description, tags, \
        client_data, attachments, stream_ids, trashed, created, created_by, modified, modified_by
        """

    /// Inserts a row unless the user already has an event with its identifier.
    static let sqliteInsert = """
        INSERT INTO events (\(sqliteColumns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (user_name, id) DO NOTHING
        """

    /// The values as GRDB arguments, in column order, owned by `userName` (for statements other
    /// than the insert).
    func sqliteArguments(userName: String) -> StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            userName, id, time, duration, endTime(running: SQLiteSchema.runningEndTime), type, typeClass, content,
            description, tags, clientData, attachments, streamIds.jsonText, trashed, created, createdBy, modified, modifiedBy,
        ]
        return StatementArguments(values)
    }

    /// Runs `statement` (prepared from ``sqliteInsert``) with these values, owned by `userName`,
    /// the stream ids given as their JSON text (`streamIds.jsonText`, made
    /// before the writer's turn).
    ///
    /// Binds through SQLite's C interface: GRDB's `StatementArguments` boxes each value, which
    /// cost more than the insert itself when a batch stores thousands of events.
    func insert(with statement: Statement, userName: String, streamIdsText: String, in db: Database) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        var code = SQLITE_OK
        func check(_ result: Int32) { if code == SQLITE_OK { code = result } }
        check(Self.bind(userName, at: 1, handle))
        check(Self.bind(id, at: 2, handle))
        check(sqlite3_bind_double(handle, 3, time))
        check(duration.map { sqlite3_bind_double(handle, 4, $0) } ?? sqlite3_bind_null(handle, 4))
        check(sqlite3_bind_double(handle, 5, endTime(running: SQLiteSchema.runningEndTime)))
        check(Self.bind(type, at: 6, handle))
        check(Self.bind(typeClass, at: 7, handle))
        check(Self.bind(content, at: 8, handle))
        check(Self.bind(description, at: 9, handle))
        check(Self.bind(tags, at: 10, handle))
        check(Self.bind(clientData, at: 11, handle))
        check(Self.bind(attachments, at: 12, handle))
        check(Self.bind(streamIdsText, at: 13, handle))
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
                sql: Self.sqliteInsert)
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
