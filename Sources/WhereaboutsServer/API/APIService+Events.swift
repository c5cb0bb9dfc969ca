import Foundation
import Logging
import Hummingbird
import Whereabouts

extension APIService {
    // MARK: events.create

    /// `events.create` for several events at once (a batch's consecutive creates, or one POST):
    /// each is validated on its own; the valid ones are written in one transaction. Results are in
    /// input order: `201 {"event"}` for a new event, `200 {"event"}` for an identifier the user
    /// already had (idempotent retry), or the error for that event.
    public func createEvents(_ inputs: [EventCreateInput], access: Access) async -> [Result<APIResult, APIError>] {
        await createEventsKeepingEvents(inputs, access: access).map { outcome in
            outcome.map { APIResult([("event", presented($0.event, to: access).jsonValue)], status: $0.status) }
        }
    }

    /// ``createEvents(_:access:)`` with each event as stored (and its status) rather than its JSON,
    /// for callers that write the answer themselves.
    func createEventsKeepingEvents(
        _ inputs: [EventCreateInput], access: Access
    ) async -> [Result<(event: Event, status: HTTPResponse.Status), APIError>] {
        let now = Self.now()
        var results = [Result<(event: Event, status: HTTPResponse.Status), APIError>?](repeating: nil, count: inputs.count)
        var writes: [EventWrite] = []
        var writeIndices: [Int] = []
        let requestedStreams = inputs.flatMap { input -> [String] in
            guard case .array(let ids)? = input.json["streamIds"] else {
                if case .string(let id)? = input.json["streamId"] { return [id] }
                return []
            }
            return ids.compactMap { if case .string(let id) = $0 { id } else { nil } }
        }
        let tree: StreamTree
        do {
            tree = try await streams.tree(for: access.userName, refreshingIfMissing: requestedStreams)
        } catch {
            let failure = APIError.storeFailure(error)
            return inputs.map { _ in .failure(failure) }
        }
        var identifiers = IdentifierGenerator()
        for (index, input) in inputs.enumerated() {
            do throws(APIError) {
                var event = try APIError.validating { () throws(EventValidationError) in
                    try EventValidation.event(fromCreate: input.json, now: now, accessId: access.id, identifiers: &identifiers)
                }
                let uploads = input.files.map { file in
                    AttachmentUpload(
                        attachment: Attachment(
                            id: AccessToken.generateIdentifier(), fileName: file.fileName, type: file.type,
                            size: file.size, integrity: file.integrity),
                        content: file.content)
                }
                event.attachments = uploads.map(\.attachment)
                try APIError.validating { () throws(EventValidationError) in
                    try EventValidation.checkContent(of: event, requireAttachment: true)
                }
                try checkStreams(event.streamIds, exist: tree, access: access, level: .contribute)
                writes.append(EventWrite(event: event, uploads: uploads))
                writeIndices.append(index)
            } catch {
                results[index] = .failure(error)
            }
        }
        if !writes.isEmpty {
            do {
                let creations = try await store.addEvents(writes, for: access.userName)
                var created: [Event] = []
                for (index, creation) in zip(writeIndices, creations) {
                    switch creation {
                    case .created(let event):
                        created.append(event)
                        results[index] = .success((event, .created))
                    case .existing(let event):
                        if canRead(event, access: access, tree: tree) {
                            results[index] = .success((event, .ok))
                        } else {
                            results[index] = .failure(APIError(.itemAlreadyExists,
                                "An event with id \"\(event.id)\" already exists in streams this token cannot read."))
                        }
                    }
                }
                if !created.isEmpty {
                    metrics.recordEventsStored(created.count)
                    await eventsDidChange(created, access.userName)
                }
            } catch {
                let failure = APIError.storeFailure(error)
                for index in writeIndices { results[index] = .failure(failure) }
            }
        }
        return results.map { $0 ?? .failure(APIError(.invalidParameters, "The event was not processed.")) }
    }

    // MARK: events.get

