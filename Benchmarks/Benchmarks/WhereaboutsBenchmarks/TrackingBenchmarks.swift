import Benchmark
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Whereabouts
import WhereaboutsServer
import WhereaboutsServerTesting
import WhereaboutsTracking

/// The tracking chain's targets: how fast the outbox acknowledges events durably, how fast the
/// sender delivers them to a server, and how much memory a large backlog costs while it drains.
/// Every outbox (and the server's data) lives in a temporary folder removed afterwards. The events
/// are `position/wgs84` events as ``FixAcceptor`` makes them (content, `clientData`, time-ordered
/// ids of the tracker's shape).
///
/// - **"Tracking: outbox, durable acceptance (group commit)"** (target ≥ 20,000 events/s):
///   64 tasks call ``Outbox/enqueue(_:checkpoint:)`` at once, each with one `.create` at a time,
///   waiting for each acknowledgement before its next call; the outbox commits the calls that
///   arrive while a write is in flight together (WAL, `synchronous = FULL`). One iteration is
///   1,000 acknowledged events (built before the measurement starts), counted as 1,000
///   (`scalingFactor: .kilo`): the throughput reads in **thousands of events per second** (K).
/// - **"Tracking: outbox, durable acceptance (one caller)"**: for comparison, a single caller
///   enqueueing one `.create` at a time, so that every acknowledgement waits for its own sync
///   (the physical limit of one fsync per acknowledgement). One iteration is one event: the
///   throughput reads in **events per second**, the wall clock is the latency of one durable
///   acknowledgement.
/// - **"Tracking: delivery to a local server"** (target ≥ 10,000 events/s): a real Whereabouts
///   server in this process on a free loopback port, over SQLite in a temporary folder, rate
///   limit off. Each iteration queues 1,000 events in the outbox (one `enqueue` call, not
///   measured), then measures ``OutboxSender/deliverPending()`` (default batch size, the
///   server's batch call) until the outbox is empty. Counted as 1,000 (`.kilo`): the throughput
///   reads in **thousands of events per second**. The server's store grows from one iteration to
///   the next, as a server's does.
/// - **"Tracking: drain of a 1,000,000-event backlog"** (target < 100 MB): the setup fills an
///   outbox with 1,000,000 events (`enqueue` of 10,000 changes per call, not measured); the one
///   iteration drains it **without a server**, exactly as ``OutboxSender/deliverPending()``
///   does apart from the HTTP request: `pendingItems(limit: 500)`, the batch calls' bytes
///   (`batchCall`), then `settle(.delivered)` of the 500 items, until nothing waits. (Delivering a
///   million events to a server would take minutes, and the server's own memory would be counted
///   with the outbox's.) `peakMemoryResident` is the largest resident set of the whole process,
///   sampled every ~5 ms while the drain runs; the wall clock is the drain's duration.
///
/// Run them alone in release (the first release build takes a while):
///
/// ```sh
/// swift package --allow-writing-to-package-directory benchmark --target WhereaboutsBenchmarks --filter "Tracking.*"
/// ```
func registerTrackingBenchmarks() {
    let groupCommit = OutboxRun(label: "group-commit")
    Benchmark("Tracking: outbox, durable acceptance (group commit)",
              configuration: .init(metrics: [.throughput, .wallClock], warmupIterations: 1, scalingFactor: .kilo,
                                   maxDuration: .seconds(5), maxIterations: 200),
              closure: { benchmark async in
                  let events = groupCommit.nextEvents(benchmark.scaledIterations.count)
                  benchmark.startMeasurement()
                  do {
                      try await groupCommit.enqueueConcurrently(events, callers: 64)
                  } catch {
                      benchmark.error("enqueue failed: \(error)")
                  }
                  benchmark.stopMeasurement()
              },
              setup: { try groupCommit.open() },
              teardown: { groupCommit.remove() })

    let oneCaller = OutboxRun(label: "one-caller")
    Benchmark("Tracking: outbox, durable acceptance (one caller)",
              configuration: .init(metrics: [.throughput, .wallClock], warmupIterations: 10, scalingFactor: .one,
                                   maxDuration: .seconds(3), maxIterations: 20_000),
              closure: { benchmark async in
                  let event = oneCaller.nextEvents(1)[0]
                  benchmark.startMeasurement()
                  do {
                      try await oneCaller.outbox?.enqueue(.create(event))
                  } catch {
                      benchmark.error("enqueue failed: \(error)")
                  }
                  benchmark.stopMeasurement()
              },
              setup: { try oneCaller.open() },
              teardown: { oneCaller.remove() })

    let delivery = DeliveryRun()
    Benchmark("Tracking: delivery to a local server",
              configuration: .init(metrics: [.throughput, .wallClock], warmupIterations: 1, scalingFactor: .kilo,
                                   maxDuration: .seconds(8), maxIterations: 100),
              closure: { benchmark async in
                  let count = benchmark.scaledIterations.count
                  do {
                      try await delivery.fill(count)
                      benchmark.startMeasurement()
                      let delivered = try await delivery.deliver()
                      benchmark.stopMeasurement()
                      if delivered != count { benchmark.error("delivered \(delivered) of \(count) events") }
                  } catch {
                      benchmark.error("delivery failed: \(error)")
                  }
              },
              setup: { try await delivery.start() },
              teardown: { await delivery.stop() })

    let drain = DrainRun(backlog: 1_000_000)
    Benchmark("Tracking: drain of a 1,000,000-event backlog",
              configuration: .init(metrics: [.peakMemoryResident, .wallClock], warmupIterations: 0, scalingFactor: .one,
                                   maxDuration: .seconds(600), maxIterations: 1),
              closure: { benchmark async in
                  do {
                      let drained = try await drain.drain()
                      if drained != drain.backlog { benchmark.error("drained \(drained) of \(drain.backlog) items") }
                  } catch {
                      benchmark.error("drain failed: \(error)")
                  }
              },
              setup: { try await drain.fill() },
              teardown: { drain.remove() })
}

