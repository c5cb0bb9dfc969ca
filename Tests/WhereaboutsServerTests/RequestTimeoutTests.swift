import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Slow and idle clients: a connection that sends nothing, trickles a head (slowloris) or stalls
/// in a body is closed at its deadline; a client that keeps to time is served, and a `/live`
/// socket outlives the deadlines.
@Suite("Request timeouts", .serialized)
struct RequestTimeoutTests {
    static var configuration: ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.requestTimeouts = .init(head: .milliseconds(1_500), body: .milliseconds(3_000))
        return configuration
    }

    /// A plain TCP connection to the test server.
    final class RawConnection {
        let fd: Int32

        init(port: Int) throws {
            #if canImport(Glibc)
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            fd = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else { throw CocoaError(.fileReadUnknown) }
        }

        deinit { close(fd) }

        /// Sends `text`; false when the server has closed the connection.
        @discardableResult
        func transmit(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            return bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) } == bytes.count
        }

        /// What arrives within `seconds`, and whether the server closed the connection by then.
        /// It polls without blocking (and sleeps between polls), so that it never holds one of
        /// the few threads the server's tasks run on.
        func receive(for seconds: Double, until marker: String? = nil) async -> (text: String, closed: Bool) {
            var received: [UInt8] = []
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if let marker, String(decoding: received, as: UTF8.self).contains(marker) { break }
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 0) > 0 else {
                    try? await Task.sleep(for: .milliseconds(10))
                    continue
                }
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
                received += buffer[..<count]
            }
            return (String(decoding: received, as: UTF8.self), false)
        }
    }

    @Test("A connection that sends nothing, or an idle keep-alive one, is closed at the head deadline")
    func idleConnectionsClose() async throws {
        try await TestServer.run(.sqlite, configuration: Self.configuration) { server in
            let silent = try RawConnection(port: server.port)
            #expect(await silent.receive(for: 1).closed == false)
            #expect(await silent.receive(for: 5).closed)

            let keepAlive = try RawConnection(port: server.port)
            keepAlive.transmit("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let answer = await keepAlive.receive(for: 10, until: "serial")
            #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(answer.text)")
            #expect(answer.closed == false)
            // Served again before the deadline, then idle past it.
            keepAlive.transmit("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let again = await keepAlive.receive(for: 10, until: "serial")
            #expect(again.text.hasPrefix("HTTP/1.1 200"), "\(again.text)")
            #expect(await keepAlive.receive(for: 5).closed)
        }
    }

    @Test("A head sent a byte at a time is cut at the deadline, however steady the bytes")
    func slowlorisIsCut() async throws {
        try await TestServer.run(.sqlite, configuration: Self.configuration) { server in
            let slow = try RawConnection(port: server.port)
            let head = "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Padding: " + String(repeating: "a", count: 100)
            let started = Date()
            var closed = false
            for character in head where !closed {
                slow.transmit(String(character))
                closed = await slow.receive(for: 0.1).closed
            }
            #expect(closed, "a trickled head was still open after \(Date().timeIntervalSince(started)) s")
            #expect(Date().timeIntervalSince(started) < 10)
        }
    }

    @Test("A body that stalls is cut at the body deadline; one that arrives in time is served")
    func stalledBodiesAreCut() async throws {
        try await TestServer.run(.sqlite, configuration: Self.configuration) { server in
            let (_, token) = try await server.addUser("tess")
            let event = #"{"streamIds":["position"],"type":"note/txt","content":"hello"}"#
            let head = "POST /events HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(event.utf8.count)\r\n\r\n"

            let stalled = try RawConnection(port: server.port)
            stalled.transmit(head + event.prefix(10))
            // Past the head deadline, inside the body's: still open.
            #expect(await stalled.receive(for: 2).closed == false)
            #expect(await stalled.receive(for: 8).closed)

            // A body that arrives in parts within its deadline (longer than the head's) is served.
            let steady = try RawConnection(port: server.port)
            steady.transmit(head + event.prefix(10))
            _ = await steady.receive(for: 1)
            steady.transmit(String(event.dropFirst(10).prefix(10)))
            _ = await steady.receive(for: 0.8)
            steady.transmit(String(event.dropFirst(20)))
            let answer = await steady.receive(for: 10, until: "serial")
            #expect(answer.text.hasPrefix("HTTP/1.1 201"), "\(answer.text)")
        }
    }

    @Test("A /live socket outlives the request deadlines")
    func liveSocketsStayOpen() async throws {
        try await TestServer.run(.sqlite, configuration: Self.configuration) { server in
            let (_, token) = try await server.addUser("uma")
            let socket = try RawConnection(port: server.port)
            socket.transmit("GET /live?auth=\(token) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            let handshake = await socket.receive(for: 10, until: "\r\n\r\n")
            #expect(handshake.text.hasPrefix("HTTP/1.1 101"), "\(handshake.text)")
            // Well past both deadlines, the socket is open and carries an event created now.
            #expect(await socket.receive(for: 4).closed == false)
            let created = try await server.request(.POST, "/events", token: token, json: positionEvent(time: 100, latitude: 1, longitude: 2))
            #expect(created.status == 201)
            let frame = await socket.receive(for: 10, until: "position/wgs84")
            #expect(frame.closed == false)
            #expect(frame.text.contains("position/wgs84"), "\(frame.text)")
        }
    }
}