    /// `events.get` held whole in memory (a batch's call): the access's readable events matching
    /// the parameters, with Pryv's defaults (no range: the newest 20; `toTime` only: the 24 h
    /// before it; `fromTime` only: until now). At most `bound` events (by default
    /// ``ServerConfiguration/AnswerLimits/eventsHeldWhole``): when more match, it fails with 413 rather than answer a
    /// part for the whole — unless the server's opt-in ``ServerConfiguration/AnswerLimits/eventsPerAnswer`` is smaller,
    /// which cuts the answer with `next` (the client asks again with `cursor` set to it).
    public func events(
        _ parameters: APIParameters, access: Access, bound: Int? = nil
    ) async throws(APIError) -> (events: [Event], next: String?, deletions: [EventDeletion]?) {
        let bound = max(bound ?? wholeAnswerBound.events, 0)
        let cutByServer = wholeAnswerBound.cutsWithNext
        var answer = try await eventAnswer(parameters, access: access, cap: cutByServer ? bound : bound + 1)
        let collected: (events: [Event], next: String?)
        var deletions: [EventDeletion]?
        do {
            collected = try await answer.collect()
            if answer.deletionsSince != nil {
                deletions = []
                while let page = try await answer.nextDeletions(), collected.events.count + (deletions?.count ?? 0) <= bound {
                    deletions? += page
                }
            }
        } catch {
            throw .storeFailure(error)
        }
        guard collected.events.count + (deletions?.count ?? 0) <= bound || (cutByServer && deletions == nil) else {
            throw APIError(.tooLarge, """
                This events.get matches more than \(bound) events and deletions, more than an answer held whole may hold: \
                read them with GET /events, whose answer has no such bound, or narrow the query (`limit`, a time range, \
                `modifiedSince`).
                """)
        }
        return (collected.events, collected.next, deletions)
    }

    /// The most events an answer held whole may hold, and whether reaching them cuts it with
    /// `next` (the operator's opt-in cap is the smaller) or fails it (the memory bound).
    var wholeAnswerBound: (events: Int, cutsWithNext: Bool) {
        if let cap = limits.eventsPerAnswer, cap <= limits.eventsHeldWhole { return (cap, true) }
        return (limits.eventsHeldWhole, false)
    }

    /// The answer to `events.get`, to read a page at a time: at most `cap` events (by default
    /// ``ServerConfiguration/AnswerLimits/eventsPerAnswer``, none unless the operator set one), going on from the
    /// parameters' `cursor` when they have one.
    public func eventAnswer(_ parameters: APIParameters, access: Access, cap: Int? = nil) async throws(APIError) -> EventAnswer {
        var query = try await eventQuery(parameters, access: access)
        var returnedBefore = 0
        if let text = try parameters.string("cursor") {
            guard let continuation = EventContinuation(text: text) else {
                throw APIError(.invalidParameters, "`cursor` must be the `next` of an earlier answer, unchanged.")
            }
            // The skip was applied by the first answer; the limit counts from its start.
            query.after = continuation.after
            query.skip = 0
            query.limit = query.limit.map { max($0 - continuation.returned, 0) }
            returnedBefore = continuation.returned
        }
        // Tombstones, for a client that syncs: every deletion after `modifiedSince` (all that
        // are kept, without it).
        let deletionsSince = try parameters.bool("includeDeletions") == true ? (query.modifiedSince ?? -.greatestFiniteMagnitude) : nil
        return EventAnswer(store: store, userName: access.userName, query: query, returnedBefore: returnedBefore,
                           cap: cap ?? limits.eventsPerAnswer, deletionsSince: deletionsSince)
    }

