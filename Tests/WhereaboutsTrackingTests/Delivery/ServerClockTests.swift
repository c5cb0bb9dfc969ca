import Foundation
import Hummingbird
import NIOCore
import Testing
import Whereabouts
import WhereaboutsServerTesting
@testable import WhereaboutsTracking

/// A server whose clock is ten minutes ahead: it answers `/access-info`, and takes batches of
/// creates, answering each with the event as sent (and keeping them for the test).
actor SkewedServer {
    static let skew = 600.0
    private(set) var received: [JSONValue] = []

    func keep(_ events: [JSONValue]) { received += events }

    static func meta() -> String {
        #"{"apiVersion":"1.9.0","serverTime":\#(Date().timeIntervalSince1970 + skew)}"#
    }

    func run(_ body: @Sendable (Int) async throws -> Void) async throws {
        let router = Router()
        router.get("/access-info") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(string: #"{"name":"t","user":{"username":"u"},"permissions":[],"meta":\#(Self.meta())}"#)))
        }
        router.post("/") { request, _ in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            let calls = (try? JSONParser.parse(bytes.readableBytesView))?.arrayValue ?? []
            let events = calls.compactMap { $0["params"] }
            await self.keep(events)
            let results = events.map { JSONWriter().string(from: .object([("event", $0)])) }.joined(separator: ",")
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: #"{"results":[\#(results)],"meta":\#(Self.meta())}"#)))
        }
        try await withLoopbackServer(router, body)
    }
}

extension JSONValue {
    var arrayValue: [JSONValue]? { if case .array(let items) = self { items } else { nil } }
}

@Suite("The server's clock")
struct ServerClockTests {
    @Test("Against a server ten minutes ahead, the client measures the offset and events carry server time")
    func skewedServer() async throws {
        let server = SkewedServer()
        try await server.run { port in
            let client = try TrackingClient(server: "http://127.0.0.1:\(port)", token: "t")
            // The server stamps its time somewhere within the round trip and the client takes the
            // round trip's middle, so the offset is the skew within half the round trip (a busy
            // machine can make that long): judged against the round trip itself.
            let before = Date().timeIntervalSince1970
            let serverNow = try await client.start()
            let local = Date().timeIntervalSince1970
            let tolerance = (local - before) / 2 + 0.1
            #expect(abs(serverNow - local - SkewedServer.skew) <= tolerance)
            let offset = try #require(await client.clockOffset)
            #expect(abs(offset - SkewedServer.skew) <= tolerance)

            // A live tracker shifts fix times (this machine's clock) by the offset.
            let temporary = TemporaryOutbox()
            defer { temporary.remove() }
            let outbox = try temporary.open()
            let tracker = try await Tracker(outbox: outbox, acceptor: FixAcceptor(timeShift: offset), source: "live")
            _ = try await tracker.record(fix(local, x: 3, y: 4))
            try await OutboxSender(outbox: outbox, client: client).deliverPending()
            let sent = await server.received
            #expect(sent.count == 1)
            let time = try #require(sent.first?["time"]).numberValue ?? 0
            #expect(abs(time - (local + offset)) < 0.001)   // the fix's own time, shifted by the measured offset
        }
    }
}

extension JSONValue {
    var numberValue: Double? { if case .number(let n) = self { n } else { nil } }
}
