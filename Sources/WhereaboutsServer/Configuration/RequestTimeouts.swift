/// How long a client may take to send its requests: a connection that opens and sends nothing,
/// sends a request's head a byte at a time (slowloris), or stalls in a body is closed, so that
/// slow or idle clients cannot hold the server's connections.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.requestTimeouts = .init(head: .seconds(10), body: .seconds(60))
/// ```
public struct RequestTimeouts: Sendable {
    /// How long a client has to send a request's whole head (request line and headers), counted
    /// from when the connection opened or the last answer on it ended: also how long an idle
    /// keep-alive connection stays open (default 20 s).
    public var head: Duration
    /// How long a request's body may take to arrive in full, counted from its head (default
    /// 120 s: 10 MiB of attachments at 85 KB/s).
    public var body: Duration

    /// Creates timeouts.
    public init(head: Duration = .seconds(20), body: Duration = .seconds(120)) {
        self.head = head
        self.body = body
    }
}
