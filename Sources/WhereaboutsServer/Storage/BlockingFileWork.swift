import Foundation
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File work that may block — writes, `fsync`, renames of uploads — run on NIO's pool of
/// threads for blocking calls, so that a slow disk never holds one of the few threads that run
/// every request's async code.
///
/// ```swift
/// try await BlockingFileWork.run { try files.place(uploads, user: "alice", event: id) }
/// ```
enum BlockingFileWork {
    /// Runs `body` on the blocking pool and returns its result.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    /// Writes `bytes` to the file at `path` — created (`O_EXCL` when `exclusive`, else
    /// truncated) or appended to — and syncs it when asked; a failure names `what` ("an
    /// attachment") and the system's reason.
    static func write(
        _ bytes: [UInt8], to path: String, creating: Bool, exclusive: Bool = false, sync: Bool = false, what: String
    ) throws {
        let flags = creating ? (O_WRONLY | O_CREAT | (exclusive ? O_EXCL : O_TRUNC)) : (O_WRONLY | O_APPEND)
        let fd = open(path, flags, 0o600)
        guard fd >= 0 else { throw failure(path, "open \(what)") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Foundation.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw failure(path, "write \(what)")
            }
            offset += written
        }
        if sync, fsync(fd) != 0 { throw failure(path, "sync \(what)") }
    }

    /// A failed file operation, with `errno`'s text.
    static func failure(_ path: String, _ operation: String) -> StorageIOError {
        StorageIOError(path: path, operation: operation, reason: String(cString: strerror(errno)))
    }
}
