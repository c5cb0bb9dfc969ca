import Hummingbird
import Whereabouts

extension APIService {
    /// The methods a batch may call.
    public static let batchMethods = [
        "events.get", "events.getOne", "events.create", "events.update", "events.delete",
        "streams.get", "streams.create", "streams.update", "streams.delete",
        "accesses.get", "accesses.create", "accesses.update", "accesses.delete",
    ]

    /// Runs a batch: `[{"method": "events.create", "params": {…}}, …]`, answered in order with
    /// one result object per call (`{"event": …}` or `{"error": …}`). One failing call does not
    /// stop the others. Consecutive `events.create` calls are written in one transaction.
    ///
    /// A batch holds at most ``ServerConfiguration/AnswerLimits/batchCalls`` calls, and its answer is held whole: its
    /// `events.get` calls share ``ServerConfiguration/AnswerLimits/eventsHeldWhole`` events, and a call that would go past
    /// them fails with 413 (a server with an opt-in ``ServerConfiguration/AnswerLimits/eventsPerAnswer`` cuts a call with
    /// `next` instead, as `GET /events` would).
    public func batch(_ body: JSONValue, access: Access) async throws(APIError) -> BatchResult {
        guard case .array(let calls) = body else {
            throw APIError(.invalidRequestStructure, "A batch must be a JSON array of {\"method\", \"params\"} objects.")
        }
        guard calls.count <= limits.batchCalls else {
            throw APIError(.tooLarge, "A batch holds at most \(limits.batchCalls) calls; this one holds \(calls.count). Send it in parts.")
        }
        var eventBudget = wholeAnswerBound.events
        var answers: [BatchResult.Answer] = []
        answers.reserveCapacity(calls.count)
        var pendingCreates: [EventCreateInput] = []

        func flushCreates() async {
            guard !pendingCreates.isEmpty else { return }
            for outcome in await createEventsKeepingEvents(pendingCreates, access: access) {
                switch outcome {
                case .success(let created): answers.append(.event(presented(created.event, to: access)))
                case .failure(let error): answers.append(.failure(error))
                }
            }
            pendingCreates.removeAll(keepingCapacity: true)
        }

        for (index, call) in calls.enumerated() {
            guard case .object = call, case .string(let method)? = call["method"] else {
                await flushCreates()
                answers.append(.failure(APIError(.invalidRequestStructure,
                    "Call \(index) must be an object with a `method` string and `params`.")))
                continue
            }
            let params = call["params"] ?? .object([])
            if method == "events.create" {
                pendingCreates.append(EventCreateInput(json: params))
                continue
            }
            await flushCreates()
            do throws(APIError) {
                if method == "events.get" {
                    answers.append(.result(try await batchEventsGet(params, access: access, budget: &eventBudget)))
                    continue
                }
                answers.append(.result(try await callMethod(method, params: params, access: access)))
            } catch {
                answers.append(.failure(error))
            }
        }
        await flushCreates()
        var result = BatchResult(answers: answers)
        result.eventsRead = wholeAnswerBound.events - eventBudget
        return result
    }

    /// A batch's `events.get`: at most `budget` events, which it lowers by as many.
    private func batchEventsGet(_ params: JSONValue, access: Access, budget: inout Int) async throws(APIError) -> APIResult {
        guard budget > 0 else {
            throw APIError(.tooLarge, """
                The batch's earlier events.get calls returned \(wholeAnswerBound.events) events, as many as a batch's answer \
                holds; ask for these in another request (GET /events has no such bound).
                """)
        }
        let (events, next, deletions) = try await events(try APIParameters(json: params), access: access, bound: budget)
        budget -= events.count + (deletions?.count ?? 0)
        var members: [(key: String, value: JSONValue)] = [("events", .array(events.map { presented($0, to: access).jsonValue }))]
        if let deletions { members.append(("eventDeletions", .array(deletions.map(\.jsonValue)))) }
        if let next { members.append(("next", .string(next))) }
        return APIResult(members)
    }

