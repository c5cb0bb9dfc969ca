import Whereabouts

// `GET /events?format=geojson|gpx|csv`: a user's positions as a file.
extension APIService {
    /// The export of the access's positions that `parameters` select (`events.get`'s, with the
    /// types `position/wgs84` unless given), ready to be written: a time range is read and
    /// written a chunk at a time, however long; the newest N (Pryv's default without a range)
    /// or all but the newest N are read whole (at most ``ServerConfiguration/AnswerLimits/eventsHeldWhole``, 413 beyond).
    ///
    /// One row is read before this returns, so that a store that does not answer is still a 503
    /// (once the file has started, a failure can only cut it short).
    ///
    /// ```swift
    /// let export = try await service.export(parameters, format: .gpx, access: access)
    /// let written = try await export.write { text in try await body.write(text) }
    /// ```
    public func export(_ parameters: APIParameters, format: EventExport.Format, access: Access) async throws(APIError) -> EventExportAnswer {
        var parameters = parameters
        if try (parameters.strings("types") ?? []).isEmpty { parameters = parameters.adding("types", .array([.string("position/wgs84")])) }
        let query = try await eventQuery(parameters, access: access)
        if !query.sortAscending, query.limit != nil || query.skip > 0 {
            return EventExportAnswer(format: format, content: .whole(try await events(parameters, access: access).events),
                                     store: store, userName: access.userName)
        }
        var probe = query
        probe.limit = 1
        do {
            _ = try await store.eventPage(matching: probe, for: access.userName)
        } catch {
            throw .storeFailure(error)
        }
        return EventExportAnswer(format: format, content: .streamed(query), store: store, userName: access.userName)
    }
}

/// An export of a user's positions (``APIService/export(_:format:access:)``), ready to be
/// written as the body of an answer.
public struct EventExportAnswer: Sendable {
    /// What the export holds: events read whole, or a query read as it is written.
    enum Content: Sendable {
        case whole([Event])
        case streamed(EventQuery)
    }

    /// The file's format.
    public let format: EventExport.Format
    let content: Content
    let store: any EventStore
    let userName: String

    /// Writes the file to `sink`, a chunk of text at a time; returns how many positions it wrote.
    public func write(to sink: (String) async throws -> Void) async throws -> Int {
        switch content {
        case .whole(let events):
            try await sink(format.render(events))
            return events.count
        case .streamed(let query):
            return try await EventExport.write(format, reading: query, from: store, userName: userName, to: sink)
        }
    }
}
