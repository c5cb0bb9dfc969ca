/// The `/live` sockets open, per token and in all, against their caps: so that one token (or
/// many) cannot hold the server's connections and memory.
///
/// ```swift
/// let connections = LiveConnections(limits: .init(perToken: 16, total: 4_096))
/// guard await connections.open("access-id") else { /* refuse */ }
/// defer { Task { await connections.close("access-id") } }
/// ```
actor LiveConnections {
    /// The caps.
    let limits: ServerConfiguration.LiveConnectionLimits
    private var byAccess: [String: Int] = [:]
    private var total = 0

    init(limits: ServerConfiguration.LiveConnectionLimits) {
        self.limits = limits
    }

    /// Whether one more socket of `accessId` would be admitted now.
    func admits(_ accessId: String) -> Bool {
        total < limits.total && byAccess[accessId, default: 0] < limits.perToken
    }

    /// Counts a socket of `accessId` in, or returns `false` when a cap is reached.
    func open(_ accessId: String) -> Bool {
        guard admits(accessId) else { return false }
        byAccess[accessId, default: 0] += 1
        total += 1
        return true
    }

    /// Counts a socket of `accessId` out.
    func close(_ accessId: String) {
        guard let count = byAccess[accessId] else { return }
        byAccess[accessId] = count > 1 ? count - 1 : nil
        total = max(0, total - 1)
    }

    /// The sockets open now, in all.
    var openCount: Int { total }
}
