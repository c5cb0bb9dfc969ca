import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing
import WhereaboutsServerTesting
@testable import WhereaboutsMQTT

/// The client against a real Mosquitto on loopback: credentials, TLS, wildcards, QoS 1,
/// retained messages, the will, a broker restart, and packets it must refuse.
@Suite(.serialized, .enabled(if: MosquittoBroker.shouldRun, "mosquitto is not installed"), .timeLimit(.minutes(15)))
struct MQTTClientTests {
    /// A client of `url`, running, with `change` applied to its configuration.
    private func start(_ url: String, caFile: String? = nil, _ change: (inout MQTTConfiguration) -> Void = { _ in })
        throws -> (client: MQTTClient, run: Task<Void, any Error>) {
        var configuration = try MQTTConfiguration(url: url, caFile: caFile)
        configuration.reconnectDelay = .milliseconds(100)
        change(&configuration)
        var logger = Logger(label: "test.mqtt")
        logger.logLevel = .critical
        let client = MQTTClient(configuration: configuration, logger: logger)
        return (client, Task { try await client.run() })
    }

    /// The next message of `client`, or a failure after `timeout`.
    private func next(_ client: MQTTClient, within timeout: Duration = .seconds(60)) async throws -> MQTTMessage {
        try await withThrowingTaskGroup(of: MQTTMessage?.self) { group in
            group.addTask {
                var iterator = client.messages.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let message = first else {
                throw MQTTError.timedOut(broker: client.configuration.brokerDescription, waitingFor: "a message", seconds: timeout.inSeconds)
            }
            return message
        }
    }

    /// A broker holds no descriptor of the test process: a pipe whose write end the test closes
    /// reads as ended at once, though the broker started while it was open (before, the broker
    /// kept its copy, and servers' ports, clients' connections and children's pipes stayed open
    /// as long as it ran).
    @Test func theBrokerKeepsNoDescriptorOfTheTestProcess() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let broker = try await MosquittoBroker.start()
        defer { broker.remove() }
        close(ends[1])
        #expect(fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK) == 0)
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == 0, "the broker holds the pipe's write end open (errno \(errno))")
    }

    @Test func wildcardsQoS1AndRetainedMessagesWithAPassword() async throws {
        let broker = try await MosquittoBroker.start(users: ["gateway": "s3cret"])
        defer { broker.remove() }
        let url = broker.url(user: "gateway", password: "s3cret")
        let (subscriber, subscriberRun) = try start(url)
        let (publisher, publisherRun) = try start(url)
        defer { subscriberRun.cancel(); publisherRun.cancel() }
        try await subscriber.subscribe(to: ["espresense/devices/+/+", "whereabouts/#"])
        try await publisher.waitUntilConnected(timeout: .seconds(60))

        try await publisher.publish(MQTTMessage(topic: "espresense/devices/keys/kitchen", payload: #"{"rssi":-70}"#, qos: .atLeastOnce))
        try await publisher.publish(MQTTMessage(topic: "espresense/devices/keys", payload: "not matched"))
        try await publisher.publish(MQTTMessage(topic: "whereabouts/a/b/c", payload: "deep"))
        try await publisher.waitUntilAcknowledged(timeout: .seconds(60))
        let first = try await next(subscriber)
        #expect(first.topic == "espresense/devices/keys/kitchen")
        #expect(first.text == #"{"rssi":-70}"#)
        #expect(first.qos == .atLeastOnce)
        let second = try await next(subscriber)
        #expect(second.topic == "whereabouts/a/b/c")
        #expect(second.qos == .atMostOnce)

        // A retained message reaches a subscriber that comes later, marked retained.
        try await publisher.publish(MQTTMessage(topic: "whereabouts/state", payload: "kitchen", qos: .atLeastOnce, retain: true))
        try await publisher.waitUntilAcknowledged(timeout: .seconds(60))
        let (late, lateRun) = try start(url)
        defer { lateRun.cancel() }
        try await late.subscribe(to: ["whereabouts/state"])
        let retained = try await next(late)
        #expect(retained.text == "kitchen")
        #expect(retained.retain)
        #expect(await publisher.statistics.messagesPublished == 4)
        #expect(await subscriber.statistics.connectionsLost == 0)
    }

    @Test func aWrongPasswordIsAClearErrorNamingTheBroker() async throws {
        let broker = try await MosquittoBroker.start(users: ["gateway": "s3cret"])
        defer { broker.remove() }
        let (client, run) = try start(broker.url(user: "gateway", password: "wrong"))
        await #expect(throws: MQTTError.self) { try await client.waitUntilConnected(timeout: .seconds(60)) }
        do {
            try await run.value
            Issue.record("the run went on after the broker refused the password")
        } catch let error as MQTTError {
            #expect(error.isPermanent)
            #expect(error.description.contains("mqtt://127.0.0.1:\(broker.port)"))
            #expect(error.description.contains("refused"))
            #expect(!error.description.contains("wrong"), "the password is not repeated")
        }
        // Anonymous clients are refused too: no user name at all.
        let (anonymous, anonymousRun) = try start(broker.url())
        await #expect(throws: MQTTError.self) { try await anonymousRun.value }
        _ = anonymous
    }

    @Test func tlsWithTheBrokersAuthority() async throws {
        let broker = try await MosquittoBroker.start(users: ["gateway": "s3cret"], tls: true)
        defer { broker.remove() }
        let url = broker.url(user: "gateway", password: "s3cret", tls: true)
        let (client, run) = try start(url, caFile: broker.caFile)
        defer { run.cancel() }
        try await client.subscribe(to: ["tls/+"])
        try await client.publish(MQTTMessage(topic: "tls/check", payload: "over TLS", qos: .atLeastOnce))
        #expect(try await next(client).text == "over TLS")

        // Without the authority the certificate is not trusted: no connection, and why.
        let (untrusting, untrustingRun) = try start(url)
        defer { untrustingRun.cancel() }
        // Its first attempt fails (a loaded machine may take long to get there), and it says why.
        let deadline = ContinuousClock.now + .seconds(300)
        while await untrusting.statistics.lastDisconnection == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await untrusting.statistics.connections == 0)
        let reason = await untrusting.statistics.lastDisconnection ?? ""
        #expect(reason.lowercased().contains("certificate") || reason.contains("handshake"), "\(reason)")
    }

    @Test func theWillIsPublishedWhenTheConnectionIsLostNotWhenStopped() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.remove() }
        let (watcher, watcherRun) = try start(broker.url())
        defer { watcherRun.cancel() }
        try await watcher.subscribe(to: ["gateways/+/status"])

        let (polite, politeRun) = try start(broker.url()) {
            $0.will = MQTTMessage(topic: "gateways/polite/status", payload: "offline", qos: .atLeastOnce)
        }
        try await polite.waitUntilConnected(timeout: .seconds(60))
        await polite.stop()
        _ = try? await politeRun.value

        let (lost, lostRun) = try start(broker.url()) {
            $0.will = MQTTMessage(topic: "gateways/lost/status", payload: "offline", qos: .atLeastOnce)
        }
        try await lost.waitUntilConnected(timeout: .seconds(60))
        lostRun.cancel()   // the socket closes without DISCONNECT
        let will = try await next(watcher)
        #expect(will.topic == "gateways/lost/status")
        #expect(will.text == "offline")
    }

    @Test func aBrokerRestartLosesNothingAtQoS1() async throws {
        let broker = try await MosquittoBroker.start(persistence: true)
        defer { broker.remove() }
        let url = broker.url()
        let (subscriber, subscriberRun) = try start(url + "?clientId=restart-subscriber") { $0.cleanSession = false }
        let (publisher, publisherRun) = try start(url + "?clientId=restart-publisher") { $0.cleanSession = false }
        // A clean session: the broker forgets its subscription, which the client must restore.
        let (clean, cleanRun) = try start(url)
        defer { subscriberRun.cancel(); publisherRun.cancel(); cleanRun.cancel() }
        try await subscriber.subscribe(to: ["counts/#"])
        try await clean.subscribe(to: ["probes/+"])
        try await publisher.waitUntilConnected(timeout: .seconds(60))

        let count = 200
        let received = Task {
            var seen = Set<String>()
            for await message in subscriber.messages {
                seen.insert(message.text ?? "")
                if seen.count == count { break }
            }
            return seen
        }
        for index in 0..<count / 2 {
            try await publisher.publish(MQTTMessage(topic: "counts/\(index % 7)", payload: "\(index)", qos: .atLeastOnce))
        }
        broker.stop()
        // Published while the broker is down: queued, sent once it is back.
        for index in count / 2..<count {
            try await publisher.publish(MQTTMessage(topic: "counts/\(index % 7)", payload: "\(index)", qos: .atLeastOnce))
        }
        try await broker.restart()
        let back = ContinuousClock.now
        try await subscriber.waitUntilConnected(timeout: .seconds(60))
        try await publisher.waitUntilConnected(timeout: .seconds(60))
        try await clean.waitUntilConnected(timeout: .seconds(60))
        // Each client's own instant of its new connection (not this test's, whose task may wait
        // for a thread on a loaded machine).
        for client in [subscriber, publisher, clean] {
            let connected = try #require(await client.statistics.connectedAt)
            #expect(connected - back < .seconds(5), "reconnected \(connected - back) after the broker came back")
        }
        // Its own SUBSCRIBE went before this PUBLISH on the same connection, so the probe comes
        // back only if the subscription was restored.
        try await clean.publish(MQTTMessage(topic: "probes/1", payload: "probe", qos: .atLeastOnce))
        #expect(try await next(clean).text == "probe")
        try await publisher.waitUntilAcknowledged(timeout: .seconds(60))
        let seen = try await withThrowingTaskGroup(of: Set<String>?.self) { group in
            group.addTask { await received.value }
            group.addTask { try await Task.sleep(for: .seconds(120)); return nil }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        #expect(seen == Set((0..<count).map(String.init)), "missing: \(Set((0..<count).map(String.init)).subtracting(seen ?? []).sorted())")
        #expect(await subscriber.statistics.connections == 2)
        #expect(await publisher.statistics.connections == 2)
    }

    @Test func anOversizedPacketClosesThatConnectionAloneAndItIsReopened() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.remove() }
        let url = broker.url()
        let (small, smallRun) = try start(url) { $0.maximumPacketLength = 1_024 }
        let (publisher, publisherRun) = try start(url)
        defer { smallRun.cancel(); publisherRun.cancel() }
        try await small.subscribe(to: ["sizes/+"])
        try await publisher.waitUntilConnected(timeout: .seconds(60))
        try await publisher.publish(MQTTMessage(topic: "sizes/big", payload: [UInt8](repeating: 0x41, count: 2_000), qos: .atLeastOnce))
        // The big one closes the subscriber's connection (its bytes are refused from the
        // header, never buffered); the client reconnects and subscribes again.
        let deadline = ContinuousClock.now + .seconds(60)
        while await small.statistics.connections < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await small.waitUntilConnected(timeout: .seconds(60))
        let statistics = await small.statistics
        #expect(statistics.connections == 2)
        #expect(statistics.lastDisconnection?.contains("packets of at most 1024") == true, "\(statistics.lastDisconnection ?? "-")")
        // Its subscription is back (a SUBACK on the new connection) before this is published.
        try await small.subscribe(to: ["sizes/+"])
        try await publisher.publish(MQTTMessage(topic: "sizes/small", payload: "after", qos: .atLeastOnce))
        let message = try await next(small)
        #expect(message.topic == "sizes/small")
        #expect(message.text == "after")
        #expect(await small.statistics.messagesReceived == 1)
        #expect(await publisher.statistics.connectionsLost == 0)
        // 1 header byte, 2 length bytes, 2 + 9 for the topic, 2,000 for the payload.
        await #expect(throws: MQTTError.messageTooLong(length: 2_014, maximum: 1_024)) {
            try await small.publish(MQTTMessage(topic: "sizes/out", payload: [UInt8](repeating: 0, count: 2_000)))
        }
    }

    @Test func queuedMessagesAreBoundedWhileDisconnected() async throws {
        var configuration = MQTTConfiguration(host: "127.0.0.1", port: 1)
        configuration.maximumQueuedMessages = 3
        let client = MQTTClient(configuration: configuration)
        for index in 0..<3 {
            try await client.publish(MQTTMessage(topic: "q", payload: "\(index)", qos: index == 0 ? .atMostOnce : .atLeastOnce))
        }
        await #expect(throws: MQTTError.queueFull(broker: "mqtt://127.0.0.1:1", capacity: 3)) {
            try await client.publish(MQTTMessage(topic: "q", payload: "3"))
        }
        await #expect(throws: MQTTError.self) { try await client.publish(MQTTMessage(topic: "q/#", payload: "")) }
    }
}

