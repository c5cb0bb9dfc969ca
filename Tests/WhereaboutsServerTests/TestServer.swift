import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// A real Whereabouts server on a free loopback port, over a real store, driven through a real
/// HTTP client.
struct TestServer: Sendable {
    /// The port the server bound.
    let port: Int
    /// The store behind the server.
    let store: any EventStore
    /// Makes user names unique to the test.
    let harness: StoreHarness
    /// Where the server publishes events for `/live`.
    let liveFeed: LiveFeed
    /// What the server logged (warnings and errors): kept for the test, not printed.
    let log: LogCapture

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// An HTTP answer: status, headers and body.
    struct Answer: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The body as JSON (`.null` when it is not JSON).
        var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }

        /// The Pryv error id of an error answer.
        var errorId: String? {
            if case .string(let id)? = json["error"]?["id"] { return id }
            return nil
        }
    }

    /// Starts a server for `kind`, runs `body`, and shuts the server down gracefully.
    static func run(
        _ kind: StoreKind, configuration: ServerConfiguration = ServerConfiguration(),
        liveFeed: LiveFeed = LiveFeed(), wrappingStore wrap: (any EventStore) -> any EventStore = { $0 },
        _ body: (TestServer) async throws -> Void
    ) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { base in
            let store = wrap(base)
            var configuration = configuration
            configuration.port = 0
            // No purge in the background unless the test asks for one: the PostgreSQL half shares
            // one database between tests, whose users' events another server's purge must not take.
            if configuration.retention.defaultKeep == nil { configuration.retention.interval = nil }
            let log = LogCapture()
            var logger = Logger(label: "test.server") { _ in CapturingLogHandler(capture: log) }
            logger.logLevel = .warning
            let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
            let app = try makeServerApplication(configuration: configuration, store: store, liveFeed: liveFeed, logger: logger) { port in
                portContinuation.yield(port)
            }
            let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                var iterator = ports.makeAsyncIterator()
                guard let port = await iterator.next() else { throw CancellationError() }
                let server = TestServer(port: port, store: store, harness: harness, liveFeed: liveFeed, log: log)
                do {
                    try await body(server)
                } catch {
                    await group.triggerGracefulShutdown()
                    throw error
                }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    /// Adds a user (name made unique to the test) and returns its real name and personal token.
    func addUser(_ base: String) async throws -> (name: String, token: String) {
        let name = harness.name(base)
        let (_, token) = try await UserAdministration(store: store).addUser(named: name)
        return (name, token)
    }

    /// Issues a token for `user` limited to `permissions`.
    func token(for user: String, _ permissions: [Permission]) async throws -> String {
        try await UserAdministration(store: store).issueToken(for: user, name: "test", permissions: permissions)
    }

    /// Sends a request; `json` is written as the body with a JSON content type.
    func request(
        _ method: HTTPMethod, _ path: String, token: String? = nil, json: JSONValue? = nil,
        body: [UInt8]? = nil, headers: [(String, String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: token) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: JSONWriter().string(from: json)))
        } else if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: TestDeadline.answerTime)
        let collected = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Array(collected.readableBytesView))
    }

    /// Sends raw text as the body.
    func request(_ method: HTTPMethod, _ path: String, token: String? = nil, text: String,
                 headers: [(String, String)] = []) async throws -> Answer {
        try await request(method, path, token: token, body: Array(text.utf8), headers: headers)
    }
}

/// Builds JSON values tersely in tests: `json(["a": 1])` keeps no order, so tests use the
/// helpers below, which do.
func object(_ members: (String, JSONValue)...) -> JSONValue {
    .object(members.map { (key: $0.0, value: $0.1) })
}

/// A `position/wgs84` event body.
func positionEvent(id: String? = nil, stream: String = "position", time: Double, latitude: Double, longitude: Double,
                   accuracy: Double? = nil) -> JSONValue {
    var content: [(key: String, value: JSONValue)] = [("latitude", .number(latitude)), ("longitude", .number(longitude))]
    if let accuracy { content.append(("horizontalAccuracy", .number(accuracy))) }
    var members: [(key: String, value: JSONValue)] = [
        ("streamIds", .array([.string(stream)])), ("time", .number(time)), ("type", .string("position/wgs84")),
        ("content", .object(content)),
    ]
    if let id { members.insert(("id", .string(id)), at: 0) }
    return .object(members)
}

extension JSONValue {
    /// The string at this value, if it is one.
    var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The number at this value, if it is one.
    var numberValue: Double? { if case .number(let n) = self { n } else { nil } }
    /// The elements, if it is an array.
    var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
}
