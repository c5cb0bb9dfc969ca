import NIOPosix

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
}
