import Foundation
import Hummingbird
import Whereabouts

/// The API's HTTP routes: each decodes its request, calls the ``APIService`` method, and writes
/// the answer in Pryv's shape.
struct APIRoutes: ServerRoutes {
    let service: APIService
    let limits: ServerConfiguration.BodyLimits
    /// The per-token limit, charged for the events a request wrote or read once it is done
    /// (``ServerConfiguration/RateLimit/eventCost``); the request itself was charged on entry.
    let rateLimiter: RateLimiter?

    /// Charges `events` events to the access's bucket.
    private func charge(_ events: Int, to access: Access) async {
        guard let rateLimiter, events > 0 else { return }
        await rateLimiter.charge(access.id, cost: Double(events) * ServerConfiguration.RateLimit.eventCost)
    }

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.post("/events") { request, context in
            let access = try context.requireAccess()
            let input = try await readEventInput(request)
            let outcome = await service.createEvents([input], access: access)[0]
            input.removeSpooledFiles()
            let result = try outcome.get()
            return APIResponse.json(result.members, status: result.status)
        }
        router.get("/events") { request, context in
            let access = try context.requireAccess()
            let query = QueryParameters(query: request.uri.query)
            let parameters = APIParameters(query: query, arrayKeys: ["streams", "types"])
            guard let formatName = query["format"], formatName != "json" else {
                var answer = try await service.eventAnswer(parameters, access: access)
                // The first page is read before the answer starts, so that a store failure is
                // still a proper 503; a failure after that can only cut the body short.
                let first: [Event]?
                do {
                    first = try await answer.next()
                } catch {
                    throw APIError.storeFailure(error)
                }
                return APIResponse.events(answer, first: first, presenting: { service.presented($0, to: access) }) { count in
                    await charge(count, to: access)
                }
            }
            guard let format = EventExport.Format(rawValue: formatName) else {
                throw APIError(.invalidParameters, "`format` must be json, geojson, gpx or csv.")
            }
            let export = try await service.export(parameters, format: format, access: access)
            var headers = HTTPFields()
            headers[.contentType] = format.mediaType
            headers[.contentDisposition] = "attachment; filename=\"\(access.userName).\(format.fileExtension)\""
            let logger = context.logger
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                do {
                    let written = try await export.write { text in try await writer.write(ByteBuffer(string: text)) }
                    await charge(written, to: access)
                } catch {
                    throw APIResponse.streamFailure(error, what: "An export stopped before its end", logger: logger)
                }
                try await writer.finish(nil)
            })
        }
        router.get("/events/{id}") { _, context in
            let access = try context.requireAccess()
            let (event, _) = try await service.event(id: try context.parameters.require("id"), access: access)
            return APIResponse.json([("event", service.presented(event, to: access).jsonValue)])
        }
        router.put("/events/{id}") { request, context in
            let access = try context.requireAccess()
            let update = try await readJSON(request)
            let result = try await service.updateEvent(
                id: try context.parameters.require("id"), update: update, access: access,
                unmodifiedSince: Self.unmodifiedSince(request.headers))
            return APIResponse.json(result.members, status: result.status)
        }
        router.delete("/events/{id}") { request, context in
            let access = try context.requireAccess()
            let permanent = try APIParameters(query: QueryParameters(query: request.uri.query), arrayKeys: [])
                .bool("permanent") ?? false
            let result = try await service.deleteEvent(
                id: try context.parameters.require("id"), access: access,
                unmodifiedSince: Self.unmodifiedSince(request.headers), permanent: permanent)
            return APIResponse.json(result.members, status: result.status)
        }
        let download: @Sendable (Request, ServerRequestContext) async throws -> Response = { request, context in
            let eventId = try context.parameters.require("id")
            let attachmentId = try context.parameters.require("attachmentId")
            let (attachment, data): (Attachment, [UInt8])
            if context.access == nil, context.authenticationFailure == nil,
               let readToken = QueryParameters(query: request.uri.query)["readToken"] {
                (attachment, data) = try await service.attachment(
                    eventId: eventId, attachmentId: attachmentId, readToken: readToken, userName: context.pathUser)
            } else {
                (attachment, data) = try await service.attachment(
                    eventId: eventId, attachmentId: attachmentId, access: try context.requireAccess())
            }
            var headers = HTTPFields()
            headers[.contentType] = attachment.type
            headers[.contentDisposition] = "attachment; filename=\"\(attachment.fileName.replacingOccurrences(of: "\"", with: "'"))\""
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.get("/events/{id}/{attachmentId}", use: download)
        router.get("/events/{id}/{attachmentId}/{fileName}", use: download)

        router.get("/streams") { request, context in
            let access = try context.requireAccess()
            let query = QueryParameters(query: request.uri.query)
            let result = try await service.streamsTree(APIParameters(query: query, arrayKeys: []), access: access)
            return APIResponse.json(result.members, status: result.status)
        }
        router.post("/streams") { request, context in
            let access = try context.requireAccess()
            let result = try await service.createStream(try await readJSON(request), access: access)
            return APIResponse.json(result.members, status: result.status)
        }
        router.put("/streams/{id}") { request, context in
            let access = try context.requireAccess()
            let result = try await service.updateStream(
                id: try context.parameters.require("id"), update: try await readJSON(request), access: access)
            return APIResponse.json(result.members, status: result.status)
        }
        router.delete("/streams/{id}") { request, context in
            let access = try context.requireAccess()
            let query = QueryParameters(query: request.uri.query)
            let merge = try APIParameters(query: query, arrayKeys: []).bool("mergeEventsWithParent")
            let result = try await service.deleteStream(id: try context.parameters.require("id"), access: access,
                                                        mergeEventsWithParent: merge)
            return APIResponse.json(result.members, status: result.status)
        }

        router.post("/") { request, context in
            let access = try context.requireAccess()
            let result = try await service.batch(try await readJSON(request), access: access)
            await charge(result.answers.count + result.eventsRead, to: access)
            // A call the server failed makes the whole answer a 5xx, so that no client takes it
            // for a success; the results still say which calls took effect.
            return APIResponse.json(status: result.serverFailureStatus ?? .ok, reservingCapacity: result.answers.count * 340,
                                    writingMembers: result.writeMembers)
        }

        router.get("/access-info") { request, context in
            let access = try context.requireAccess()
            let result = service.accessInfo(access, presentedToken: AuthenticationMiddleware.token(in: request))
            return APIResponse.json(result.members, status: result.status)
        }

        router.get("/accesses") { request, context in
            let access = try context.requireAccess()
            let query = QueryParameters(query: request.uri.query)
            let result = try await service.accesses(APIParameters(query: query, arrayKeys: []), access: access)
            return APIResponse.json(result.members, status: result.status)
        }
        router.post("/accesses") { request, context in
            let access = try context.requireAccess()
            let result = try await service.createAccess(try await readJSON(request), access: access)
            return APIResponse.json(result.members, status: result.status)
        }
        router.put("/accesses/{id}") { request, context in
            let access = try context.requireAccess()
            let result = try await service.updateAccess(
                id: try context.parameters.require("id"), update: try await readJSON(request), access: access)
            return APIResponse.json(result.members, status: result.status)
        }
        router.delete("/accesses/{id}") { _, context in
            let access = try context.requireAccess()
            let result = try await service.deleteAccess(id: try context.parameters.require("id"), access: access)
            return APIResponse.json(result.members, status: result.status)
        }

        router.delete("/users/{username}") { _, context in
            let access = try context.requireAccess()
            let result = try await service.deleteAccount(username: try context.parameters.require("username"), access: access)
            return APIResponse.json(result.members, status: result.status)
        }

        router.post("/pub") { request, context in
            let access = try context.requireAccess()
            let query = QueryParameters(query: request.uri.query)
            let user = request.headers[.owntracksUser] ?? query["u"]
            if let user, !user.isEmpty, user != access.userName {
                throw APIError(.forbidden, "This token acts for user \"\(access.userName)\", not \"\(user)\".")
            }
            let device = request.headers[.owntracksDevice] ?? query["d"]
            let message = try await readJSON(request)
            if let eventJSON = try OwnTracksMessage.event(
                from: message, device: device.flatMap { $0.isEmpty ? nil : $0 }, now: APIService.now(), accessId: access.id) {
                _ = try await service.createEvents([.init(json: eventJSON)], access: access)[0].get()
            }
            // OwnTracks expects a JSON array (of commands or friends' locations) in reply.
            return APIResponse.json(text: "[]")
        }
    }

    /// The `If-Unmodified-Since` time, in seconds since 1970: an HTTP date (RFC 9110, to the
    /// second: an event changed within that second counts as unchanged), or, as an extension,
    /// seconds since 1970 as the API writes times (exact). A value that is neither is ignored,
    /// as RFC 9110 requires.
    static func unmodifiedSince(_ headers: HTTPFields) -> Double? {
        guard let text = headers[.ifUnmodifiedSince]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = Double(text), seconds.isFinite { return seconds }
        return HTTPDate.seconds(text).map { $0 + 0.999_999 }
    }

    private func readJSON(_ request: Request) async throws -> JSONValue {
        try await Self.readJSON(request, upTo: limits.json)
    }

    /// The request's body as JSON, at most `limit` bytes: a 4xx when it is empty, too large or
    /// not JSON.
    static func readJSON(_ request: Request, upTo limit: Int) async throws -> JSONValue {
        let body = try await request.body.collect(upTo: limit)
        guard body.readableBytes > 0 else {
            throw APIError(.invalidRequestStructure, "The request body is empty; send a JSON document.")
        }
        do {
            return try JSONParser.parse(body.readableBytesView)
        } catch {
            throw APIError(.invalidRequestStructure, "The request body is not valid JSON: \(error).")
        }
    }

    private func readEventInput(_ request: Request) async throws -> APIService.EventCreateInput {
        let contentType = request.headers[.contentType] ?? ""
        if contentType.lowercased().hasPrefix("multipart/form-data") {
            do {
                return try await MultipartEventReader.read(
                    request.body, contentType: contentType,
                    limits: .init(body: limits.attachments, json: limits.json),
                    spoolDirectory: service.store.uploadSpoolDirectory)
            } catch let error as StorageIOError {
                throw APIError.storeFailure(error)
            }
        }
        return .init(json: try await readJSON(request))
    }
}

extension HTTPFields.Element.Name {
    // Both are valid header names, so the initialiser cannot fail.
    /// OwnTracks' header naming the user a message is for.
    static let owntracksUser = Self("X-Limit-U")!
    /// OwnTracks' header naming the device that sent a message.
    static let owntracksDevice = Self("X-Limit-D")!
}
