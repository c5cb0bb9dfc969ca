import Whereabouts

extension APIService {
    /// The methods a batch may call.
    public static let batchMethods = [
        "events.get", "events.create", "events.update", "events.delete",
        "streams.get", "streams.create", "streams.update",
    ]

    /// Runs a batch: `[{"method": "events.create", "params": {…}}, …]`, answered in order with
    /// one result object per call (`{"event": …}` or `{"error": …}`). One failing call does not
    /// stop the others. Consecutive `events.create` calls are written in one transaction.
    public func batch(_ body: JSONValue, access: Access) async throws(APIError) -> APIResult {
        guard case .array(let calls) = body else {
            throw .invalidRequestStructure("A batch must be a JSON array of {\"method\", \"params\"} objects.")
        }
        var results: [JSONValue] = []
        results.reserveCapacity(calls.count)
        var pendingCreates: [EventCreateInput] = []

        func flushCreates() async {
            guard !pendingCreates.isEmpty else { return }
            for result in await createEvents(pendingCreates, access: access) {
                results.append(Self.batchResult(result))
            }
            pendingCreates.removeAll(keepingCapacity: true)
        }

        for (index, call) in calls.enumerated() {
            guard case .object = call, case .string(let method)? = call["method"] else {
                await flushCreates()
                results.append(Self.batchResult(.failure(.invalidRequestStructure(
                    "Call \(index) must be an object with a `method` string and `params`."))))
                continue
            }
            let params = call["params"] ?? .object([])
            if method == "events.create" {
                pendingCreates.append(EventCreateInput(json: params))
                continue
            }
            await flushCreates()
            let result: Result<APIResult, APIError>
            do throws(APIError) {
                result = .success(try await callMethod(method, params: params, access: access))
            } catch {
                result = .failure(error)
            }
            results.append(Self.batchResult(result))
        }
        await flushCreates()
        return APIResult([("results", .array(results))])
    }

    private func callMethod(_ method: String, params: JSONValue, access: Access) async throws(APIError) -> APIResult {
        switch method {
        case "events.get":
            let events = try await events(try APIParameters(json: params), access: access)
            return APIResult([("events", .array(events.map(\.jsonValue)))])
        case "events.update":
            let (id, update) = try Self.idAndUpdate(params)
            return try await updateEvent(id: id, update: update, access: access)
        case "events.delete":
            return try await deleteEvent(id: try Self.id(params), access: access)
        case "streams.get":
            return try await streamsTree(try APIParameters(json: params), access: access)
        case "streams.create":
            return try await createStream(params, access: access)
        case "streams.update":
            let (id, update) = try Self.idAndUpdate(params)
            return try await updateStream(id: id, update: update, access: access)
        default:
            throw .invalidRequestStructure(
                "Unknown method \"\(method)\"; a batch may call \(Self.batchMethods.joined(separator: ", ")).")
        }
    }

    private static func id(_ params: JSONValue) throws(APIError) -> String {
        guard case .string(let id)? = params["id"] else { throw .invalidParameters("`params.id` is required.") }
        return id
    }

    private static func idAndUpdate(_ params: JSONValue) throws(APIError) -> (String, JSONValue) {
        guard let update = params["update"] else { throw .invalidParameters("`params.update` is required.") }
        return (try id(params), update)
    }

    private static func batchResult(_ result: Result<APIResult, APIError>) -> JSONValue {
        switch result {
        case .success(let answer): .object(answer.members)
        case .failure(let error): .object([("error", error.jsonValue)])
        }
    }
}
