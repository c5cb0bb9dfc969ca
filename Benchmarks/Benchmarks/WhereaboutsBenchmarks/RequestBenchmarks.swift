import Benchmark
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import Whereabouts
import WhereaboutsServer

/// One request at a time through the whole server in process — its middleware (errors,
/// authentication), router, route, validation, store (SQLite, normal durability, a temporary
/// directory) and answer — but no socket or HTTP parsing: what a request costs the server above
/// the framework's own work, which `Scripts/ingest-benchmark.sh` measures over HTTP.
///
/// Each iteration sends one request and reads its whole answer; `mallocCountTotal` is the
/// allocations of one request (the framework's request and context included).
func registerRequestBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .one,
        maxDuration: .seconds(3))

    let kinds: [(RequestRun.Kind, String)] = [
        (.event, "Requests: POST /events, one position event, in process"),
        (.owntracks, "Requests: POST /pub (OwnTracks), one location, in process"),
    ]
    for (kind, name) in kinds {
        let run = RequestRun(kind: kind)
        Benchmark(name,
                  configuration: configuration,
                  closure: { benchmark async throws in
                      for _ in benchmark.scaledIterations { blackHole(try await run.send()) }
                  },
                  setup: { try await run.prepare() },
                  teardown: { try await run.close() })
    }
}

/// A server's responder over a SQLite store in a temporary directory, with one user, and the
/// requests of one kind sent to it one after the other.
private final class RequestRun: @unchecked Sendable {
    enum Kind { case event, owntracks }

    let kind: Kind
    private var directory = ""
    private var store: SQLiteEventStore?
    private var responder: (any HTTPResponder<ServerRequestContext>)?
    private var authorization = ""
    private var counter = 0
    // NIOAsyncTestingChannel, not EmbeddedChannel: the requests run on any thread of the
    // concurrency pool, and an EmbeddedChannel may only be touched on the thread that made it
    // (NIO reports every other use as API misuse). Hummingbird's own router tests do the same.
    private let channel = NIOAsyncTestingChannel()
    private let logger = Logger(label: "benchmark", factory: { _ in SwiftLogNoOpLogHandler() })

    init(kind: Kind) {
        self.kind = kind
    }

    func prepare() async throws {
        directory = NSTemporaryDirectory() + "whereabouts-benchmark-" + UUID().uuidString
        let store = try SQLiteEventStore(directory: directory)
        try await store.migrate()
        let (_, token) = try await UserAdministration(store: store).addUser(named: "benchmark")
        authorization = switch kind {
        case .event: token
        case .owntracks: "Basic " + Data("benchmark:\(token)".utf8).base64EncodedString()
        }
        var configuration = WhereaboutsServer.ServerConfiguration()
        configuration.rateLimit = nil
        let app = try makeServerApplication(configuration: configuration, store: store, logger: logger)
        // The application's responder type is opaque; its context is the server's.
        responder = try await app.responder as? any HTTPResponder<ServerRequestContext>
        guard responder != nil else { throw CancellationError() }
        self.store = store
        counter = 0
    }

    /// Sends the next request; returns its status code (201 or 200) and the answer's length.
    func send() async throws -> (status: Int, bytes: Int) {
        guard let responder else { return (0, 0) }
        counter += 1
        let latitude = 46.5 + Double(counter % 1_000) / 100_000, longitude = 6.6 + Double(counter % 777) / 100_000
        let time = 1_763_700_000 + counter
        let (path, body): (String, String) = switch kind {
        case .event:
            ("/events", #"{"streamIds":["position"],"time":\#(time),"type":"position/wgs84","content":{"latitude":\#(latitude),"longitude":\#(longitude),"horizontalAccuracy":8}}"#)
        case .owntracks:
            ("/pub", #"{"_type":"location","tid":"ph","lat":\#(latitude),"lon":\#(longitude),"acc":8,"tst":\#(time),"batt":80}"#)
        }
        var headers: HTTPFields = [.authorization: authorization, .contentType: "application/json",
                                   .contentLength: String(body.utf8.count)]
        if kind == .owntracks { headers[HTTPField.Name("X-Limit-D")!] = "phone" }
        let request = Request(head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: path,
                                                headerFields: headers),
                              body: RequestBody(buffer: ByteBuffer(string: body)))
        let context = ServerRequestContext(source: .init(channel: channel, logger: logger))
        let response = try await responder.respond(to: request, context: context)
        let count = ByteCount()
        try await response.body.write(CountingWriter(count: count))
        return (response.status.code, count.bytes)
    }

    func close() async throws {
        try await store?.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The bytes of an answer's body.
private final class ByteCount: @unchecked Sendable {
    var bytes = 0
}

/// Reads an answer's body, counting its bytes.
private struct CountingWriter: ResponseBodyWriter {
    let count: ByteCount

    mutating func write(_ buffer: ByteBuffer) async throws {
        count.bytes += buffer.readableBytes
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
