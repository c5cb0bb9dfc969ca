import Benchmark
import Foundation
import Whereabouts
import WhereaboutsServer

/// The server's batch path, piece by piece: reading a batch body, storing its events, writing the
/// answer. Each iteration of these benchmarks handles one batch of 1,000 `events.create` calls and
/// is counted as its 1,000 events (`scalingFactor: .kilo`), so the throughput reads in events per
/// second. `Scripts/load-test.sh` measures the same path end to end over HTTP.
func registerServerBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3))
    let fixture = ServerFixture()

    Benchmark("Server: parse a batch body (1,000 events.create)", configuration: configuration) { benchmark in
        for _ in stride(from: 0, to: benchmark.scaledIterations.count, by: ServerFixture.batchSize) {
            blackHole(try? JSONParser.parse(fixture.body))
        }
    }

    Benchmark("Server: write a batch answer (1,000 events)", configuration: configuration) { benchmark in
        for _ in stride(from: 0, to: benchmark.scaledIterations.count, by: ServerFixture.batchSize) {
            var out: [UInt8] = []
            out.reserveCapacity(ServerFixture.batchSize * 340)
            fixture.answer.writeMembers(to: &out)
            blackHole(out)
        }
    }

    // The same answer through JSONValue trees: what the direct writer saves.
    Benchmark("Server: write a batch answer through JSON trees (1,000 events)", configuration: configuration) { benchmark in
        for _ in stride(from: 0, to: benchmark.scaledIterations.count, by: ServerFixture.batchSize) {
            blackHole(JSONWriter().bytes(from: .object([("results", fixture.answer.jsonValue)])))
        }
    }

    // Validation, identifiers, stream checks and the SQLite transaction, as the batch route runs
    // them (the store grows from one iteration to the next, as a server's does).
    let store = ServerStoreRun()
    Benchmark("Server: create 1,000 events in SQLite (validate, encode, insert)",
              configuration: configuration,
              closure: { benchmark async in
                  for _ in stride(from: 0, to: benchmark.scaledIterations.count, by: ServerFixture.batchSize) {
                      await blackHole(store.createBatch(fixture.inputs))
                  }
              },
              setup: { try await store.prepare() },
              teardown: { try await store.close() })
}

/// A batch of 1,000 position events (a device's track, one a second) as a request body, as
/// create inputs, and as the answer to them.
private final class ServerFixture: Sendable {
    static let batchSize = 1_000

    let body: [UInt8]
    let inputs: [APIService.EventCreateInput]
    let answer: BatchResult

    init() {
        var calls: [JSONValue] = []
        var events: [Event] = []
        for index in 0..<Self.batchSize {
            let time = 1_763_700_000 + Double(index)
            let content: JSONValue = .object([
                ("latitude", .number(46.5 + Double(index) / 100_000)),
                ("longitude", .number(6.6 + Double(index) / 100_000)),
                ("horizontalAccuracy", .number(8)),
            ])
            calls.append(.object([
                ("method", .string("events.create")),
                ("params", .object([
                    ("streamIds", .array([.string("position")])), ("time", .number(time)),
                    ("type", .string("position/wgs84")), ("content", content),
                ])),
            ]))
            events.append(Event(
                id: "cmi8dfxmo" + String(index + 1_000_000_000_000_000, radix: 36).suffix(16), streamIds: ["position"],
                time: time, type: "position/wgs84", content: content,
                created: time + 0.25, createdBy: "cmi8dfxmoaccess00000000", modified: time + 0.25,
                modifiedBy: "cmi8dfxmoaccess00000000"))
        }
        body = JSONWriter().bytes(from: .array(calls))
        inputs = calls.map { APIService.EventCreateInput(json: $0["params"] ?? .null) }
        answer = BatchResult(answers: events.map { .event($0) })
    }
}

/// An API service over a SQLite store in a temporary directory, with one user.
private final class ServerStoreRun: @unchecked Sendable {
    private var directory = ""
    private var store: SQLiteEventStore?
    private var service: APIService?
    private var access: Access?

    func prepare() async throws {
        directory = NSTemporaryDirectory() + "whereabouts-benchmark-" + UUID().uuidString
        let store = try SQLiteEventStore(directory: directory)
        try await store.migrate()
        let (_, token) = try await UserAdministration(store: store).addUser(named: "benchmark")
        access = try await store.access(tokenHash: AccessToken.hash(token))
        service = APIService(store: store, streams: StreamDirectory(store: store), metrics: ServerMetrics())
        self.store = store
    }

    func createBatch(_ inputs: [APIService.EventCreateInput]) async -> Int {
        guard let service, let access else { return 0 }
        return await service.createEvents(inputs, access: access).count
    }

    func close() async throws {
        try await store?.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
