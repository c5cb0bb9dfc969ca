import Foundation
import Logging
import NIOCore
import Testing
import Whereabouts
@testable import WhereaboutsServer
import WhereaboutsServerTesting

/// Slow and idle clients: a connection that sends nothing, trickles a head (slowloris) or stalls
/// in a body is closed at its deadline; a client that keeps to time is served, and a `/live`
/// socket outlives the deadlines.
@Suite("Request timeouts", .serialized)
struct RequestTimeoutTests {
    static var configuration: ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.requestTimeouts = .init(head: .seconds(3), body: .seconds(6))
        return configuration
    }

    @Test("A connection that sends nothing, or an idle keep-alive one, is closed at the head deadline")
    func idleConnectionsClose() async throws {
        try await TestServer.run(.sqlite, configuration: Self.configuration) { server in
            let silent = try RawHTTPConnection(port: server.port)
            #expect(await silent.receive(for: 1).closed == false)
            #expect(await silent.receive(for: 8).closed)

            let keepAlive = try RawHTTPConnection(port: server.port)
            keepAlive.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let answer = await keepAlive.receive(for: 10, until: "serial")
            #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(answer.text)")
            #expect(answer.closed == false)
            // Served again before the deadline, then idle past it.
            keepAlive.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let again = await keepAlive.receive(for: 10, until: "serial")
            #expect(again.text.hasPrefix("HTTP/1.1 200"), "\(again.text)")
            #expect(await keepAlive.receive(for: 8).closed)
        }
    }

    @Test("A head sent a byte at a time is cut at the deadline, however steady the bytes")
    func slowlorisIsCut() async throws {
        try await TestServer.run(.sqlite, configuration: Self.configuration) { server in
            let slow = try RawHTTPConnection(port: server.port)
            let head = "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Padding: " + String(repeating: "a", count: 100)
            let started = Date()
            var closed = false
            for character in head where !closed {
                slow.send(String(character))
                closed = await slow.receive(for: 0.1).closed
            }
            #expect(closed, "a trickled head was still open after \(Date().timeIntervalSince(started)) s")
            #expect(Date().timeIntervalSince(started) < 12)
        }
    }

    @Test("A body that stalls is cut at the body deadline; one that arrives in time is served")
    func stalledBodiesAreCut() async throws {
        try await TestServer.run(.sqlite, configuration: Self.configuration) { server in
            let (_, token) = try await server.addUser("tess")
            let event = #"{"streamIds":["position"],"type":"note/txt","content":"hello"}"#
            let head = "POST /events HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(event.utf8.count)\r\n\r\n"

            let stalled = try RawHTTPConnection(port: server.port)
            stalled.send(head + event.prefix(10))
            // Past the head deadline, inside the body's: still open.
            #expect(await stalled.receive(for: 4).closed == false)
            #expect(await stalled.receive(for: 10).closed)

            // A body that arrives in parts within its deadline (longer than the head's) is served.
            let steady = try RawHTTPConnection(port: server.port)
            steady.send(head + event.prefix(10))
            _ = await steady.receive(for: 2)
            steady.send(String(event.dropFirst(10).prefix(10)))
            _ = await steady.receive(for: 1.5)
            steady.send(String(event.dropFirst(20)))
            let answer = await steady.receive(for: 10, until: "serial")
            #expect(answer.text.hasPrefix("HTTP/1.1 201"), "\(answer.text)")
        }
    }

    @Test("A request refused before its body was read still leaves the connection under a deadline")
    func refusedBeforeTheBody() async throws {
        try await TestServer.run(.sqlite, configuration: Self.configuration) { server in
            let body = #"{"streamIds":["position"],"type":"note/txt","content":"hello"}"#
            let connection = try RawHTTPConnection(port: server.port)
            connection.send("POST /events HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                            + "Content-Length: \(body.utf8.count)\r\n\r\n")
            let refused = await connection.receive(for: 10, until: "serial")
            #expect(refused.text.hasPrefix("HTTP/1.1 401"), "\(refused.text)")
            guard !refused.closed else { return }
            connection.send(body)
            #expect(await connection.receive(for: 10).closed, "an answered connection stayed open past its deadline")
        }
    }

    @Test("A /live socket outlives the request deadlines")
    func liveSocketsStayOpen() async throws {
        try await TestServer.run(.sqlite, configuration: Self.configuration) { server in
            let (_, token) = try await server.addUser("uma")
            let socket = try RawHTTPConnection(port: server.port)
            socket.send("GET /live?auth=\(token) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            let handshake = await socket.receive(for: 10, until: "\r\n\r\n")
            #expect(handshake.text.hasPrefix("HTTP/1.1 101"), "\(handshake.text)")
            // Well past both deadlines, the socket is open and carries an event created now.
            #expect(await socket.receive(for: 7).closed == false)
            let created = try await server.request(.POST, "/events", token: token, json: positionEvent(time: 100, latitude: 1, longitude: 2))
            #expect(created.status == 201)
            let frame = await socket.receive(for: 10, until: "position/wgs84")
            #expect(frame.closed == false)
            #expect(frame.text.contains("position/wgs84"), "\(frame.text)")
        }
    }

    @Test("A connection closed before its first request is not logged as an error; other errors are")
    func closedConnectionsAreNotErrors() {
        final class Recorder: LogHandler, @unchecked Sendable {
            var events: [(Logger.Level, String)] = []
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .info
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) { events.append((event.level, event.message.description)) }
        }
        let recorder = Recorder()
        var logger = Logger(label: "test") { _ in recorder }
        logger.handler = ClosedBeforeRequestLogFilter(base: recorder)
        logger.error("Error handling upgrade result", metadata: ["error.type": .string("\(ChannelError.inappropriateOperationForState)")])
        logger.error("Error handling upgrade result", metadata: ["error.type": .string("some other failure")])
        logger.error("Something else")
        #expect(recorder.events.map(\.1) == ["Error handling upgrade result", "Something else"])
        #expect(recorder.events.allSatisfy { $0.0 == .error })
        recorder.logLevel = .debug
        logger.error("Error handling upgrade result", metadata: ["error.type": .string("\(ChannelError.inappropriateOperationForState)")])
        #expect(recorder.events.last?.0 == .debug)
    }
}