    /// The store query for `events.get` parameters, restricted to what `access` may read.
    public func eventQuery(_ parameters: APIParameters, access: Access) async throws(APIError) -> EventQuery {
        let timeRange = -1e11...1e11
        let fromTime = try parameters.number("fromTime", in: timeRange)
        let toTime = try parameters.number("toTime", in: timeRange)
        var query = EventQuery()
        switch (fromTime, toTime) {
        case (nil, nil):
            query.limit = 20
        case (nil, let to?):
            query.fromTime = to - 86_400
            query.toTime = to
        case (let from?, nil):
            query.fromTime = from
            query.toTime = Self.now()
        case (let from?, let to?):
            query.fromTime = from
            query.toTime = to
        }
        if let limit = try parameters.integer("limit", in: 0...1_000_000) { query.limit = limit }
        query.skip = try parameters.integer("skip", in: 0...1_000_000_000) ?? 0
        query.sortAscending = try parameters.bool("sortAscending") ?? false
        query.running = try parameters.bool("running")
        query.modifiedSince = try parameters.number("modifiedSince", in: timeRange)
        if let state = try parameters.string("state") {
            guard let parsed = EventQuery.State(rawValue: state) else {
                throw APIError(.invalidParameters, "`state` must be one of default, trashed, all.")
            }
            query.state = parsed
        }
        if let types = try parameters.strings("types") {
            var exact: Set<String> = []
            var classes: Set<String> = []
            for type in types {
                if type.hasSuffix("/*"), EventValidation.isValidType(String(type.dropLast()) + "x") {
                    classes.insert(String(type.dropLast(2)))
                } else if EventValidation.isValidType(type) {
                    exact.insert(type)
                } else {
                    throw APIError(.invalidParameters, "`types` holds \"\(type)\", which is neither class/format nor class/*.")
                }
            }
            query.types = exact
            query.typeClasses = classes
        }
        let requested = try parameters.strings("streams")
        let tree = try await loadTree(access.userName, refreshingIfMissing: requested ?? [])
        let readable = access.readableStreams(in: tree)
        if let requested {
            var expanded: Set<String> = []
            for id in requested {
                guard tree.streams[id] != nil else {
                    throw APIError(.unknownReferencedResource, "Unknown stream \"\(id)\" in `streams`.")
                }
                guard access.allows(.read, on: id, in: tree) else {
                    throw APIError(.forbidden, "This token cannot read stream \"\(id)\".")
                }
                expanded.formUnion(tree.subtree(of: id))
            }
            query.streamIds = readable.map { expanded.intersection($0) } ?? expanded
        } else {
            query.streamIds = readable
        }
        return query
    }

    // MARK: events.getOne, update, delete

    /// The event with this identifier, if the access may read it.
    public func event(id: String, access: Access) async throws(APIError) -> (Event, StreamTree) {
        let found: Event?
        let tree: StreamTree
        do {
            found = try await store.event(id: id, for: access.userName)
            tree = try await streams.tree(for: access.userName, refreshingIfMissing: found?.streamIds ?? [])
        } catch {
            throw .storeFailure(error)
        }
        guard let found, canRead(found, access: access, tree: tree) else {
            throw APIError(.unknownResource, "No event with id \"\(id)\".")
        }
        return (found, tree)
    }

    /// `events.update`: applies a partial update; the access must contribute to the event's
    /// streams before and after.
    ///
    /// The update is applied to the event as stored at the moment of the write: when another
    /// request changes the event between this one's read and write, the read is done again
    /// (a few times) rather than overwriting that change. With `unmodifiedSince` (seconds since
    /// 1970), an event changed after that time is left alone: 412.
    public func updateEvent(
        id: String, update: JSONValue, access: Access, unmodifiedSince: Double? = nil
    ) async throws(APIError) -> APIResult {
        try await rewritingEvent(id: id, access: access, unmodifiedSince: unmodifiedSince, doing: "the update was applied") {
            var event = $0, tree = $1
            let read = event.modified
            try checkStreams(event.streamIds, exist: tree, access: access, level: .contribute)
            if case .array(let ids)? = update["streamIds"] {
                let names = ids.compactMap { if case .string(let id) = $0 { id } else { nil } }
                tree = try await loadTree(access.userName, refreshingIfMissing: names)
            }
            try APIError.validating { () throws(EventValidationError) in
                try EventValidation.apply(update: update, to: &event)
            }
            try checkStreams(event.streamIds, exist: tree, access: access, level: .contribute)
            return try await storeChange(event, madeBy: access, ifModifiedAt: read)
        }
    }

