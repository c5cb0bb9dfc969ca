import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Whereabouts
import WhereaboutsMQTT
import WhereaboutsServer

/// `whereabouts serve`
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Whereabouts server: a location-event store with a Pryv-compatible API.",
        discussion: HelpText.fitting("""
        Keeps the events (positions, notes, pictures) that devices and gateways send, per user, \
        in SQLite (--data-dir, the default) or PostgreSQL (--database). Pryv-style clients work \
        unchanged (POST/GET /events, /streams, batch POST /); OwnTracks apps report to POST /pub \
        in HTTP mode. GET /openapi.json describes the API; GET /map draws a user's track; \
        GET /health and GET /metrics (Prometheus) are for operations. Stops gracefully on \
        SIGINT or SIGTERM.

        Every API request needs a token: add a user with `whereabouts users add NAME` (same \
        --data-dir or --database) and send the token it prints in the Authorization header \
        (?auth=TOKEN is accepted only on /live, where a browser cannot send a header).

        Fixed receivers: with a --venue that lists receivers, gateways send their reports \
        (`whereabouts relay`), and with --mqtt the server also reads what ESPresense nodes \
        publish on a broker, as `bridge` does: each tag's positions and places become \
        --mqtt-user's events (streams tag-<tag> under tags, drawn on /map), and each named tag's \
        room and position are published back for Home Assistant.

        Plain HTTP is for loopback: bound to any other address the server needs --tls-cert and \
        --tls-key (HTTPS, and WSS for /live), or --insecure-http when a TLS proxy in front of it \
        does the encryption — otherwise tokens would cross the network in clear.

        Examples:
          whereabouts users add alice
          whereabouts serve
          whereabouts serve --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem --venue Examples/venue.json
          whereabouts serve --host 0.0.0.0 --insecure-http      # behind a TLS-terminating proxy
          whereabouts serve --database postgres://whereabouts:secret@db:5432/whereabouts
          whereabouts serve --venue venue.json --tags tags.json --mqtt mqtt://ha:secret@homeassistant.local --mqtt-user alice
          curl -H "Authorization: TOKEN" http://127.0.0.1:8080/events -d '{
              "streamIds": ["position"], "type": "position/wgs84",
              "content": {"latitude": 46.5, "longitude": 6.6}}'
        """)
    )

    @OptionGroup var store: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The address to listen on (0.0.0.0 for every interface).", valueName: "address"))
    var host = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port to listen on (0 picks a free one).", valueName: "port"))
    var port = 8080

    @Option(name: .long, help: ArgumentHelp(
        "A venue for the map page to draw (beacons, places, floors); when it lists receivers, their reports (`whereabouts relay`) locate its tags.",
        valueName: "venue.json"))
    var venue: String?

    @Option(name: .long, help: ArgumentHelp("Seconds without a located scan before a receivers' tag leaves its place.", valueName: "seconds"))
    var tagExitTimeout: Double = 30

    @OptionGroup var tags: TagsFileOption

    @Option(name: .long, help: ArgumentHelp("Also read ESPresense nodes' reports from this MQTT broker, and publish the tags' rooms for Home Assistant (needs --venue with receivers and --mqtt-user).",
                                            valueName: "mqtt://host"))
    var mqtt: String?

    @Option(name: .long, help: ArgumentHelp("The user whose tags the broker's reports locate (their events go to that user's streams).", valueName: "name"))
    var mqttUser: String?

    @OptionGroup(title: "ESPresense and Home Assistant (with --mqtt)") var espresense: ESPresenseOptions

    @Option(name: .long, help: ArgumentHelp("The largest JSON body accepted, in bytes (K and M suffixes allowed).", valueName: "size"))
    var maxJsonBody = "1M"

    @Option(name: .long, help: ArgumentHelp("The largest multipart body (event with attachments) accepted.", valueName: "size"))
    var maxAttachmentBody = "10M"

    @Option(name: .long, help: ArgumentHelp(
        "Cap GET /events answers at this many events; a longer one ends with `next`, which Pryv's own clients do not follow (default: no cap, as Pryv).",
        valueName: "count"))
    var maxEventsPerAnswer: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Days the tombstone of a deleted event is kept for clients that sync with includeDeletions.", valueName: "days"))
    var keepDeletions: Double = 365

    @Option(name: .long, help: ArgumentHelp(
        "The URL clients reach this server at (behind a proxy), which /service/info gives Pryv's clients; default: this server's scheme and the request's Host.",
        valueName: "url"))
    var publicURL: String?

    @Option(name: .long, help: ArgumentHelp(
        "Seconds a client has to send a request's head; also how long an idle connection stays open.", valueName: "seconds"))
    var headerTimeout: Double = 20

    @Option(name: .long, help: ArgumentHelp("Seconds a request's body may take to arrive.", valueName: "seconds"))
    var bodyTimeout: Double = 120

    @Option(name: .long, help: ArgumentHelp(
        "Requests per second allowed per token on average; each event a batch writes or an answer reads costs a tenth of one (0: no limit).",
        valueName: "rate"))
    var rateLimit: Double = ServerConfiguration.RateLimit.standard.requestsPerSecond

    @Option(name: .long, help: ArgumentHelp("Requests a token may send at once before the rate applies.", valueName: "count"))
    var burst: Double = ServerConfiguration.RateLimit.standard.burst

    @Option(name: .long, help: ArgumentHelp("Log level.", valueName: "level"))
    var logLevel: Logger.Level = .info

    @Option(name: .long, help: ArgumentHelp("The TLS certificate chain, PEM (with --tls-key): serve HTTPS.", valueName: "cert.pem"))
    var tlsCert: String?

    @Option(name: .long, help: ArgumentHelp("The TLS private key, PEM (with --tls-cert).", valueName: "key.pem"))
    var tlsKey: String?

    @Option(name: .long, help: ArgumentHelp(
        "Keep events this long when their user has no retention of their own (`users retention`): seconds, or 30m, 12h, 90d, 52w; events older are purged hourly, leaving tombstones. Default: for ever.",
        valueName: "duration"))
    var keep: String?

    @Flag(name: .long, help: "Let /venue and /metrics answer without a token on an address other than loopback.")
    var publicVenueAndMetrics = false

    @Flag(name: .long, help: "Serve plain HTTP on an address other than loopback (a TLS proxy in front must encrypt).")
    var insecureHTTP = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535.") }
        guard tagExitTimeout > 0, tagExitTimeout <= 86_400 else {
            throw ValidationError("--tag-exit-timeout must be a number of seconds above 0, at most a day.")
        }
        _ = try Self.byteCount(maxJsonBody, option: "--max-json-body")
        _ = try Self.byteCount(maxAttachmentBody, option: "--max-attachment-body")
        guard (0.1...3_600).contains(headerTimeout), (0.1...86_400).contains(bodyTimeout) else {
            throw ValidationError("--header-timeout must be from 0.1 to 3600 seconds, --body-timeout from 0.1 to 86400.")
        }
        if let maxEventsPerAnswer, !(1...1_000_000).contains(maxEventsPerAnswer) {
            throw ValidationError("--max-events-per-answer must be from 1 to 1000000.")
        }
        guard rateLimit >= 0, burst >= 1 else { throw ValidationError("--rate-limit must be ≥ 0 and --burst ≥ 1.") }
        guard (0...36_500).contains(keepDeletions) else { throw ValidationError("--keep-deletions must be from 0 to 36500 days.") }
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host?.isEmpty == false,
                  url.query == nil, url.fragment == nil
            else {
                throw ValidationError("--public-url must be an http or https URL with a host and no query, e.g. https://where.example.org.")
            }
        }
        if let keep, UsersCommand.Token.seconds(in: keep) == nil {
            throw ValidationError("--keep must be a duration: seconds, or with a unit (30m, 12h, 90d, 52w).")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("Give --tls-cert and --tls-key together.") }
        if mqtt != nil {
            guard mqttUser != nil else { throw ValidationError("--mqtt needs --mqtt-user: the user whose streams the tags' positions and places go to.") }
            guard venue != nil else { throw ValidationError("--mqtt needs --venue: a venue whose \"receivers\" are the ESPresense nodes.") }
        } else if mqttUser != nil || espresense.mqttCa != nil || espresense.shard != nil || !espresense.topic.isEmpty || !espresense.receiverName.isEmpty {
            throw ValidationError("--mqtt-user, --mqtt-ca, --shard, --topic and --receiver-name go with --mqtt.")
        }
        for path in [tlsCert, tlsKey].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: path) {
            throw ValidationError("\(path): no such file, or not readable (--tls-cert / --tls-key).")
        }
        if tlsCert == nil, !insecureHTTP, !ServerConfiguration.isLoopback(host) {
            throw ValidationError("""
                Serving \(host) over plain HTTP would send tokens across the network in clear. Give --tls-cert and \
                --tls-key, or --insecure-http if a TLS proxy in front of the server encrypts.
                """)
        }
    }

    func run() async throws {
        // A file-size limit (`ulimit -f`) reached by a write must fail that write (EFBIG: a 503
        // for its request), as a full disk does, not kill the server with SIGXFSZ. The store's
        // writes run on threads that block the signal already; this covers every other thread.
        signal(SIGXFSZ, SIG_IGN)
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "whereabouts.server")
        var configuration = ServerConfiguration(host: host, port: port)
        configuration.bodyLimits = .init(
            json: try Self.byteCount(maxJsonBody, option: "--max-json-body"),
            attachments: try Self.byteCount(maxAttachmentBody, option: "--max-attachment-body"))
        configuration.rateLimit = rateLimit > 0 ? .init(requestsPerSecond: rateLimit, burst: burst) : nil
        configuration.answerLimits.eventsPerAnswer = maxEventsPerAnswer
        configuration.answerLimits.deletionsKeptFor = keepDeletions * 86_400
        configuration.publicURL = publicURL
        configuration.retention.defaultKeep = keep.flatMap(UsersCommand.Token.seconds(in:))
        if publicVenueAndMetrics { configuration.publicVenueAndMetrics = true }
        configuration.requestTimeouts = .init(head: .milliseconds(Int64(headerTimeout * 1000)),
                                              body: .milliseconds(Int64(bodyTimeout * 1000)))
        if let venue { configuration.venue = try tags.adding(to: VenueOptions.read(at: venue)) }
        configuration.tags.exitTimeout = tagExitTimeout
        if let tlsCert, let tlsKey { configuration.tls = .init(certificateChain: tlsCert, privateKey: tlsKey) }
        let eventStore = try await store.open(logger: logger, creating: true)
        if let mqtt, let mqttUser, let venueValue = configuration.venue, let venue {
            do {
                configuration.reportFeeds = [try await openFeed(mqtt, user: mqttUser, venue: venueValue, path: venue, store: eventStore)]
            } catch {
                try? await eventStore.close()
                throw error
            }
        }
        let summary = store.summary
        let host = configuration.host
        let scheme = configuration.tls == nil ? "http" : "https"
        let app: any ApplicationProtocol
        do {
            app = try makeServerApplication(configuration: configuration, store: eventStore, logger: logger) { port in
                logger.notice("Whereabouts server listening", metadata: [
                    "url": "\(scheme)://\(host):\(port)", "store": "\(summary)",
                ])
            }
        } catch let error as ServerSetupError {
            try? await eventStore.close()
            throw CommandFailure(error.description)
        }
        do {
            try await app.runService()
        } catch {
            try? await eventStore.close()
            if "\(error)".contains("Address already in use") {
                throw CommandFailure("Port \(port) on \(host) is in use by another process (another server?): stop it, "
                                     + "or choose another port with --port (0 picks a free one).")
            }
            if "\(error)".contains("Cannot assign requested address") || "\(error)".contains("Name or service not known") {
                throw CommandFailure("Cannot listen on \(host): it is not an address of this machine (--host).")
            }
            throw CommandFailure("The server stopped: \(error)")
        }
        logger.notice("Whereabouts server stopped")
        try await eventStore.close()
    }

    /// The feed of ESPresense's messages on `url` for `user`'s tags (connecting as the broker
    /// answers; a refused password stops the server); an error naming what is wrong (no such
    /// user, a venue without receivers).
    private func openFeed(_ url: String, user: String, venue: Venue, path: String, store: any EventStore) async throws -> MQTTReportFeed {
        guard try await store.user(named: user) != nil else {
            throw CommandFailure("--mqtt-user \(user): no such user in \(self.store.summary); add it with `whereabouts users add \(user)`.")
        }
        let input = try espresense.input(for: venue, path: path, role: "--mqtt")
        let output = try espresense.output(for: venue)
        var mqttConfiguration = try MQTTConnection.configuration(url: url, caFile: espresense.mqttCa)
        mqttConfiguration.will = output?.will
        // Not waited for: a broker that boots after the server is connected to when it answers.
        let connection = MQTTConnection.start(mqttConfiguration, label: "whereabouts.mqtt", logLevel: logLevel)
        var logger = Logger(label: "whereabouts.mqtt")
        logger.logLevel = logLevel
        // The server fuses: the bridge only reads and publishes.
        let shard = try espresense.tagShard
        let bridge = ESPresenseBridge(broker: connection.client, venue: venue, input: input, output: output,
                                      filters: espresense.filters, shard: shard, logger: logger)
        return MQTTReportFeed(user: user, name: shard.map { "mqtt-bridge-\($0.index)of\($0.count)" } ?? "mqtt-bridge",
                              bridge: bridge, connection: connection)
    }

    /// A size such as `1048576`, `512K` or `10M` in bytes.
    static func byteCount(_ text: String, option: String) throws -> Int {
        let multiplier: Int
        var digits = Substring(text)
        switch text.last?.uppercased() {
        case "K": multiplier = 1 << 10; digits = digits.dropLast()
        case "M": multiplier = 1 << 20; digits = digits.dropLast()
        case "G": multiplier = 1 << 30; digits = digits.dropLast()
        default: multiplier = 1
        }
        guard let value = Int(digits), value > 0, value <= Int.max / multiplier else {
            throw ValidationError("\(option) must be a positive size such as 1048576, 512K or 10M.")
        }
        return value * multiplier
    }
}
