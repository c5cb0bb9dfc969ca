import Whereabouts

/// How a Whereabouts server runs: where it listens, what it accepts, and what it knows.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 9000
/// configuration.rateLimit = .init(requestsPerSecond: 50, burst: 100)
/// ```
public struct ServerConfiguration: Sendable {
    /// The largest request bodies the server reads.
    public struct BodyLimits: Sendable {
        /// For JSON bodies, in bytes (default 1 MiB).
        public var json: Int
        /// For multipart bodies carrying attachments, in bytes (default 10 MiB).
        public var attachments: Int

        /// Creates limits.
        public init(json: Int = 1 << 20, attachments: Int = 10 << 20) {
            self.json = json
            self.attachments = attachments
        }
    }

    /// A per-token rate: `requestsPerSecond` on average, bursts of up to `burst`.
    ///
    /// A request costs one; each event it writes in a batch or reads in an answer or export costs
    /// ``eventCost`` more, charged once the work is done, so that a token's budget is a share
    /// of what the server can do rather than a count of requests: a batch of 5,000 creates or an
    /// answer of 10,000 events is not the price of a single-event post.
    public struct RateLimit: Sendable {
        /// The sustained rate.
        public var requestsPerSecond: Double
        /// The most requests at once.
        public var burst: Double

        /// Creates a rate limit.
        public init(requestsPerSecond: Double, burst: Double) {
            self.requestsPerSecond = requestsPerSecond
            self.burst = burst
        }

        /// What an event written by a batch or read by an answer costs, in requests: a tenth.
        /// On the reference machine (2 cores) the server writes batched events 11 to 14 times
        /// as fast as it takes single-event posts (141,000–149,000 events/s against
        /// 10,400–13,000 requests/s), and streams stored events faster still.
        public static let eventCost = 0.1

        /// The default: 1,500 a second with bursts of 3,000 — an eighth of what the reference
        /// machine takes from all clients together (10,400–13,000 single-event posts a second),
        /// so that one token, however busy, leaves most of the server to the others, while a
        /// device posting a position a second, or a gateway relaying a hundred, never meets it.
        /// A 5,000-call batch costs 501; a backlog of a week at one position a second
        /// (604,800 events in batches of 5,000) passes in about 40 seconds.
        public static let standard = RateLimit(requestsPerSecond: 1_500, burst: 3_000)
    }

    /// The certificate and key a server speaks TLS (HTTPS, WSS) with: PEM files.
    public struct TLSFiles: Sendable {
        /// The certificate chain, PEM (the server's certificate first).
        public var certificateChain: String
        /// The private key, PEM.
        public var privateKey: String

        /// Names the files.
        public init(certificateChain: String, privateKey: String) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    /// How much one request may ask of the server: whatever a client sends, an answer's size in
    /// memory stays under a bound these set.
    public struct AnswerLimits: Sendable {
        /// The most events one `GET /events` answer holds, or `nil` (the default) for no cap:
        /// an answer is written as it is read, so any number costs a page of memory. With a cap
        /// (an operator's opt-in), a longer answer ends with `next`, which the client follows.
        public var eventsPerAnswer: Int?
        /// The most events an answer that must be held whole may hold (default 10,000): a
        /// batch's `events.get` calls together, and a newest-first export cut by `limit` or
        /// `skip`. Asking for more fails with 413, never with a silently shorter answer.
        public var eventsHeldWhole: Int
        /// The most calls one batch may hold (default 5,000, the tracking client's largest batch).
        public var batchCalls: Int
        /// How long the tombstone of a deleted event is kept for clients that sync with
        /// `includeDeletions` (seconds; default a year): a client whose last sync is older must
        /// read everything again.
        public var deletionsKeptFor: Double

        /// Creates limits (each at least 1).
        public init(eventsPerAnswer: Int? = nil, eventsHeldWhole: Int = 10_000, batchCalls: Int = 5_000,
                    deletionsKeptFor: Double = 365 * 86_400) {
            self.eventsPerAnswer = eventsPerAnswer.map { max(1, $0) }
            self.eventsHeldWhole = max(1, eventsHeldWhole)
            self.batchCalls = max(1, batchCalls)
            self.deletionsKeptFor = max(0, deletionsKeptFor)
        }
    }

    /// How many `/live` sockets may be open at once.
    public struct LiveConnectionLimits: Sendable {
        /// Per token (default 16).
        public var perToken: Int
        /// In all (default 4,096).
        public var total: Int

        /// Creates limits.
        public init(perToken: Int = 16, total: Int = 4_096) {
            self.perToken = max(1, perToken)
            self.total = max(1, total)
        }
    }