/// Position events as a tracker makes them: `position/wgs84`, one a second. Their ids have the
/// shape of ``EventIdentifiers/random``'s (`c`, the time in milliseconds as 8 base-36 digits, 16
/// base-36 characters), time-ordered, but their last 16 characters are a random prefix chosen once
/// and a counter: drawing 16 random characters per id (a `getrandom` call each) would make filling
/// a million-event outbox take several times longer.
private struct TrackingEventSource {
    private static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
    private let prefix = String((0..<8).map { _ in Character(UnicodeScalar(digits.randomElement()!)) })
    private var time = Date().timeIntervalSince1970 - 30 * 86_400
    private var index = 0

    private static func base36(_ value: UInt64, width: Int) -> String {
        var value = value
        var out = [UInt8](repeating: UInt8(ascii: "0"), count: width)
        for position in stride(from: width - 1, through: 0, by: -1) {
            out[position] = digits[Int(value % 36)]
            value /= 36
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func identifier() -> String {
        "c" + Self.base36(UInt64(time * 1000), width: 8) + prefix + Self.base36(UInt64(index), width: 8)
    }

    mutating func next() -> TrackedEvent {
        index += 1
        time += 1
        let fix = Fix(time: time, device: "phone", point: SpatialPoint(x: Double(index % 100), y: 5, z: 0), floor: 1,
                      accuracy: 3, coordinate: GeoCoordinate(latitude: 46.5 + Double(index % 1_000) / 100_000,
                                                             longitude: 6.6 + Double(index % 997) / 100_000),
                      method: "default")
        return TrackedEvent(id: identifier(), streamIds: ["position"], time: time, duration: 0,
                            type: PositionContent.wgs84Type, content: PositionContent.content(of: fix, metresPerUnit: 1),
                            clientData: PositionContent.clientData(of: fix))
    }

    mutating func next(_ count: Int) -> [TrackedEvent] {
        (0..<count).map { _ in next() }
    }
}

/// A temporary folder for one benchmark's outbox (and server data).
private func temporaryFolder(_ label: String) -> String {
    NSTemporaryDirectory() + "whereabouts-tracking-benchmark-\(label)-" + UUID().uuidString
}

/// An outbox in a temporary folder, and the events enqueued into it.
private final class OutboxRun: @unchecked Sendable {
    private let label: String
    private var folder = ""
    private var source = TrackingEventSource()
    private(set) var outbox: Outbox?

    init(label: String) { self.label = label }

    func open() throws {
        folder = temporaryFolder(label)
        outbox = try Outbox(path: folder + "/outbox.sqlite")
    }

    func nextEvents(_ count: Int) -> [TrackedEvent] { source.next(count) }

    /// `callers` tasks enqueue `events` between them, one change per call, each waiting for its
    /// acknowledgement before its next call.
    func enqueueConcurrently(_ events: [TrackedEvent], callers: Int) async throws {
        guard let outbox else { return }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for caller in 0..<callers {
                group.addTask {
                    for index in stride(from: caller, to: events.count, by: callers) {
                        try await outbox.enqueue(.create(events[index]))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    func remove() {
        outbox = nil
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// A Whereabouts server on a free loopback port over SQLite in a temporary folder (rate limit
/// off), one user, and an outbox with its sender delivering to that user.
private final class DeliveryRun: @unchecked Sendable {
    private var folder = ""
    private var server: LocalServer?
    private var outbox: Outbox?
    private var sender: OutboxSender?
    private var source = TrackingEventSource()

    func start() async throws {
        folder = temporaryFolder("delivery")
        let server = LocalServer()
        try await server.start()
        self.server = server
        let token = try await server.addUser("benchmark")
        let outbox = try Outbox(path: folder + "/outbox.sqlite")
        let client = try TrackingClient(server: server.url, token: token)
        try await client.start()
        self.outbox = outbox
        sender = OutboxSender(outbox: outbox, client: client)
    }

    /// Queues `count` new events in one call.
    func fill(_ count: Int) async throws {
        guard let outbox else { return }
        try await outbox.enqueue(source.next(count).map { OutboxChange.create($0) })
    }

    func deliver() async throws -> Int {
        guard let sender else { return 0 }
        return try await sender.deliverPending()
    }

    func stop() async {
        try? await server?.stop()
        server?.remove()
        server = nil
        sender = nil
        outbox = nil
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// An outbox in a temporary folder holding `backlog` events, drained the way the sender drains
/// one, without the HTTP request.
private final class DrainRun: @unchecked Sendable {
    let backlog: Int
    private var folder = ""
    private var outbox: Outbox?

    init(backlog: Int) { self.backlog = backlog }

    func fill() async throws {
        folder = temporaryFolder("drain")
        let outbox = try Outbox(path: folder + "/outbox.sqlite")
        var source = TrackingEventSource()
        var queued = 0
        while queued < backlog {
            let count = min(10_000, backlog - queued)
            try await outbox.enqueue(source.next(count).map { OutboxChange.create($0) })
            queued += count
        }
        self.outbox = outbox
    }

    /// Reads, "sends" and settles batches of 500 until nothing waits; returns how many items.
    func drain() async throws -> Int {
        guard let outbox else { return 0 }
        var drained = 0
        while true {
            let items = try await outbox.pendingItems(limit: 500)
            if items.isEmpty { break }
            blackHole(items.map(\.batchCall))
            try await outbox.settle(items.map { .delivered($0, serverDuration: $0.kind == .create ? $0.duration : nil) })
            drained += items.count
        }
        return drained
    }

    func remove() {
        outbox = nil
        try? FileManager.default.removeItem(atPath: folder)
    }
}
