import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to a local server, for tests that must send exactly the bytes they
/// choose, when they choose: a request's head a byte at a time, a body that stops half-way, a
/// client that vanishes.
///
/// ```swift
/// let connection = try RawHTTPConnection(port: server.port)
/// connection.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
/// let (text, closed) = await connection.receive(for: 5, until: "\r\n\r\n")
/// ```
public final class RawHTTPConnection {
    private let descriptor: Int32

    /// Connects to `127.0.0.1:port`.
    public init(port: Int) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(descriptor)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot connect to port \(port)"])
        }
    }

    deinit { close(descriptor) }

    /// Sends `text`; `false` when the server has closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        return bytes.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, flags) } == bytes.count
    }

    /// Closes the connection from this side, as a client that vanishes does.
    public func abort() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// What arrives within `seconds` (or until the text holds `marker`), and whether the server
    /// closed the connection by then. It waits on a thread of its own (``DedicatedThread``): the
    /// window is the socket's, not delayed by a test's task waiting for a thread of the
    /// concurrency pool, and it holds none of the few threads a server in the same process runs
    /// its tasks on.
    public func receive(for seconds: Double, until marker: String? = nil) async -> (text: String, closed: Bool) {
        let descriptor = descriptor
        // The connection (whose end closes the descriptor) lives until the wait is over.
        defer { withExtendedLifetime(self) {} }
        return await DedicatedThread.run { Self.receive(from: descriptor, for: seconds, until: marker) }
    }

    /// ``receive(for:until:)``'s wait, blocking the calling thread.
    private static func receive(from descriptor: Int32, for seconds: Double, until marker: String?) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        let end = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let marker, String(decoding: received, as: UTF8.self).contains(marker) { break }
            let remaining = end.timeIntervalSinceNow
            guard remaining > 0 else { break }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, Int32(min(remaining * 1_000, 100).rounded(.up)))
            guard ready > 0 else { continue }   // timed out or interrupted: look at the time again
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[..<count]
        }
        return (String(decoding: received, as: UTF8.self), false)
    }
}