/// A broker that answers `CONNACK` and then sends bytes no broker may send: the client closes
/// the connection, says why, and connects again.
@Suite(.timeLimit(.minutes(10)))
struct MQTTMalformedPacketTests {
    @Test func aMalformedPacketClosesTheConnectionWhichIsReopened() async throws {
        let connections = ManagedCounter()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MisbehavingBroker(connections: connections))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { server.close(promise: nil) }
        let port = try #require(server.localAddress?.port)
        var configuration = MQTTConfiguration(host: "127.0.0.1", port: port)
        configuration.reconnectDelay = .milliseconds(50)
        var logger = Logger(label: "test.mqtt")
        logger.logLevel = .critical
        let client = MQTTClient(configuration: configuration, logger: logger)
        let run = Task { try await client.run() }
        defer { run.cancel() }
        let deadline = ContinuousClock.now + .seconds(60)
        while connections.value < 2 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(connections.value >= 2)
        let statistics = await client.statistics
        #expect(statistics.connections >= 1)
        #expect(statistics.messagesReceived == 0)
        #expect(statistics.lastDisconnection?.contains("QoS 3") == true, "\(statistics.lastDisconnection ?? "-")")
    }
}

final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

/// Accepts any `CONNECT`, then sends a `PUBLISH` whose flags ask for QoS 3.
private final class MisbehavingBroker: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let connections: ManagedCounter
    private var answered = false

    init(connections: ManagedCounter) { self.connections = connections }

    func channelActive(context: ChannelHandlerContext) {
        connections.increment()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        answered = true
        let bytes: [UInt8] = [0x20, 0x02, 0x00, 0x00, 0x36, 0x05, 0x00, 0x01, 0x74, 0x00, 0x01]
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
    }
}
