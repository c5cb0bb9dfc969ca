import Foundation
import NIOSSL

/// Where an ``MQTTClient`` connects, as whom, and its bounds and timings.
///
/// Most users write it as a URL:
///
/// ```swift
/// var configuration = try MQTTConfiguration(url: "mqtts://whereabouts:secret@broker.lan")
/// configuration.will = MQTTMessage(topic: "whereabouts/status", payload: "offline", retain: true)
/// ```
public struct MQTTConfiguration: Sendable {
    /// The broker's host name or address.
    public var host: String
    /// The broker's port (1883 for `mqtt://`, 8883 for `mqtts://` unless the URL says).
    public var port: Int
    /// The user name the broker checks, if any.
    public var userName: String?
    /// The password the broker checks, if any.
    public var password: String?
    /// TLS, when the broker is reached over it (`mqtts://`); `nil` for plain TCP.
    public var tls: TLSConfiguration?
    /// The client id: unique per connection to a broker (a second client with the same id
    /// disconnects the first).
    public var clientId: String
    /// Whether the broker forgets this client's subscriptions and queued messages when it
    /// disconnects. With `false` (and a fixed ``clientId``), a broker that persists its sessions
    /// keeps QoS 1 messages for the client while it is away.
    public var cleanSession = true
    /// The longest silence before the client pings; the broker drops a client that says nothing
    /// for 1.5 times this. A ping not answered within this interval closes the connection. Zero
    /// turns keep-alive off.
    public var keepAlive: Duration = .seconds(30)
    /// What the broker publishes for this client if the connection is lost without a
    /// `DISCONNECT` (Home Assistant's availability reads it).
    public var will: MQTTMessage?
    /// How long the TCP, TLS and `CONNECT` handshake may take.
    public var connectTimeout: Duration = .seconds(10)
    /// The wait before the first reconnection; it doubles after each failure, up to
    /// ``maximumReconnectDelay``.
    public var reconnectDelay: Duration = .milliseconds(250)
    /// The longest wait between reconnections.
    public var maximumReconnectDelay: Duration = .seconds(2)
    /// The longest packet taken from the broker or sent to it, in bytes; a longer one from the
    /// broker closes the connection.
    public var maximumPacketLength = 1 << 20
    /// Messages waiting for the broker at most: queued while disconnected plus those not yet
    /// acknowledged at QoS 1.
    public var maximumQueuedMessages = 10_000
    /// Messages received and not yet read from ``MQTTClient/messages`` at most; newer ones are
    /// dropped and counted beyond it.
    public var maximumBufferedMessages = 10_000

    /// A configuration for `host`, `port`, with a client id of `whereabouts-` and random
    /// characters.
    public init(host: String, port: Int = 1883, userName: String? = nil, password: String? = nil,
                tls: TLSConfiguration? = nil, clientId: String? = nil) {
        self.host = host
        self.port = port
        self.userName = userName
        self.password = password
        self.tls = tls
        self.clientId = clientId ?? "whereabouts-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
    }

    /// Why a URL is not a broker's address.
    public struct URLError: Error, CustomStringConvertible, Sendable {
        /// What is wrong, and what is expected.
        public var description: String
    }

    /// A configuration from a URL: `mqtt://[user[:password]@]host[:port]` or `mqtts://…` for TLS
    /// (verified against the system's roots, or `caFile`'s). A `clientId` query item sets the
    /// client id; user and password are percent-decoded.
    ///
    /// ```swift
    /// try MQTTConfiguration(url: "mqtt://ha:p%40ss@192.168.1.10")             // password "p@ss"
    /// try MQTTConfiguration(url: "mqtts://broker.lan:8884?clientId=attic-gw", caFile: "ca.pem")
    /// ```
    public init(url string: String, caFile: String? = nil) throws(URLError) {
        guard let components = URLComponents(string: string), let scheme = components.scheme?.lowercased(),
              scheme == "mqtt" || scheme == "mqtts" || scheme == "tcp" || scheme == "ssl"
        else {
            throw URLError(description: "\"\(string.prefix(200))\" is not a broker's URL: write mqtt://HOST[:PORT] or mqtts://HOST[:PORT] for TLS, with USER:PASSWORD@ before the host when the broker asks for them.")
        }
        guard let host = components.host, !host.isEmpty else {
            throw URLError(description: "\"\(string.prefix(200))\" names no host: write mqtt://HOST[:PORT].")
        }
        let secure = scheme == "mqtts" || scheme == "ssl"
        if let port = components.port, !(1...65_535).contains(port) {
            throw URLError(description: "The port \(port) of \"\(string.prefix(200))\" is not between 1 and 65535.")
        }
        guard components.path.isEmpty || components.path == "/" else {
            throw URLError(description: "\"\(string.prefix(200))\" has a path (\(components.path.prefix(100))); a broker's URL has none.")
        }
        var tls: TLSConfiguration?
        if secure {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let caFile {
                guard FileManager.default.isReadableFile(atPath: caFile) else {
                    throw URLError(description: "The certificate authority file \(caFile) cannot be read.")
                }
                configuration.trustRoots = .file(caFile)
            }
            tls = configuration
        } else if caFile != nil {
            throw URLError(description: "A certificate authority file is given for \(scheme)://, which does not use TLS: write mqtts://.")
        }
        let clientId = components.queryItems?.first { $0.name == "clientId" }?.value
        if let clientId, clientId.isEmpty || clientId.utf8.count > 256 {
            throw URLError(description: "The clientId of \"\(string.prefix(200))\" must be 1 to 256 bytes.")
        }
        self.init(host: host, port: components.port ?? (secure ? 8883 : 1883),
                  userName: components.user?.removingPercentEncoding ?? components.user,
                  password: components.password?.removingPercentEncoding ?? components.password,
                  tls: tls, clientId: clientId)
    }

    /// The broker as the client's messages name it: `mqtt://host:port` or `mqtts://host:port`,
    /// without the user or password.
    public var brokerDescription: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(tls == nil ? "mqtt" : "mqtts")://\(bracketed):\(port)"
    }
}
