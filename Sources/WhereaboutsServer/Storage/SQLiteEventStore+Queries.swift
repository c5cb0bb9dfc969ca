import Foundation
import GRDB
import Whereabouts

/// How the SQLite store turns an ``EventQuery`` into SQL.
extension SQLiteEventStore {
    /// The SQL and arguments of a query: one SELECT, or, with a lower time bound, the UNION of
    /// the events that start in the range (index on `(user_name, time)`) and the periods that
    /// started before it and are still going (partial index on `(user_name, end_time)`). Each
    /// half reads in the query's order and stops at the page's end, so a page costs its limit
    /// (plus its skip), whatever the user holds; a cursor seeks the time index to its place.
    static func sql(for query: EventQuery, userName: String) -> (String, StatementArguments) {
        var arguments = StatementArguments()
        let order = query.sortAscending ? " ORDER BY time ASC, seq ASC" : " ORDER BY time DESC, seq DESC"
        let pageLimit = query.limit.map { max($0, 0) } ?? -1
        let skip = max(query.skip, 0)
        let (armLimit, overflow) = pageLimit.addingReportingOverflow(skip)
        func filters() -> String {
            var sql = ""
            switch query.state {
            case .default: sql += " AND trashed = 0"
            case .trashed: sql += " AND trashed = 1"
            case .all: break
            }
            if let streamIds = query.sortedStreamIds {
                sql += " AND EXISTS (SELECT 1 FROM json_each(events.stream_ids) WHERE json_each.value IN ("
                sql += placeholders(streamIds.count) + "))"
                arguments += StatementArguments(streamIds)
            }
            if query.types != nil || query.typeClasses != nil {
                let types = query.sortedTypes, classes = query.sortedTypeClasses
                sql += " AND (type IN (\(placeholders(types.count))) OR type_class IN (\(placeholders(classes.count))))"
                arguments += StatementArguments(types)
                arguments += StatementArguments(classes)
            }
            if let running = query.running {
                sql += running ? " AND duration IS NULL" : " AND duration IS NOT NULL"
            }
            if let modifiedSince = query.modifiedSince {
                sql += " AND modified > ?"
                arguments += [modifiedSince]
            }
            if let after = query.after {
                // Drops the cursor's own time's events up to and including the cursor (the time
                // bounds, below, start the index range at the cursor's time).
                sql += query.sortAscending ? " AND (time > ? OR seq > ?)" : " AND (time < ? OR seq < ?)"
                arguments += [after.time, after.sequence]
            }
            return sql
        }
        // One bound on each side of the time index: SQLite seeks with one, so the cursor's time
        // and the query's range are merged here, not left to it (two lower bounds could make every
        // page scan from the range's start).
        let (lower, upper) = query.timeBounds
        func timeBounds(lower: Double?, upper: Double?) -> String {
            var sql = ""
            if let lower {
                sql += " AND time >= ?"
                arguments += [lower]
            }
            if let upper {
                sql += " AND time <= ?"
                arguments += [upper]
            }
            return sql
        }
        var sql: String
        if let fromTime = query.fromTime {
            sql = "SELECT * FROM (SELECT \(eventColumns) FROM events WHERE user_name = ?"
            arguments += [userName]
            sql += timeBounds(lower: lower ?? fromTime, upper: upper)
            sql += filters() + order + " LIMIT ?)"
            arguments += [pageLimit < 0 || overflow ? -1 : armLimit]
            // Without statistics SQLite may pick (user_name, time) for `time < ?`, a scan of the
            // user's whole past; the periods index holds only the few events that can qualify.
            sql += " UNION ALL SELECT * FROM (SELECT \(eventColumns) FROM events INDEXED BY events_user_period_end"
            sql += " WHERE user_name = ? AND end_time >= ? AND (duration IS NULL OR duration <> 0) AND time < ?"
            arguments += [userName, fromTime, fromTime]
            sql += timeBounds(lower: query.sortAscending ? query.after?.time : nil, upper: upper)
            sql += filters() + order + " LIMIT ?)"
            arguments += [pageLimit < 0 || overflow ? -1 : armLimit]
        } else {
            sql = "SELECT \(eventColumns) FROM events WHERE user_name = ?"
            arguments += [userName]
            sql += timeBounds(lower: lower, upper: upper)
            sql += filters()
        }
        sql += order + " LIMIT ? OFFSET ?"
        arguments += [pageLimit, skip]
        return (sql, arguments)
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// The lines of SQLite's `EXPLAIN QUERY PLAN` for `query` (to check that it uses indexes).
    func queryPlan(for query: EventQuery, userName: String) async throws -> [String] {
        let (sql, arguments) = Self.sql(for: query, userName: userName)
        return try await pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] }
        }
    }
}