    /// The address to listen on (default `127.0.0.1`; `0.0.0.0` for every interface).
    public var host: String
    /// The port (default 8080; 0 picks a free one).
    public var port: Int
    /// Body size limits.
    public var bodyLimits: BodyLimits
    /// The per-token rate limit, or `nil` for none (default ``RateLimit/standard``: 1,500 a second, bursts of 3,000).
    public var rateLimit: RateLimit?
    /// The venue the map page draws, when the server was given one.
    public var venue: Venue?
    /// The URL clients reach the server at (e.g. `https://where.example.org`, behind a proxy),
    /// which `/service/info` gives Pryv's clients; `nil`: the scheme this server serves and each
    /// request's `Host`.
    public var publicURL: String?
    /// TLS, or `nil` for plain HTTP (fine on loopback; elsewhere tokens would cross the network
    /// in clear, which `whereabouts serve` refuses unless told `--insecure-http`).
    public var tls: TLSFiles?
    /// Whether `/venue` and `/metrics` answer without a token: `nil` (the default) for yes on a
    /// loopback address and no elsewhere, where they need a valid token of any user (the venue's
    /// plan and the server's traffic are not for everyone on a network).
    public var publicVenueAndMetrics: Bool?

    /// Whether `/venue` and `/metrics` answer without a token, defaults applied.
    public var venueAndMetricsArePublic: Bool { publicVenueAndMetrics ?? Self.isLoopback(host) }

    /// How long a client may take to send a request's head and body (see ``RequestTimeouts``).
    public var requestTimeouts = RequestTimeouts()
    /// How much one answer or one batch may hold (events per answer, calls per batch).
    public var answerLimits = AnswerLimits()
    /// The longest one operation of a shared (PostgreSQL) store may take before its request is
    /// answered 503 (default 40 s: PostgreSQL's statement timeout, 30 s, and 10 s to connect);
    /// `nil` for no limit. See ``TimeLimitedEventStore``. A SQLite store is local and has its
    /// own bound (it waits at most 10 s for the writer).
    public var storeTimeout: Duration? = .seconds(40)
    /// The caps on open `/live` sockets.
    public var liveConnections = LiveConnectionLimits()
    /// How many unknown tokens one client address may try: 5 a second on average, bursts of 20
    /// (see ``TokenAuthenticator``).
    public var failedAuthentications = RateLimit(requestsPerSecond: 5, burst: 20)
    /// How the reports of the venue's fixed receivers are fused and their tags followed
    /// (`POST /{username}/receivers/reports`, when ``venue`` lists receivers).
    public var tags = TagPipeline.Configuration()
    /// Ways in for receivers' reports besides HTTP (``ReceiverReportFeed``: an MQTT broker's
    /// ESPresense messages), each run for the server's lifetime; they need a ``venue`` that
    /// lists receivers.
    public var reportFeeds: [any ReceiverReportFeed] = []
    /// The clock the tags' pipelines run on between reports (exits fall due on it while the
    /// receivers are silent); tests give a `ManualClock`.
    public var clock: any Clock<Duration> = ContinuousClock()
    /// How long events are kept, and how often the server purges older ones.
    public var retention = Retention()

    /// How long events are kept: each user's own retention (`whereabouts users retention`), else
    /// ``defaultKeep``; events that ended longer ago are purged every ``interval``, the first time
    /// at start, in transactions of at most ``batchSize`` events.
    public struct Retention: Sendable {
        /// Seconds an event is kept when its user has no retention of their own; `nil`: for ever.
        public var defaultKeep: Double?
        /// How often the server purges; `nil`: never in the background (`whereabouts users
        /// purge` still does on demand).
        public var interval: Duration?
        /// Events deleted per transaction.
        public var batchSize: Int

        /// Creates settings; by default events are kept for ever, purged hourly where a user asks.
        public init(defaultKeep: Double? = nil, interval: Duration? = .seconds(3_600), batchSize: Int = 1_000) {
            self.defaultKeep = defaultKeep
            self.interval = interval
            self.batchSize = batchSize
        }
    }

    /// Whether `host` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`): the only ones
    /// plain HTTP is safe on.
    public static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "[::1]" { return true }
        let parts = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Creates a configuration with the defaults.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, bodyLimits: BodyLimits = .init(),
        rateLimit: RateLimit? = .standard, venue: Venue? = nil
    ) {
        self.host = host
        self.port = port
        self.bodyLimits = bodyLimits
        self.rateLimit = rateLimit
        self.venue = venue
    }
}