    private func callMethod(_ method: String, params: JSONValue, access: Access) async throws(APIError) -> APIResult {
        switch method {
        case "events.update":
            let (id, update) = try Self.idAndUpdate(params)
            return try await updateEvent(id: id, update: update, access: access,
                                         unmodifiedSince: try APIParameters(json: params).number("ifUnmodifiedSince"))
        case "events.delete":
            let parameters = try APIParameters(json: params)
            return try await deleteEvent(id: try Self.id(params), access: access,
                                         unmodifiedSince: try parameters.number("ifUnmodifiedSince"),
                                         permanent: try parameters.bool("permanent") ?? false)
        case "events.getOne":
            let (event, _) = try await event(id: try Self.id(params), access: access)
            return APIResult([("event", presented(event, to: access).jsonValue)])
        case "streams.delete":
            let parameters = try APIParameters(json: params)
            return try await deleteStream(id: try Self.id(params), access: access,
                                          mergeEventsWithParent: try parameters.bool("mergeEventsWithParent"))
        case "accesses.get":
            return try await accesses(try APIParameters(json: params), access: access)
        case "accesses.create":
            return try await createAccess(params, access: access)
        case "accesses.update":
            let (id, update) = try Self.idAndUpdate(params)
            return try await updateAccess(id: id, update: update, access: access)
        case "accesses.delete":
            return try await deleteAccess(id: try Self.id(params), access: access)
        case "streams.get":
            return try await streamsTree(try APIParameters(json: params), access: access)
        case "streams.create":
            return try await createStream(params, access: access)
        case "streams.update":
            let (id, update) = try Self.idAndUpdate(params)
            return try await updateStream(id: id, update: update, access: access)
        default:
            throw APIError(.invalidMethod,
                "Unknown method \"\(method)\"; a batch may call \(Self.batchMethods.joined(separator: ", ")).")
        }
    }

    private static func id(_ params: JSONValue) throws(APIError) -> String {
        guard case .string(let id)? = params["id"] else { throw APIError(.invalidParameters, "`params.id` is required.") }
        return id
    }

    private static func idAndUpdate(_ params: JSONValue) throws(APIError) -> (String, JSONValue) {
        guard let update = params["update"] else { throw APIError(.invalidParameters, "`params.update` is required.") }
        return (try id(params), update)
    }

}

/// The answers of a batch, in call order, written as Pryv's `{"results": […]}`.
public struct BatchResult: Sendable {
    /// The answer to one call.
    public enum Answer: Sendable {
        /// An `events.create` that stored the event (or found it stored): `{"event": …}`.
        case event(Event)
        /// Another method's answer: its members, e.g. `{"events": […]}`.
        case result(APIResult)
        /// The call failed: `{"error": …}`.
        case failure(APIError)
    }

    /// The answers, one per call.
    public var answers: [Answer]
    /// How many events the batch's `events.get` calls returned, together.
    public var eventsRead = 0

    /// Creates a result from the answers, in call order.
    public init(answers: [Answer]) {
        self.answers = answers
    }

    /// The status of the worst server failure among the answers (a 5xx), or `nil` when the
    /// server completed every call it was asked (each call's own 4xx aside).
    public var serverFailureStatus: HTTPResponse.Status? {
        answers.compactMap { answer -> HTTPResponse.Status? in
            guard case .failure(let error) = answer, error.status.code >= 500 else { return nil }
            return error.status
        }.max { $0.code < $1.code }
    }

    /// The `results` member as a JSON tree.
    public var jsonValue: JSONValue {
        .array(answers.map { answer in
            switch answer {
            case .event(let event): .object([("event", event.jsonValue)])
            case .result(let result): .object(result.members)
            case .failure(let error): .object([("error", error.jsonValue)])
            }
        })
    }

    /// Appends `"results":[…]` to a response body, writing events without building their trees.
    public func writeMembers(to out: inout [UInt8]) {
        let writer = JSONWriter()
        JSONWriter.appendRaw(#""results":["#, to: &out)
        for (index, answer) in answers.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            switch answer {
            case .event(let event):
                JSONWriter.appendRaw(#"{"event":"#, to: &out)
                event.writeJSON(to: &out)
                out.append(UInt8(ascii: "}"))
            case .result(let result):
                writer.write(.object(result.members), to: &out)
            case .failure(let error):
                writer.write(.object([("error", error.jsonValue)]), to: &out)
            }
        }
        out.append(UInt8(ascii: "]"))
    }
}