    /// `events.delete`: moves the event to the trash, or deletes it for good when it is there
    /// already (as Pryv: a second delete deletes, however soon after the first); `permanent`
    /// deletes at once. A deletion leaves a tombstone (its identifier and time) that
    /// `includeDeletions` reports to clients syncing with `modifiedSince`. With
    /// `unmodifiedSince`, an event changed after that time is left alone: 412.
    public func deleteEvent(
        id: String, access: Access, unmodifiedSince: Double? = nil, permanent: Bool = false
    ) async throws(APIError) -> APIResult {
        try await rewritingEvent(id: id, access: access, unmodifiedSince: unmodifiedSince, doing: "it was being deleted") {
            var event = $0
            let read = event.modified
            try checkStreams(event.streamIds, exist: $1, access: access, level: .contribute)
            if event.trashed || permanent {
                _ = try await store.removeEvent(id: id, for: access.userName, ifModifiedAt: read)
                await forgetOldDeletions(of: access.userName)
                return APIResult([("eventDeletion", .object([("id", .string(id))]))])
            }
            event.trashed = true
            return try await storeChange(event, madeBy: access, ifModifiedAt: read)
        }
    }

    /// Forgets the user's tombstones older than ``ServerConfiguration/AnswerLimits/deletionsKeptFor`` (after a deletion: a
    /// user who deletes nothing keeps what they have). A failure is left for the next deletion.
    func forgetOldDeletions(of userName: String) async {
        _ = try? await store.removeEventDeletions(of: userName, before: Self.now() - limits.deletionsKeptFor)
    }

    /// Stamps `event` as changed now by `access`, stores it if it was not changed since `read`
    /// (``StoreError/changed(_:id:)`` otherwise), tells the live feed, and answers `{"event"}`.
    private func storeChange(_ event: Event, madeBy access: Access, ifModifiedAt read: Double) async throws -> APIResult {
        var event = event
        event.modified = Self.now()
        event.modifiedBy = access.id
        try await store.replaceEvent(event, for: access.userName, ifModifiedAt: read)
        await eventsDidChange([event], access.userName)
        return APIResult([("event", presented(event, to: access).jsonValue)])
    }

    /// Reads the event (as `access` may), checks the client's `unmodifiedSince`, and runs `write`
    /// with it and the stream tree. `write` makes its store writes conditional on the event's
    /// `modified` as read: when the store finds the event changed since, it is read again and
    /// `write` runs again (a few times), rather than overwriting that change.
    private func rewritingEvent(
        id: String, access: Access, unmodifiedSince: Double?, doing action: String,
        _ write: (Event, StreamTree) async throws -> APIResult
    ) async throws(APIError) -> APIResult {
        for _ in 0..<Self.conditionalWriteAttempts {
            let (event, tree) = try await event(id: id, access: access)
            try Self.check(event, unmodifiedSince: unmodifiedSince)
            do {
                return try await write(event, tree)
            } catch StoreError.changed {
                continue
            } catch let error as APIError {
                throw error
            } catch {
                throw .storeFailure(error)
            }
        }
        throw APIError(.itemChanged, "Event \"\(id)\" kept changing while \(action); try again.")
    }

    /// How many times a write that found the event changed since its read reads it again.
    static let conditionalWriteAttempts = 5

    /// Throws 412 when `event` changed after `unmodifiedSince`.
    private static func check(_ event: Event, unmodifiedSince: Double?) throws(APIError) {
        guard let unmodifiedSince, event.modified > unmodifiedSince else { return }
        throw APIError(.preconditionFailed, """
            Event "\(event.id)" changed at \(event.modified), after \(unmodifiedSince) (If-Unmodified-Since); \
            read it again before changing it.
            """)
    }

