import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP relay from a local port to a server, that a test can cut: ``interrupt()`` drops every
/// connection and stops listening (new connections are refused) until ``resume()`` listens on
/// the same port again — what a database restart looks like to its clients. It runs on threads
/// of its own (blocking calls), never on the concurrency pool.
final class TCPProxy: @unchecked Sendable {
    /// The local port clients connect to.
    let port: Int
    private let targetPort: Int
    private var listener: Int32
    private let lock = NSLock()
    private var open: [Int32] = []
    private var refusing = false

    /// Listens on a free port of 127.0.0.1 and relays to `127.0.0.1:targetPort`.
    init(targetPort: Int) throws {
        self.targetPort = targetPort
        let (fd, port) = try Self.makeListener(port: 0)
        listener = fd
        self.port = port
        startAccepting(fd)
    }

    /// A socket listening on `127.0.0.1:port` (0: any free port), and its port.
    private static func makeListener(port: Int) throws -> (Int32, Int) {
        let fd = socketFD()
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "the proxy cannot listen on port \(port)"])
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private func startAccepting(_ fd: Int32) {
        Thread { [self] in acceptLoop(fd) }.start()
    }

    /// Drops every relayed connection and stops listening: connections are refused.
    ///
    /// The listener is shut down, which wakes its accept loop, and the loop closes it: were it
    /// closed here, a loop between two `accept` calls could call the next on a descriptor number
    /// already reused by another socket of the process, and block there for ever (a listener
    /// closed under a blocked `accept` does not wake it on Linux), keeping the process alive.
    func interrupt() {
        lock.withLock {
            refusing = true
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
            shutdown(listener, Int32(SHUT_RDWR))
        }
    }

    /// Listens on the same port again.
    func resume() throws {
        let (fd, _) = try Self.makeListener(port: port)
        lock.withLock {
            listener = fd
            refusing = false
        }
        startAccepting(fd)
    }

    /// Stops listening and drops every connection.
    func stop() {
        if !lock.withLock({ refusing }) { interrupt() }
    }

    /// Accepts on `listener` until it is shut down, then closes it.
    private func acceptLoop(_ listener: Int32) {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return  // the listener was shut down
            }
            // A connection that raced an interrupt is dropped: the database is away.
            guard !lock.withLock({ refusing && self.listener == listener }) else {
                close(client)
                continue
            }
            guard let upstream = connectUpstream() else {
                close(client)
                continue
            }
            lock.withLock { open += [client, upstream] }
            Thread { [self] in pump(from: client, to: upstream) }.start()
            Thread { [self] in pump(from: upstream, to: client) }.start()
        }
    }

    private func connectUpstream() -> Int32? {
        let fd = Self.socketFD()
        var address = Self.loopback(port: targetPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if connected { return fd }
        close(fd)
        return nil
    }

    /// Copies bytes one way until either side ends, then ends both.
    private func pump(from source: Int32, to sink: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        loop: while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            var offset = 0
            while offset < count {
                #if canImport(Glibc)
                let flags = Int32(MSG_NOSIGNAL)
                #else
                let flags: Int32 = 0
                #endif
                let sent = buffer.withUnsafeBytes { Foundation.send(sink, $0.baseAddress.map { $0 + offset }, count - offset, flags) }
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { break loop }
                offset += sent
            }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(sink, Int32(SHUT_RDWR))
        // The second pump of the pair closes both descriptors.
        let last = lock.withLock { () -> Bool in
            let before = open.count
            open.removeAll { $0 == source }
            return open.count < before && !open.contains(sink)
        }
        if last {
            close(source)
            close(sink)
        }
    }

    private static func socketFD() -> Int32 {
        #if canImport(Glibc)
        socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }
}
