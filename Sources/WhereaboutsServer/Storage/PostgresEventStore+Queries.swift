import Foundation
import Logging
import PostgresNIO
import Whereabouts

/// How the PostgreSQL store turns an ``EventQuery`` into SQL.
extension PostgresEventStore {
    /// The query as SQL: with a lower time bound, the UNION of the events starting in the range
    /// and the periods started before it and still going (each half on its own index, read in
    /// the query's order and stopped at the page's end); a cursor seeks the time index.
    static func sql(for query: EventQuery, userName: String) -> PostgresQuery {
        var binds = PostgresBindings()
        func bind<Value: PostgresNonThrowingEncodable>(_ value: Value) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        let order = query.sortAscending ? " ORDER BY time ASC, seq ASC" : " ORDER BY time DESC, seq DESC"
        let skip = max(query.skip, 0)
        let pageLimit = query.limit.map { max($0, 0) }
        let armLimit = pageLimit.flatMap { limit -> Int? in
            let (sum, overflow) = limit.addingReportingOverflow(skip)
            return overflow ? nil : sum
        }
        func filters() -> String {
            var sql = ""
            switch query.state {
            case .default: sql += " AND NOT trashed"
            case .trashed: sql += " AND trashed"
            case .all: break
            }
            if let streamIds = query.sortedStreamIds {
                sql += " AND stream_ids && \(bind(streamIds))::text[]"
            }
            if query.types != nil || query.typeClasses != nil {
                sql += " AND (type = ANY(\(bind(query.sortedTypes))::text[])"
                sql += " OR type_class = ANY(\(bind(query.sortedTypeClasses))::text[]))"
            }
            if let running = query.running {
                sql += running ? " AND duration IS NULL" : " AND duration IS NOT NULL"
            }
            if let modifiedSince = query.modifiedSince {
                sql += " AND modified > \(bind(modifiedSince))"
            }
            if let after = query.after {
                // The cursor's own time's events up to and including it are dropped; the time
                // bounds start the index range at the cursor's time.
                let time = bind(after.time), sequence = bind(after.sequence)
                sql += query.sortAscending
                    ? " AND (time > \(time) OR seq > \(sequence))" : " AND (time < \(time) OR seq < \(sequence))"
            }
            return sql
        }
        let (lower, upper) = query.timeBounds
        func timeBounds(lower: Double?, upper: Double?) -> String {
            var sql = ""
            if let lower { sql += " AND time >= \(bind(lower))" }
            if let upper { sql += " AND time <= \(bind(upper))" }
            return sql
        }
        let select = "SELECT \(eventColumns) FROM events WHERE user_name = "
        var sql: String
        if let fromTime = query.fromTime {
            sql = "(" + select + bind(userName) + timeBounds(lower: lower ?? fromTime, upper: upper)
            sql += filters() + order
            if let armLimit { sql += " LIMIT \(armLimit)" }
            sql += ") UNION ALL (" + select + bind(userName)
            sql += " AND end_time >= \(bind(fromTime)) AND (duration IS NULL OR duration <> 0)"
            sql += " AND time < \(bind(fromTime))"
            sql += timeBounds(lower: query.sortAscending ? query.after?.time : nil, upper: upper)
            sql += filters() + order
            if let armLimit { sql += " LIMIT \(armLimit)" }
            sql += ")"
        } else {
            sql = select + bind(userName) + timeBounds(lower: lower, upper: upper)
            sql += filters()
        }
        sql += order
        if let pageLimit { sql += " LIMIT \(pageLimit)" }
        if skip > 0 { sql += " OFFSET \(skip)" }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}
