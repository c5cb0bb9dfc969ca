import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// `/openapi.json` is kept true: its shape, that it describes every route the server has and
/// only routes it has, and that the statuses it lists for each route are the ones the server
/// gives, with bodies that fit the documented schemas.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    static let document = OpenAPIDocument.json
    static let validator = OpenAPISchemaValidator(document: document)

    /// Routes another part of the server adds (the map page, its venue and live feed): they are
    /// described, and checked as soon as the server serves `/map`.
    static let mapRoutes: Set<String> = ["GET /map", "GET /map/map.css", "GET /map/map.js", "GET /venue", "GET /live"]

    @Test("The document is JSON with OpenAPI's top-level shape, and every reference resolves")
    func shape() throws {
        let parsed = try JSONParser.parse(OpenAPIDocument.source)
        #expect(parsed == Self.document)
        #expect(parsed["openapi"]?.stringValue == "3.0.3")
        #expect(parsed["info"]?["title"]?.stringValue == "Whereabouts server")
        #expect(parsed["info"]?["version"]?.stringValue == APIResponse.apiVersion)
        let schemes = try #require(parsed["components"]?["securitySchemes"])
        #expect(schemes["token"]?["in"]?.stringValue == "header")
        #expect(schemes["token"]?["name"]?.stringValue == "Authorization")
        #expect(schemes["basic"]?["scheme"]?.stringValue == "basic")
        #expect(schemes["authQuery"]?["in"]?.stringValue == "query")
        #expect(schemes["authQuery"]?["name"]?.stringValue == "auth")

        var references: [String] = []
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let members):
                for (key, member) in members {
                    if key == "$ref", case .string(let reference) = member { references.append(reference) } else { collect(member) }
                }
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        collect(parsed)
        #expect(references.count > 100)
        for reference in references {
            #expect(Self.validator.resolve(reference) != nil, "unresolved \(reference)")
        }

        guard case .object(let paths)? = parsed["paths"] else { Issue.record("no paths"); return }
        for (path, item) in paths {
            let captures = path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
            for (method, operation) in Self.operations(of: item) {
                let declared = (Self.parameters(of: item) + Self.parameters(of: operation))
                    .filter { $0["in"]?.stringValue == "path" }.compactMap { $0["name"]?.stringValue }
                #expect(Set(declared) == Set(captures), "\(method) \(path): path parameters \(declared) for \(captures)")
                guard case .object(let responses)? = operation["responses"], !responses.isEmpty else {
                    Issue.record("\(method) \(path) has no responses"); continue
                }
                for (status, response) in responses {
                    #expect(Int(status).map { (100..<600).contains($0) } == true, "\(method) \(path): status \(status)")
                    // Every error answer is in Pryv's shape, with meta; a batch's 503 may instead
                    // carry the results of its calls (some of which took effect).
                    if let code = Int(status), code >= 400 {
                        let resolved = Self.resolved(response)
                        let schema = resolved["content"]?["application/json"]?["schema"]
                        let errorResponse = JSONValue.object([("$ref", .string("#/components/schemas/ErrorResponse"))])
                        let batchFailure = path == "/" && code == 503
                            && schema?["anyOf"]?.arrayValue?.contains(errorResponse) == true
                        #expect(schema == errorResponse || batchFailure || (path == "/health" && code == 503),
                                "\(method) \(path) \(status) is not an ErrorResponse")
                    }
                }
            }
        }
        #expect(Self.validator.resolve("#/components/schemas/ErrorResponse")?["required"]
                    == .array([.string("error"), .string("meta")]))
    }

    @Test("openapi.json is the document served, each $ref names a component of its kind, and each component is used")
    func referencesNameComponents() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/WhereaboutsServer/Resources/openapi.json").standardized
        #expect(try String(contentsOf: file, encoding: .utf8) == OpenAPIDocument.source)

        var references: Set<String> = []
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let members):
                for (key, member) in members {
                    if key == "$ref", case .string(let reference) = member { references.insert(reference) } else { collect(member) }
                }
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        collect(Self.document)
        guard case .object(let components)? = Self.document["components"] else { Issue.record("no components"); return }
        var declared: Set<String> = []
        for (kind, group) in components where kind != "securitySchemes" {
            guard case .object(let members) = group else { Issue.record("components/\(kind) is not an object"); continue }
            for (name, _) in members { declared.insert("#/components/\(kind)/\(name)") }
        }
        #expect(!declared.isEmpty)
        for reference in references.sorted() {
            #expect(declared.contains(reference), "\(reference) names no component")
        }
        for component in declared.sorted() {
            #expect(references.contains(component), "\(component) is never referred to")
        }
        // Security schemes are named by the security requirements, not by $ref.
        let schemes = Set((Self.document["components"]?["securitySchemes"]).flatMap { value -> [String]? in
            guard case .object(let members) = value else { return nil }
            return members.map(\.key)
        } ?? [])
        for requirement in Self.document["security"]?.arrayValue ?? [] {
            guard case .object(let members) = requirement else { Issue.record("security: \(requirement)"); continue }
            for (name, _) in members { #expect(schemes.contains(name), "security names no scheme \(name)") }
        }
    }

    @Test("Every example fits its own schema, and the schema checker refuses what it must")
    func examplesFitTheirSchemas() throws {
        var examples: [(place: String, example: JSONValue, schema: JSONValue)] = []
        func collect(_ value: JSONValue, at place: String) {
            switch value {
            case .object(let members):
                if let example = value["example"] {
                    if let schema = value["schema"] {
                        examples.append((place, example, schema))
                    } else if value["type"] != nil || value["properties"] != nil {
                        examples.append((place, example, value))
                    }
                }
                for (key, member) in members where key != "example" { collect(member, at: place + "/" + key) }
            case .array(let items):
                for (index, item) in items.enumerated() { collect(item, at: place + "/\(index)") }
            default:
                break
            }
        }
        collect(Self.document, at: "#")
        #expect(examples.count == 12)
        for (place, example, schema) in examples {
            let errors = Self.validator.errors(example, schema)
            #expect(errors.isEmpty, "\(place): \(errors)")
        }
        // The checker itself refuses what it must (a checker that accepts everything would pass above).
        let create = JSONValue.object([("$ref", .string("#/components/schemas/EventCreate"))])
        for body in Self.eventBodies where !body.accepted {
            #expect(!Self.validator.errors(body.json, create).isEmpty, "\(body.json)")
        }
    }

    /// Event bodies, and whether the server stores them.
    static let eventBodies: [(json: JSONValue, accepted: Bool)] = {
        let position = JSONValue.array([.string("position")])
        return [
            (positionEvent(time: 1, latitude: -90, longitude: 180, accuracy: 0), true),
            (positionEvent(time: 1, latitude: 90.5, longitude: 0), false),
            (positionEvent(time: 1, latitude: 0, longitude: -180.01), false),
            (positionEvent(time: -1, latitude: 0, longitude: 0), false),
            (positionEvent(time: 1e11 + 1, latitude: 0, longitude: 0), false),
            (object(("streamId", .string("position")), ("type", .string("position/wgs84")),
                    ("content", object(("latitude", .number(1)), ("longitude", .number(2)), ("altitude", .number(-20_000)),
                                       ("verticalAccuracy", .number(1e7)), ("speed", .number(1e5)), ("bearing", .number(360))))), true),
            (object(("streamIds", position), ("type", .string("position/wgs84")),
                    ("content", object(("latitude", .number(1)), ("longitude", .number(2)), ("bearing", .number(361))))), false),
            (object(("streamIds", position), ("type", .string("position/wgs84")),
                    ("content", object(("latitude", .number(1)), ("longitude", .number(2)), ("speed", .number(-1))))), false),
            (object(("streamIds", position), ("type", .string("position/wgs84")),
                    ("content", object(("latitude", .number(1)), ("longitude", .number(2)), ("floor", .number(1))))), false),
            (object(("streamIds", position), ("type", .string("position/wgs84")), ("content", object(("latitude", .number(1))))), false),
            (object(("streamIds", position), ("type", .string("position/wgs84")),
                    ("content", object(("latitude", .string("1")), ("longitude", .number(2))))), false),
            (object(("streamIds", position), ("type", .string("note/txt")), ("content", .string("hi")),
                    ("description", .null), ("clientData", .null), ("duration", .null), ("tags", .array([.string("a")]))), true),
            (object(("streamIds", position), ("type", .string("note/txt")), ("content", .number(1))), false),
            (object(("streamIds", position), ("type", .string("note/txt"))), false),
            (object(("streamIds", .array([])), ("type", .string("mass/kg"))), false),
            (object(("type", .string("mass/kg"))), false),
            (object(("streamIds", position), ("type", .string("mass/kg"))), true),
            (object(("streamIds", position), ("type", .string("mass/kg")), ("content", .array([.null, .bool(true)]))), true),
            (object(("streamIds", position), ("type", .string("Mass/kg"))), false),
            (object(("streamIds", position), ("type", .string("mass"))), false),
            (object(("streamIds", position), ("type", .string("picture/attached"))), false),
            (object(("streamIds", position), ("type", .string("mass/kg")), ("colour", .string("red"))), false),
            (object(("streamIds", position), ("type", .string("mass/kg")), ("id", .string("has space"))), false),
            (object(("streamIds", position), ("type", .string("mass/kg")), ("tags", .array([.number(1)]))), false),
            (object(("streamIds", position), ("type", .string("mass/kg")), ("duration", .number(-1))), false),
            (object(("streamIds", position), ("type", .string("mass/kg")), ("clientData", .array([]))), false),
            (.array([]), false),
        ]
    }()

    @Test("POST /events stores exactly the bodies the EventCreate schema accepts")
    func eventSchemaMatchesValidation() async throws {
        let create = JSONValue.object([("$ref", .string("#/components/schemas/EventCreate"))])
        try await TestServer.run(.sqlite) { server in
            let (_, token) = try await server.addUser("val")
            for body in Self.eventBodies {
                let fits = Self.validator.errors(body.json, create).isEmpty
                let answer = try await server.request(.POST, "/events", token: token, json: body.json)
                #expect(fits == body.accepted, "schema: \(body.json)")
                #expect((answer.status == 201) == body.accepted, "server: \(body.json) → \(answer.status) \(answer.text)")
                if !body.accepted { #expect(answer.status == 400) }
            }
        }
    }

    @Test("Every route of the server's router is described, and the check finds one that is not")
    func routerRoutesAreDescribed() async throws {
        let capture = LogCapture()
        let logger = Logger(label: "openapi.test") { _ in CapturingLogHandler(capture: capture) }
        let harness = StoreHarness(.sqlite)
        try await harness.run { store in
            _ = try makeServerApplication(configuration: ServerConfiguration(port: 0), store: store, logger: logger)
        }
        #expect(capture.lines.withLock { $0.filter { $0.contains("missing from /openapi.json") } }.isEmpty)

        let router = Router(context: ServerRequestContext.self)
        router.get("/events") { _, _ in "" }
        router.patch("/events/{id}") { _, _ in "" }
        OpenAPIRoutes(logger: logger).addRoutes(to: router)
        #expect(OpenAPIDocument.undocumentedRoutes(of: router) == ["PATCH /events/{id}"])
        #expect(capture.lines.withLock { $0.contains { $0.contains("missing from /openapi.json") && $0.contains("PATCH /events/{id}") } })
    }

    @Test("Every operation the document describes is routed on a real server")
    func describedOperationsAreRouted() async throws {
        try await TestServer.run(.sqlite) { server in
            let (_, token) = try await server.addUser("ann")
            let serverHasMap = try await !Self.isNoRoute(server.request(.GET, "/map"))
            for operation in OpenAPIDocument.operations {
                let (method, path) = Self.split(operation)
                let concrete = path.replacingOccurrences(of: #"\{[^}]+\}"#, with: "x", options: .regularExpression)
                let answer = try await server.request(HTTPMethod(rawValue: method), concrete, token: token)
                if Self.mapRoutes.contains(operation) && !serverHasMap { continue }
                #expect(!Self.isNoRoute(answer), "\(operation) is described but not routed: \(answer.status) \(answer.text)")
            }
            #expect(OpenAPIDocument.operations.count == 30)
        }
    }

    @Test("The statuses listed for each route are the ones the server gives, with bodies that fit")
    func statusesAreTheOnesObserved() async throws {
        var observer = Observer()
        var configuration = ServerConfiguration()
        configuration.bodyLimits = .init(json: 4_096, attachments: 8_192)
        configuration.publicVenueAndMetrics = false  // as on an address other than loopback
        try await TestServer.run(.sqlite, configuration: configuration, wrappingStore: { FaultyStore($0) }) { server in
            try await Self.exercise(server, observer: &observer)
        }
        let serverHasMap = observer.statuses["GET /map"] != nil
        let checked = OpenAPIDocument.operations.filter { serverHasMap || !Self.mapRoutes.contains($0) }
        // Over the rate limit: every request carrying the token gets 429.
        configuration = ServerConfiguration()
        configuration.rateLimit = .init(requestsPerSecond: 0.001, burst: 1)
        try await TestServer.run(.sqlite, configuration: configuration) { server in
            let (_, token) = try await server.addUser("rate")
            _ = try await server.request(.GET, "/access-info", token: token)
            for operation in checked {
                let (method, path) = Self.split(operation)
                let concrete = path.replacingOccurrences(of: #"\{[^}]+\}"#, with: "x", options: .regularExpression)
                observer.record(operation, try await server.request(HTTPMethod(rawValue: method), concrete, token: token))
            }
        }
        // Receivers' reports need a venue with receivers (without one, the exercise above gets 404).
        configuration = ServerConfiguration(venue: ReceiverReportsTests.venue)
        configuration.bodyLimits = .init(json: 4_096, attachments: 8_192)
        configuration.clock = ManualClock()
        try await TestServer.run(.sqlite, configuration: configuration) { server in
            let (name, token) = try await server.addUser("relay")
            let reader = try await server.token(for: name, [Permission(streamId: Permission.receiversReports, level: .read)])
            let operation = "POST /receivers/reports"
            let path = "/receivers/reports"
            observer.record(operation, try await server.request(.POST, path, token: token, json: ReceiverReportsTests.reports(at: 0)))
            observer.record(operation, try await server.request(.POST, path, token: token, json: object(("t", .number(0)))))
            observer.record(operation, try await server.request(.POST, path, token: reader, json: ReceiverReportsTests.reports(at: 0)))
            observer.record(operation, try await server.request(.POST, path, token: token, json: .array(Array(repeating: ReceiverReportsTests.reports(at: 0), count: 10))))
        }
        // What must be held whole is bounded: an export cut by `limit`, and the events a stream's
        // deletion moves.
        configuration = ServerConfiguration()
        configuration.answerLimits.eventsHeldWhole = 1
        try await TestServer.run(.sqlite, configuration: configuration) { server in
            let (_, token) = try await server.addUser("bound")
            for id in ["a", "b"] {
                _ = try await server.request(.POST, "/events", token: token, json: positionEvent(id: id, time: 1, latitude: 1, longitude: 1))
            }
            observer.record("GET /events", try await server.request(.GET, "/events?format=csv&fromTime=0&toTime=10&limit=2", token: token))
            _ = try await server.request(.POST, "/streams", token: token, json: object(("id", .string("s")), ("name", .string("S"))))
            for id in ["c", "d"] {
                _ = try await server.request(.POST, "/events", token: token, json: positionEvent(id: id, stream: "s", time: 1, latitude: 1, longitude: 1))
            }
            _ = try await server.request(.DELETE, "/streams/s", token: token)
            observer.record("DELETE /streams/{id}", try await server.request(.DELETE, "/streams/s?mergeEventsWithParent=false", token: token))
        }
        // The store stops answering: routes that need it say 503.
        try await TestServer.run(.sqlite) { server in
            let (_, token) = try await server.addUser("down")
            try await server.store.close()
            for operation in checked where operation != "GET /live" {
                let (method, path) = Self.split(operation)
                let concrete = path.replacingOccurrences(of: "{id}", with: "position")
                    .replacingOccurrences(of: #"\{[^}]+\}"#, with: "x", options: .regularExpression)
                let json: JSONValue? = method == "GET" || method == "DELETE" ? nil
                    : operation == "POST /" ? .array([]) : operation == "POST /pub" ? OwnTracksFixtures.location(tst: 1)
                    : operation.hasPrefix("POST /events") ? positionEvent(time: 1, latitude: 1, longitude: 1)
                    : object(("name", .string("n")))
                observer.record(operation, try await server.request(HTTPMethod(rawValue: method), concrete, token: token, json: json))
            }
        }
        for problem in observer.problems { Issue.record(Comment(rawValue: problem)) }
        for operation in checked {
            let (method, path) = Self.split(operation)
            let listed = Set(Self.responses(method: method, path: path).map(\.key).compactMap(Int.init)).subtracting([101])
            let observed = observer.statuses[operation, default: []]
            // The map routes come from another part of the server, with their own tests: here
            // their answers must be listed, without every listed status being provoked.
            #expect(Self.mapRoutes.contains(operation) ? observed.isSubset(of: listed) : observed == listed,
                    "\(operation): listed \(listed.sorted()), observed \(observed.sorted())")
        }
    }

    /// Good and bad requests to every route.
    static func exercise(_ server: TestServer, observer: inout Observer) async throws {
        let (alice, token) = try await server.addUser("alice")
        let reader = try await server.token(for: alice, [Permission(streamId: "position", level: .read)])
        let contributor = try await server.token(for: alice, [Permission(streamId: "position", level: .contribute)])
        let big = String(repeating: "x", count: 5_000)
        func send(_ operation: String, _ path: String, token: String? = token, json: JSONValue? = nil,
                  text: String? = nil, body: [UInt8]? = nil, headers: [(String, String)] = []) async throws -> TestServer.Answer {
            let method = HTTPMethod(rawValue: split(operation).method)
            let answer: TestServer.Answer
            if let text {
                answer = try await server.request(method, path, token: token, text: text, headers: headers)
            } else {
                answer = try await server.request(method, path, token: token, json: json, body: body, headers: headers)
            }
            observer.record(operation, answer)
            return answer
        }
        let note = { (id: String, stream: String) in
            object(("id", .string(id)), ("streamIds", .array([.string(stream)])), ("type", .string("note/txt")), ("content", .string("hi")))
        }

        // POST /events
        let created = try await send("POST /events", "/events", json: positionEvent(id: "e1", time: 1_700_000_000, latitude: 46.5, longitude: 6.6))
        #expect(created.status == 201)
        #expect(try await send("POST /events", "/events", json: positionEvent(id: "e1", time: 1, latitude: 1, longitude: 1)).status == 200)
        #expect(try await send("POST /events", "/events", json: positionEvent(time: 1, latitude: 91, longitude: 0)).status == 400)
        #expect(try await send("POST /events", "/events", token: nil, json: positionEvent(time: 1, latitude: 1, longitude: 1)).status == 401)
        #expect(try await send("POST /events", "/events", token: reader, json: positionEvent(time: 1, latitude: 1, longitude: 1)).status == 403)
        _ = try await send("POST /streams", "/streams", json: object(("id", .string("private")), ("name", .string("Private"))))
        #expect(try await send("POST /events", "/events", json: note("secret", "private")).status == 201)
        #expect(try await send("POST /events", "/events", token: contributor, json: note("secret", "position")).status == 409)
        #expect(try await send("POST /events", "/events", json: object(
            ("streamIds", .array([.string("position")])), ("type", .string("note/txt")), ("content", .string(big)))).status == 413)
        let boundary = "whereabouts-boundary"
        let multipart = "--\(boundary)\r\nContent-Disposition: form-data; name=\"event\"\r\nContent-Type: application/json\r\n\r\n"
            + #"{"id": "pic", "streamIds": ["position"], "type": "picture/attached"}"#
            + "\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--\(boundary)--\r\n"
        let picture = try await send("POST /events", "/events", text: multipart,
                                     headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")])
        #expect(picture.status == 201)
        let attachmentId = picture.json["event"]?["attachments"]?.arrayValue?.first?["id"]?.stringValue ?? "missing"

        // GET /events
        #expect(try await send("GET /events", "/events?fromTime=0&toTime=1800000000&sortAscending=true&streams[]=position").status == 200)
        #expect(try await send("GET /events", "/events?format=geojson&fromTime=0&toTime=1800000000").status == 200)
        #expect(try await send("GET /events", "/events?format=gpx&fromTime=0&toTime=1800000000").status == 200)
        #expect(try await send("GET /events", "/events?format=csv&types[]=position/*").status == 200)
        #expect(try await send("GET /events", "/events?limit=many").status == 400)
        #expect(try await send("GET /events", "/events", token: nil).status == 401)
        #expect(try await send("GET /events", "/events?streams[]=private", token: reader).status == 403)

        // GET, PUT, DELETE /events/{id}
        #expect(try await send("GET /events/{id}", "/events/e1").status == 200)
        #expect(try await send("GET /events/{id}", "/events/e1", token: nil).status == 401)
        #expect(try await send("GET /events/{id}", "/events/nothing").status == 404)
        #expect(try await send("PUT /events/{id}", "/events/e1", json: object(("duration", .number(60)))).status == 200)
        #expect(try await send("PUT /events/{id}", "/events/e1", json: object(("colour", .string("red")))).status == 400)
        #expect(try await send("PUT /events/{id}", "/events/e1", token: nil, json: object(("duration", .number(1)))).status == 401)
        #expect(try await send("PUT /events/{id}", "/events/e1", token: reader, json: object(("duration", .number(1)))).status == 403)
        #expect(try await send("PUT /events/{id}", "/events/nothing", json: object(("duration", .number(1)))).status == 404)
        #expect(try await send("PUT /events/{id}", "/events/e1", json: object(("description", .string(big)))).status == 413)
        #expect(try await send("DELETE /events/{id}", "/events/e1", token: reader).status == 403)
        #expect(try await send("DELETE /events/{id}", "/events/e1", token: nil).status == 401)
        // Changed after the client's time: 412; an event that keeps changing under the write: 409.
        let past = [("If-Unmodified-Since", "Thu, 01 Jan 1970 00:00:00 GMT")]
        #expect(try await send("PUT /events/{id}", "/events/e1", json: object(("duration", .number(1))), headers: past).status == 412)
        #expect(try await send("DELETE /events/{id}", "/events/e1", headers: past).status == 412)
        let faults = try #require(server.store as? FaultyStore)
        faults.fail([.conditionalReplaceFindsAChange])
        #expect(try await send("PUT /events/{id}", "/events/e1", json: object(("duration", .number(1)))).status == 409)
        #expect(try await send("DELETE /events/{id}", "/events/e1").status == 409)
        faults.fail([])
        #expect(try await send("DELETE /events/{id}", "/events/e1").json["event"]?["trashed"] == .bool(true))
        #expect(try await send("DELETE /events/{id}", "/events/e1").json["eventDeletion"]?["id"]?.stringValue == "e1")
        #expect(try await send("DELETE /events/{id}", "/events/e1").status == 404)
        #expect(try await send("DELETE /events/{id}", "/events/e1?permanent=maybe").status == 400)

        // Attachments
        for (operation, suffix) in [("GET /events/{id}/{attachmentId}", ""), ("GET /events/{id}/{attachmentId}/{fileName}", "/a.txt")] {
            let download = try await send(operation, "/events/pic/\(attachmentId)\(suffix)")
            #expect(download.status == 200)
            #expect(download.text == "hello")
            #expect(try await send(operation, "/events/pic/\(attachmentId)\(suffix)", token: nil).status == 401)
            #expect(try await send(operation, "/events/pic/none\(suffix)").status == 404)
            // A readToken link, under the user's path, with no token header.
            let readToken = picture.json["event"]?["attachments"]?.arrayValue?.first?["readToken"]?.stringValue ?? "missing"
            let linked = try await send(operation, "/\(alice)/events/pic/\(attachmentId)\(suffix)?readToken=\(readToken)", token: nil)
            #expect(linked.status == 200 && linked.text == "hello")
            #expect(try await send(operation, "/\(alice)/events/pic/\(attachmentId)\(suffix)?readToken=x-y", token: nil).status == 401)
        }

        // Streams
        #expect(try await send("GET /streams", "/streams").status == 200)
        #expect(try await send("GET /streams", "/streams?state=bogus").status == 400)
        #expect(try await send("GET /streams", "/streams", token: nil).status == 401)
        #expect(try await send("POST /streams", "/streams", json: object(("id", .string("a")), ("name", .string("A")))).status == 201)
        #expect(try await send("POST /streams", "/streams", json: object(("id", .string("b")), ("name", .string("B")))).status == 201)
        #expect(try await send("POST /streams", "/streams", json: object(("id", .string("a")), ("name", .string("Again")))).status == 409)
        #expect(try await send("POST /streams", "/streams", json: object(("id", .string("c")))).status == 400)
        #expect(try await send("POST /streams", "/streams", token: nil, json: object(("name", .string("C")))).status == 401)
        #expect(try await send("POST /streams", "/streams", token: contributor, json: object(("name", .string("C")))).status == 403)
        #expect(try await send("POST /streams", "/streams", json: object(("name", .string("C")), ("clientData", object(("x", .string(big)))))).status == 413)
        #expect(try await send("PUT /streams/{id}", "/streams/b", json: object(("clientData", object(("colour", .string("red")))))).status == 200)
        #expect(try await send("PUT /streams/{id}", "/streams/b", json: object(("name", .number(3)))).status == 400)
        #expect(try await send("PUT /streams/{id}", "/streams/b", token: nil, json: object(("name", .string("D")))).status == 401)
        #expect(try await send("PUT /streams/{id}", "/streams/position", token: contributor, json: object(("name", .string("D")))).status == 403)
        #expect(try await send("PUT /streams/{id}", "/streams/nowhere", json: object(("name", .string("D")))).status == 404)
        #expect(try await send("PUT /streams/{id}", "/streams/b", json: object(("name", .string("A")))).status == 409)
        #expect(try await send("PUT /streams/{id}", "/streams/b", json: object(("name", .string(big)))).status == 413)

        // Deleting streams: trash, then delete, the events in them merged or taken out.
        _ = try await send("POST /streams", "/streams", json: object(("id", .string("old")), ("name", .string("Old")), ("parentId", .string("b"))))
        _ = try await send("POST /events", "/events", json: note("in-old", "old"))
        #expect(try await send("DELETE /streams/{id}", "/streams/old").json["stream"]?["trashed"] == .bool(true))
        #expect(try await send("DELETE /streams/{id}", "/streams/old").status == 400)   // events, no mergeEventsWithParent
        #expect(try await send("DELETE /streams/{id}", "/streams/old?mergeEventsWithParent=maybe").status == 400)
        #expect(try await send("DELETE /streams/{id}", "/streams/old", token: nil).status == 401)
        #expect(try await send("DELETE /streams/{id}", "/streams/position", token: contributor).status == 403)
        #expect(try await send("DELETE /streams/{id}", "/streams/nowhere").status == 404)
        let merged = try await send("DELETE /streams/{id}", "/streams/old?mergeEventsWithParent=true")
        #expect(merged.json["streamDeletion"]?["id"]?.stringValue == "old")
        #expect(merged.json["updatedEvents"] == .array([object(("id", .string("in-old")), ("action", .string("mergedToParent")))]))

        // Accesses
        let shared = try await send("POST /accesses", "/accesses", json: object(
            ("name", .string("friend")), ("permissions", .array([object(("streamId", .string("position")), ("level", .string("read")))]))))
        #expect(shared.status == 201 && shared.json["access"]?["type"]?.stringValue == "shared")
        let sharedId = shared.json["access"]?["id"]?.stringValue ?? "missing"
        let sharedToken = shared.json["access"]?["token"]?.stringValue
        #expect(try await send("POST /accesses", "/accesses", json: object(
            ("name", .string("friend")), ("permissions", .array([object(("streamId", .string("position")), ("level", .string("read")))])))).status == 409)
        #expect(try await send("POST /accesses", "/accesses", json: object(
            ("name", .string("bad")), ("permissions", .array([object(("streamId", .string("position")), ("level", .string("bogus")))])))).status == 400)
        #expect(try await send("POST /accesses", "/accesses", token: nil, json: object(("name", .string("x")))).status == 401)
        #expect(try await send("POST /accesses", "/accesses", token: sharedToken, json: object(
            ("name", .string("x")), ("permissions", .array([object(("streamId", .string("position")), ("level", .string("read")))])))).status == 403)
        #expect(try await send("POST /accesses", "/accesses", json: object(("name", .string(big)))).status == 413)
        let listed = try await send("GET /accesses", "/accesses")
        #expect(listed.json["accesses"]?.arrayValue?.contains { $0["id"]?.stringValue == sharedId && $0["token"]?.stringValue == sharedToken } == true)
        #expect(try await send("GET /accesses", "/accesses?includeExpired=maybe").status == 400)
        #expect(try await send("GET /accesses", "/accesses", token: nil).status == 401)
        #expect(try await send("GET /accesses", "/accesses", token: sharedToken).status == 403)
        #expect(try await send("PUT /accesses/{id}", "/accesses/\(sharedId)", json: object(("name", .string("old friend")))).json["access"]?["name"]
                == .string("old friend"))
        #expect(try await send("PUT /accesses/{id}", "/accesses/\(sharedId)", json: object(("token", .string("x")))).status == 400)
        #expect(try await send("PUT /accesses/{id}", "/accesses/\(sharedId)", token: nil, json: object(("name", .string("x")))).status == 401)
        #expect(try await send("PUT /accesses/{id}", "/accesses/\(sharedId)", token: sharedToken, json: object(("name", .string("x")))).status == 403)
        #expect(try await send("PUT /accesses/{id}", "/accesses/nobody", json: object(("name", .string("x")))).status == 404)
        #expect(try await send("PUT /accesses/{id}", "/accesses/\(sharedId)", json: object(("name", .string(big)))).status == 413)
        let app = try await send("POST /accesses", "/accesses", json: object(
            ("name", .string("tablet")), ("type", .string("app")),
            ("permissions", .array([object(("streamId", .string("position")), ("level", .string("read")))]))))
        let appToken = app.json["access"]?["token"]?.stringValue
        #expect(try await send("DELETE /accesses/{id}", "/accesses/\(sharedId)", token: appToken).status == 403)   // not its own
        #expect(try await send("DELETE /accesses/{id}", "/accesses/\(sharedId)", token: nil).status == 401)
        #expect(try await send("DELETE /accesses/{id}", "/accesses/nobody").status == 404)
        #expect(try await send("DELETE /accesses/{id}", "/accesses/\(sharedId)").json["accessDeletion"]?["id"]?.stringValue == sharedId)
        #expect(try await send("GET /accesses", "/accesses", token: sharedToken).status == 401)   // deleted: gone at once

        // Account deletion: a user of its own, so that alice stays for what follows.
        let (carol, carolToken) = try await server.addUser("carol")
        #expect(try await send("DELETE /users/{username}", "/users/\(carol)", token: nil).status == 401)
        #expect(try await send("DELETE /users/{username}", "/users/\(carol)", token: token).status == 403)   // alice's
        #expect(try await send("DELETE /users/{username}", "/users/\(carol)", token: carolToken).json["userDeletion"]?["username"]?.stringValue == carol)
        // Gone meanwhile (erased on the server, her token still cached by this one for a second).
        let (dave, daveToken) = try await server.addUser("dave")
        #expect(try await server.request(.GET, "/access-info", token: daveToken).status == 200)
        _ = try await server.store.removeUser(named: dave)
        #expect(try await send("DELETE /users/{username}", "/users/\(dave)", token: daveToken).status == 404)

        // Service info, for Pryv's clients, with no token
        let info = try await send("GET /service/info", "/service/info", token: nil)
        #expect(info.status == 200 && info.json["api"]?.stringValue?.hasSuffix("/{username}/") == true)

        // Batch
        let batch = try await send("POST /", "/", json: .array([
            object(("method", .string("events.create")), ("params", positionEvent(time: 5, latitude: 1, longitude: 2))),
            object(("method", .string("events.get")), ("params", object(("limit", .number(1))))),
            object(("method", .string("streams.get")), ("params", object())),
            object(("method", .string("nothing.here"))),
        ]))
        #expect(batch.status == 200)
        #expect(batch.json["results"]?.arrayValue?.count == 4)
        #expect(try await send("POST /", "/", json: object(("method", .string("events.get")))).status == 400)
        #expect(try await send("POST /", "/", token: nil, json: .array([])).status == 401)
        #expect(try await send("POST /", "/", text: "[" + String(repeating: "1,", count: 3_000) + "1]").status == 413)
        // A store write that fails: 503, with the results of every call.
        faults.fail([.addEvents])
        let failed = try await send("POST /", "/", json: .array([
            object(("method", .string("streams.get")), ("params", object())),
            object(("method", .string("events.create")), ("params", positionEvent(time: 6, latitude: 1, longitude: 2))),
        ]))
        faults.fail([])
        #expect(failed.status == 503)
        #expect(failed.json["results"]?.arrayValue?.count == 2)
        #expect(failed.json["results"]?.arrayValue?.last?["error"]?["id"]?.stringValue == "unexpected-error")

        // Access info
        #expect(try await send("GET /access-info", "/access-info", token: contributor).json["permissions"]?.arrayValue?.count == 1)
        #expect(try await send("GET /access-info", "/access-info", token: nil).status == 401)

        // Retention
        #expect(try await send("GET /retention", "/retention", token: contributor).json["retention"]?["from"] == .string("none"))
        #expect(try await send("GET /retention", "/retention", token: nil).status == 401)

        // OwnTracks
        #expect(try await send("POST /pub", "/pub?d=phone", json: OwnTracksFixtures.location(tst: 1_700_000_000)).status == 200)
        #expect(try await send("POST /pub", "/pub", json: object(("lat", .number(1)))).status == 400)
        #expect(try await send("POST /pub", "/pub", token: nil, json: OwnTracksFixtures.location(tst: 1)).status == 401)
        #expect(try await send("POST /pub", "/pub", json: OwnTracksFixtures.location(tst: 1), headers: [("X-Limit-U", "someone-else")]).status == 403)
        // The event the message would create already exists in a stream the token cannot read: 409.
        let ownTracksId = try OwnTracksMessage.event(from: OwnTracksFixtures.location(tst: 7), device: "phone", now: 0, accessId: "a")?["id"]?
            .stringValue ?? ""
        _ = try await send("POST /events", "/events", json: note(ownTracksId, "private"))
        #expect(try await send("POST /pub", "/pub?d=phone", token: contributor, json: OwnTracksFixtures.location(tst: 7)).status == 409)
        #expect(try await send("POST /pub", "/pub", text: "{\"_type\": \"\(big)\"}").status == 413)

        // Receivers' reports: this server's venue lists no receivers (see the run with one).
        #expect(try await send("POST /receivers/reports", "/receivers/reports", json: ReceiverReportsTests.reports(at: 0)).status == 404)
        #expect(try await send("POST /receivers/reports", "/receivers/reports", token: nil, json: ReceiverReportsTests.reports(at: 0)).status == 401)

        // Operations and the map
        #expect(try await send("GET /health", "/health").status == 200)
        #expect(try await send("GET /metrics", "/metrics").status == 200)
        #expect(try await send("GET /metrics", "/metrics", token: nil).status == 401)
        #expect(try await send("GET /openapi.json", "/openapi.json", token: nil).json == document)
        if try await !isNoRoute(server.request(.GET, "/map")) {
            for operation in ["GET /map", "GET /map/map.css", "GET /map/map.js"] {
                _ = try await send(operation, split(operation).path)
            }
            _ = try await send("GET /venue", "/venue")
            #expect(try await send("GET /venue", "/venue", token: nil).status == 401)
            _ = try await send("GET /live", "/live", token: nil)
            _ = try await send("GET /live", "/live")
            let blind = try await server.token(for: alice, [])  // a token that may read nothing
            _ = try await send("GET /live", "/live", token: blind)
        }
    }

    // MARK: Helpers

    /// What the server answered, per operation, and every answer that the document does not
    /// describe.
    struct Observer {
        var statuses: [String: Set<Int>] = [:]
        var problems: [String] = []

        mutating func record(_ operation: String, _ answer: TestServer.Answer) {
            guard !OpenAPIDocumentTests.isNoRoute(answer) else { return }
            statuses[operation, default: []].insert(answer.status)
            let (method, path) = OpenAPIDocumentTests.split(operation)
            guard let response = OpenAPIDocumentTests.responses(method: method, path: path)
                .first(where: { $0.key == String(answer.status) })?.value
            else {
                problems.append("\(operation) answered \(answer.status), which is not listed: \(answer.text.prefix(300))")
                return
            }
            guard case .object(let content)? = OpenAPIDocumentTests.resolved(response)["content"] else { return }
            let mediaType = answer.headers["Content-Type"].first?.split(separator: ";").first.map(String.init) ?? ""
            guard let described = content.first(where: { $0.key == mediaType || $0.key == "*/*" })?.value else {
                problems.append("\(operation) \(answer.status) answered \(mediaType), not one of \(content.map(\.key))")
                return
            }
            guard mediaType.hasSuffix("json"), let schema = described["schema"] else { return }
            guard let body = try? JSONParser.parse(answer.body) else {
                problems.append("\(operation) \(answer.status): the body is not JSON")
                return
            }
            let errors = OpenAPIDocumentTests.validator.errors(body, schema)
            if !errors.isEmpty { problems.append("\(operation) \(answer.status): \(errors.joined(separator: "; "))") }
        }
    }

    static func isNoRoute(_ answer: TestServer.Answer) -> Bool {
        answer.status == 404 && answer.errorId == "unknown-resource"
            && answer.json["error"]?["message"]?.stringValue?.contains("No route") == true
    }

    static func split(_ operation: String) -> (method: String, path: String) {
        let parts = operation.split(separator: " ", maxSplits: 1)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "/")
    }

    static func operations(of item: JSONValue) -> [(String, JSONValue)] {
        guard case .object(let members) = item else { return [] }
        return members.filter { ["get", "put", "post", "delete", "patch"].contains($0.key) }.map { ($0.key.uppercased(), $0.value) }
    }

    static func parameters(of value: JSONValue) -> [JSONValue] {
        (value["parameters"]?.arrayValue ?? []).map(resolved)
    }

    static func resolved(_ value: JSONValue) -> JSONValue {
        if case .string(let reference)? = value["$ref"], let target = validator.resolve(reference) { return target }
        return value
    }

    static func responses(method: String, path: String) -> [(key: String, value: JSONValue)] {
        guard case .object(let responses)? = document["paths"]?[path]?[method.lowercased()]?["responses"] else { return [] }
        return responses
    }
}

/// OwnTracks messages for tests.
enum OwnTracksFixtures {
    static func location(tst: Double) -> JSONValue {
        object(("_type", .string("location")), ("lat", .number(46.5)), ("lon", .number(6.6)), ("tst", .number(tst)),
               ("acc", .number(10)), ("tid", .string("ph")))
    }
}