    /// An attachment's description and bytes, if the access may read its event.
    public func attachment(eventId: String, attachmentId: String, access: Access) async throws(APIError) -> (Attachment, [UInt8]) {
        let (event, _) = try await event(id: eventId, access: access)
        guard let attachment = Self.attachment(attachmentId, of: event) else {
            throw APIError(.unknownResource, "Event \"\(eventId)\" has no attachment \"\(attachmentId)\".")
        }
        return (attachment, try await file(of: attachment, eventId: eventId, userName: access.userName))
    }

    /// The attachment of `event` named by its identifier or its file name.
    private static func attachment(_ idOrFileName: String, of event: Event) -> Attachment? {
        event.attachments.first { $0.id == idOrFileName || $0.fileName == idOrFileName }
    }

    /// The bytes of an attachment of the user's event.
    private func file(of attachment: Attachment, eventId: String, userName: String) async throws(APIError) -> [UInt8] {
        let data: [UInt8]?
        do {
            data = try await store.attachmentData(eventId: eventId, attachmentId: attachment.id, for: userName)
        } catch {
            throw .storeFailure(error)
        }
        guard let data else { throw APIError(.unknownResource, "The file of attachment \"\(attachment.id)\" is missing.") }
        return data
    }

    /// `event` as `access` reads it: each attachment with the access's `readToken`.
    public func presented(_ event: Event, to access: Access) -> Event {
        guard !event.attachments.isEmpty else { return event }
        var event = event
        for index in event.attachments.indices {
            event.attachments[index].readToken = AccessToken.readToken(
                for: access, eventId: event.id, attachmentId: event.attachments[index].id)
        }
        return event
    }

    /// The attachment a `readToken` link asks for (`…/{username}/events/{id}/{attachmentId}?readToken=…`,
    /// no `Authorization`): the token names an access of `userName`'s that must still work,
    /// may read the event, and signed this very attachment.
    public func attachment(eventId: String, attachmentId: String, readToken: String, userName: String?) async throws(APIError) -> (Attachment, [UInt8]) {
        guard let userName else {
            throw APIError(.invalidAccessToken, "A readToken link goes through the user's path: /{username}/events/{id}/{attachmentId}?readToken=…")
        }
        guard let dash = readToken.firstIndex(of: "-"), readToken.utf8.count <= 200 else {
            throw APIError(.invalidAccessToken, "Invalid read token.")
        }
        let accessId = String(readToken[..<dash])
        let found: Access?
        do {
            found = try await store.accesses(of: userName).first { $0.id == accessId }
        } catch {
            throw .storeFailure(error)
        }
        guard let access = found, !access.hasExpired(at: Self.now()) else { throw APIError(.invalidAccessToken, "Invalid read token.") }
        let (event, _) = try await event(id: eventId, access: access)
        guard let attachment = Self.attachment(attachmentId, of: event),
              AccessToken.isReadToken(readToken, of: access, eventId: eventId, attachmentId: attachment.id)
        else { throw APIError(.invalidAccessToken, "Invalid read token.") }
        return (attachment, try await file(of: attachment, eventId: eventId, userName: userName))
    }

    // MARK: Permissions

    /// Whether the access may read the event: it may read at least one of its streams.
    public func canRead(_ event: Event, access: Access, tree: StreamTree) -> Bool {
        access.allowsEverywhere(.read) || event.streamIds.contains { access.allows(.read, on: $0, in: tree) }
    }

    /// Checks that every stream exists and that the access reaches `level` on each.
    func checkStreams(_ ids: [String], exist tree: StreamTree, access: Access, level: AccessLevel) throws(APIError) {
        for id in ids {
            guard tree.streams[id] != nil else {
                throw APIError(.unknownReferencedResource, "Unknown stream \"\(id)\": create it first with POST /streams.")
            }
            guard access.allows(level, on: id, in: tree) else {
                throw APIError(.forbidden, "This token cannot \(level == .read ? "read" : "write to") stream \"\(id)\".")
            }
        }
    }
}
