import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Whereabouts

/// An MQTT 3.1.1 client on SwiftNIO: it connects (TCP or TLS, with a user name and password),
/// subscribes, publishes at QoS 0 and 1, pings, and reconnects — subscriptions restored,
/// unacknowledged messages sent again — until it is stopped.
///
/// ``run()`` holds the connection for the client's life (it suits a `ServiceGroup`); the other
/// calls can be made from any task meanwhile.
///
/// ```swift
/// let client = MQTTClient(configuration: try MQTTConfiguration(url: "mqtt://broker.lan"))
/// let connection = Task { try await client.run() }
/// try await client.subscribe(to: ["espresense/devices/+/+"])
/// for await message in client.messages {
///     print(message.topic, message.text ?? "")
/// }
/// ```
///
/// Bounds: packets from the broker longer than ``MQTTConfiguration/maximumPacketLength`` close
/// the connection (it is reopened); at most ``MQTTConfiguration/maximumQueuedMessages`` wait to be
/// sent or acknowledged (``publish(_:)`` throws ``MQTTError/queueFull(broker:capacity:)`` beyond);
/// at most ``MQTTConfiguration/maximumBufferedMessages`` received messages wait to be read (newer
/// ones are dropped and counted in ``statistics``).
public actor MQTTClient: MessageBroker {
    /// What the client has done since it was made.
    public struct Statistics: Sendable, Hashable {
        /// Connections the broker accepted.
        public var connections = 0
        /// Connections that ended other than by ``MQTTClient/stop()``: lost, closed by the broker,
        /// or closed by the client for a malformed packet or an unanswered ping.
        public var connectionsLost = 0
        /// Messages received on the subscriptions.
        public var messagesReceived = 0
        /// Messages received and dropped because ``MQTTClient/messages`` was not read in time.
        public var messagesDropped = 0
        /// Messages published (QoS 1 ones counted once acknowledged).
        public var messagesPublished = 0
        /// Why the last connection ended, if one did.
        public var lastDisconnection: String?
        /// When the broker accepted the current or last connection.
        public var connectedAt: ContinuousClock.Instant?
    }

    /// Where it connects, and its bounds.
    public nonisolated let configuration: MQTTConfiguration
    public nonisolated let messages: AsyncStream<MQTTMessage>
    /// What it has done so far.
    public private(set) var statistics = Statistics()

    private let input: AsyncStream<MQTTMessage>.Continuation
    private let logger: Logger
    private let group: any EventLoopGroup
    private var broker: String { configuration.brokerDescription }

    /// The connection the broker has accepted, if any.
    private var link: Link?
    /// Connections made, so that a late event of an old one is told apart.
    private var generation = 0
    private var stopped = false
    private var running = false

    /// The filters subscribed to, in the order they were asked for.
    private var subscriptions: [MQTTPacket.Subscription] = []
    /// Subscribe calls waiting for a `SUBACK`, by the packet's id, with the packet's filters.
    private var subscribing: [UInt16: (filters: [String], waiters: [CheckedContinuation<Void, any Error>])] = [:]
    /// Subscribe calls waiting for the next connection's subscriptions.
    private var waitingForConnection: [CheckedContinuation<Void, any Error>] = []

    /// QoS 1 messages not yet acknowledged, by packet id, and their order.
    private var unacknowledged: [UInt16: MQTTPacket.Publish] = [:]
    private var unacknowledgedOrder = FIFOBuffer<UInt16>(compactingAfter: 256)
    /// QoS 0 messages published while disconnected.
    private var queued = FIFOBuffer<MQTTMessage>(compactingAfter: 256)
    private var nextPacketId: UInt16 = 1

    /// Callers of ``waitUntilConnected(timeout:)`` and ``waitUntilAcknowledged(timeout:)``.
    private var waiters: [Int: (awaited: Awaited, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var nextWaiterId = 0

    /// What a caller waits for.
    private enum Awaited {
        case connection
        case acknowledgements
    }

    /// A connection the broker has accepted.
    private struct Link {
        let generation: Int
        let channel: any Channel
        let outbound: NIOAsyncChannelOutboundWriter<MQTTPacket>
        var lastHeard: ContinuousClock.Instant
    }

    /// A client of the broker `configuration` names; nothing happens before ``run()``.
    public init(configuration: MQTTConfiguration, logger: Logger = Logger(label: "whereabouts.mqtt"),
                eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "broker"] = "\(configuration.brokerDescription)"
        self.logger = logger
        group = eventLoopGroup
        (messages, input) = AsyncStream.makeStream(of: MQTTMessage.self,
                                                   bufferingPolicy: .bufferingOldest(max(1, configuration.maximumBufferedMessages)))
    }

    // MARK: Running

    /// Connects and stays connected until the task is cancelled or ``stop()`` is called:
    /// a lost connection is reopened after ``MQTTConfiguration/reconnectDelay``, doubling up to
    /// ``MQTTConfiguration/maximumReconnectDelay``. Throws ``MQTTError/connectionRefused(broker:returnCode:)``
    /// when the broker refuses the client (a wrong password is not worth retrying).
    public func run() async throws {
        guard !running, !stopped else { return }
        running = true
        defer { finish(with: .stopped) }
        var failures = 0
        while !stopped && !Task.isCancelled {
            let before = statistics.connections
            do {
                try await connectOnce()
            } catch let error as MQTTError where error.isPermanent {
                logger.error("\(error)")
                finish(with: error)
                throw error
            } catch is CancellationError {
                break
            } catch {
                if !stopped { note(disconnection: "\(error)") }
            }
            guard !stopped && !Task.isCancelled else { break }
            failures = statistics.connections > before ? 0 : failures + 1
            let delay = min(configuration.reconnectDelay * (1 << min(failures, 16)), configuration.maximumReconnectDelay)
            do { try await Task.sleep(for: delay) } catch { break }
        }
    }

    /// Disconnects (with `DISCONNECT`, so the broker does not publish the will) and ends
    /// ``run()`` and ``messages``. What still waits to be sent is dropped.
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        if let link {
            try? await link.outbound.write(.disconnect)
            link.channel.close(promise: nil)
        }
        finish(with: .stopped)
    }

    /// Returns once the broker has accepted a connection (at once when it has one); throws
    /// ``MQTTError/timedOut(broker:waitingFor:seconds:)`` after `timeout`, or the broker's refusal.
    public func waitUntilConnected(timeout: Duration = .seconds(10)) async throws {
        if link != nil { return }
        if stopped { throw MQTTError.stopped }
        try await wait(for: .connection, timeout: timeout, describedAs: "a connection")
    }

    /// Returns once no QoS 1 message waits for its acknowledgement and nothing is queued.
    public func waitUntilAcknowledged(timeout: Duration = .seconds(10)) async throws {
        if unacknowledged.isEmpty && queued.isEmpty { return }
        try await wait(for: .acknowledgements, timeout: timeout, describedAs: "acknowledgements")
    }

    /// Whether the broker has accepted the current connection.
    public var isConnected: Bool { link != nil }

    // MARK: Subscribing and publishing

    public func subscribe(to filters: [String], qos: MQTTQoS = .atLeastOnce) async throws {
        for filter in filters {
            if let problem = MQTTTopic.problem(withFilter: filter) { throw MQTTError.invalidTopic(filter, problem: problem) }
        }
        guard !filters.isEmpty else { return }
        if stopped { throw MQTTError.stopped }
        for filter in filters {
            if let index = subscriptions.firstIndex(where: { $0.filter == filter }) {
                subscriptions[index].qos = max(subscriptions[index].qos, qos)
            } else {
                subscriptions.append(MQTTPacket.Subscription(filter: filter, qos: qos))
            }
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            guard let link else {
                waitingForConnection.append(continuation)
                return
            }
            let id = takePacketId()
            subscribing[id] = (filters, [continuation])
            let packet = MQTTPacket.subscribe(packetId: id, filters: subscriptions.filter { filters.contains($0.filter) })
            Task { await self.send(packet, on: link) }
        }
    }

    public func publish(_ message: MQTTMessage) async throws {
        if let problem = MQTTTopic.problem(withName: message.topic) { throw MQTTError.invalidTopic(message.topic, problem: problem) }
        let length = MQTTPacket.publishLength(of: message)
        guard length <= configuration.maximumPacketLength else {
            throw MQTTError.messageTooLong(length: length, maximum: configuration.maximumPacketLength)
        }
        if stopped { throw MQTTError.stopped }
        switch message.qos {
        case .atMostOnce:
            if let link {
                await send(.publish(.init(message: message, packetId: nil, duplicate: false)), on: link)
                statistics.messagesPublished += 1
            } else {
                guard queued.count + unacknowledged.count < configuration.maximumQueuedMessages else {
                    throw MQTTError.queueFull(broker: broker, capacity: configuration.maximumQueuedMessages)
                }
                queued.append(message)
            }
        case .atLeastOnce:
            guard queued.count + unacknowledged.count < configuration.maximumQueuedMessages else {
                throw MQTTError.queueFull(broker: broker, capacity: configuration.maximumQueuedMessages)
            }
            let id = takePacketId()
            var publish = MQTTPacket.Publish(message: message, packetId: id, duplicate: false)
            unacknowledged[id] = publish
            unacknowledgedOrder.append(id)
            if let link {
                await send(.publish(publish), on: link)
                publish.duplicate = true
                unacknowledged[id] = publish
            }
        }
    }

    // MARK: The connection

    private func connectOnce() async throws {
        let configuration = configuration
        let host = configuration.host
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        let timeout = TimeAmount.nanoseconds(Int64(configuration.connectTimeout.inSeconds * 1e9))
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .connect(host: host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls = configuration.tls {
                        let context = try NIOSSLContext(configuration: tls)
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(MQTTPacketDecoder(maximumLength: configuration.maximumPacketLength)))
                    try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(MQTTPacketEncoder()))
                    return try NIOAsyncChannel<MQTTPacket, MQTTPacket>(wrappingChannelSynchronously: channel)
                }
            }
        generation += 1
        let current = generation
        let connect = MQTTPacket.Connect(
            clientId: configuration.clientId, cleanSession: configuration.cleanSession,
            keepAliveSeconds: UInt16(clamping: Int(configuration.keepAlive.inSeconds.rounded())),
            userName: configuration.userName, password: configuration.password.map { Array($0.utf8) },
            will: configuration.will)
        let raw = channel.channel
        do {
            try await channel.executeThenClose { inbound, outbound in
                // A failed write (the TLS handshake refused, the socket reset) is said by the
                // inbound side with its real reason; the write's own error only when it is not.
                // The watch starts first, so that a handshake that never ends is cut at the
                // connect timeout.
                var writeError: (any Error)?
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await self.watch(raw, generation: current) }
                    do { try await outbound.write(.connect(connect)) } catch { writeError = error }
                    for try await packet in inbound {
                        try await self.receive(packet, generation: current, channel: raw, outbound: outbound)
                    }
                    tasks.cancelAll()
                }
                if let writeError { throw writeError }
            }
        } catch {
            lose(current)
            throw error
        }
        lose(current)
        if !stopped { note(disconnection: "the connection was closed") }
    }

    /// Closes the connection when the broker does not accept it in time, and pings it while it
    /// is open; an unanswered ping closes it.
    private func watch(_ channel: any Channel, generation current: Int) async throws {
        try await Task.sleep(for: configuration.connectTimeout)
        if link?.generation != current {
            note(disconnection: "no CONNACK within \(configuration.connectTimeout)")
            channel.close(promise: nil)
            return
        }
        // A keep-alive of zero turns pings off (MQTT 3.1.1 §3.1.2.10).
        guard configuration.keepAlive > .zero else { return }
        let interval = configuration.keepAlive / 2
        while true {
            try await Task.sleep(for: interval)
            guard let link, link.generation == current else { return }
            if ContinuousClock.now - link.lastHeard > configuration.keepAlive + interval {
                note(disconnection: "the broker answered no ping for \(configuration.keepAlive)")
                channel.close(promise: nil)
                return
            }
            await send(.pingRequest, on: link)
        }
    }

    private func receive(_ packet: MQTTPacket, generation current: Int, channel: any Channel,
                         outbound: NIOAsyncChannelOutboundWriter<MQTTPacket>) async throws {
        link?.lastHeard = .now
        switch packet {
        case .connectionAcknowledgement(_, let code):
            guard link == nil else { throw MQTTPacket.DecodingError("a second CONNACK came") }
            guard code == 0 else { throw MQTTError.connectionRefused(broker: broker, returnCode: code) }
            let accepted = Link(generation: current, channel: channel, outbound: outbound, lastHeard: .now)
            link = accepted
            statistics.connections += 1
            statistics.connectedAt = .now
            logger.info("Connected to the MQTT broker")
            await resume(accepted)
        case .publish(let publish):
            guard link != nil else { throw MQTTPacket.DecodingError("a PUBLISH came before CONNACK") }
            statistics.messagesReceived += 1
            if case .dropped = input.yield(publish.message) { statistics.messagesDropped += 1 }
            if let id = publish.packetId, let link { await send(.publishAcknowledgement(packetId: id), on: link) }
        case .publishAcknowledgement(let id):
            if unacknowledged.removeValue(forKey: id) != nil {
                statistics.messagesPublished += 1
                while let first = unacknowledgedOrder.first, unacknowledged[first] == nil { _ = unacknowledgedOrder.popFirst() }
                if unacknowledgedOrder.count > 2 * max(64, unacknowledged.count) {
                    // Acknowledgements out of order left holes behind an old message: keep the live ids only.
                    var order = FIFOBuffer<UInt16>(compactingAfter: 256)
                    for offset in 0..<unacknowledgedOrder.count where unacknowledged[unacknowledgedOrder[offset]] != nil {
                        order.append(unacknowledgedOrder[offset])
                    }
                    unacknowledgedOrder = order
                }
                resumeAcknowledgementWaitersIfDone()
            }
        case .subscribeAcknowledgement(let id, let codes):
            guard let pending = subscribing.removeValue(forKey: id) else { return }
            let refused = zip(pending.filters, codes).filter { $0.1 == 0x80 }.map(\.0)
            subscriptions.removeAll { refused.contains($0.filter) }
            for waiter in pending.waiters {
                if let filter = refused.first {
                    waiter.resume(throwing: MQTTError.subscriptionRefused(broker: broker, filter: filter))
                } else {
                    waiter.resume()
                }
            }
        case .pingResponse, .unsubscribeAcknowledgement:
            break
        case .connect, .subscribe, .unsubscribe, .pingRequest, .disconnect:
            throw MQTTPacket.DecodingError("the broker sent a packet only clients send")
        }
    }

    /// After a `CONNACK`: subscriptions restored, unacknowledged messages sent again in their
    /// order, queued ones sent, waiters told.
    private func resume(_ link: Link) async {
        resumeWaiters(for: .connection)
        if !subscriptions.isEmpty {
            let id = takePacketId()
            subscribing[id] = (subscriptions.map(\.filter), waitingForConnection)
            waitingForConnection = []
            await send(.subscribe(packetId: id, filters: subscriptions), on: link)
        }
        for offset in 0..<unacknowledgedOrder.count {
            let id = unacknowledgedOrder[offset]
            guard var publish = unacknowledged[id] else { continue }
            await send(.publish(publish), on: link)
            publish.duplicate = true
            unacknowledged[id] = publish
        }
        while let message = queued.popFirst() {
            await send(.publish(.init(message: message, packetId: nil, duplicate: false)), on: link)
            statistics.messagesPublished += 1
        }
        resumeAcknowledgementWaitersIfDone()
    }

    /// Forgets connection `current`: subscribe calls then wait for the next connection.
    private func lose(_ current: Int) {
        guard link?.generation == current else { return }
        link = nil
        statistics.connectionsLost += stopped ? 0 : 1
        for (_, pending) in subscribing { waitingForConnection += pending.waiters }
        subscribing = [:]
    }

    private func note(disconnection reason: String) {
        statistics.lastDisconnection = reason
        logger.warning("The MQTT connection ended (\(reason)); reconnecting")
    }

    /// Writes `packet`; a failed write is left to the connection's end (the read loop sees it).
    private func send(_ packet: MQTTPacket, on link: Link) async {
        do {
            try await link.outbound.write(packet)
        } catch {
            link.channel.close(promise: nil)
        }
    }

    private func takePacketId() -> UInt16 {
        repeat {
            nextPacketId = nextPacketId == UInt16.max ? 1 : nextPacketId + 1
        } while unacknowledged[nextPacketId] != nil || subscribing[nextPacketId] != nil
        return nextPacketId
    }

    // MARK: Waiting

    private func wait(for awaited: Awaited, timeout: Duration, describedAs what: String) async throws {
        nextWaiterId += 1
        let id = nextWaiterId
        let broker = broker
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.expire(id, with: MQTTError.timedOut(broker: broker, waitingFor: what, seconds: timeout.inSeconds))
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters[id] = (awaited, continuation)
            }
        } onCancel: {
            Task { await self.expire(id, with: CancellationError()) }
        }
    }

    private func expire(_ id: Int, with error: any Error) {
        waiters.removeValue(forKey: id)?.continuation.resume(throwing: error)
    }

    private func resumeWaiters(for awaited: Awaited) {
        for (id, waiter) in waiters where waiter.awaited == awaited {
            waiters[id] = nil
            waiter.continuation.resume()
        }
    }

    private func resumeAcknowledgementWaitersIfDone() {
        guard unacknowledged.isEmpty && queued.isEmpty else { return }
        resumeWaiters(for: .acknowledgements)
    }

    /// Ends every wait with `error`, and the messages.
    private func finish(with error: MQTTError) {
        stopped = stopped || error == .stopped || error.isPermanent
        for (_, waiter) in waiters { waiter.continuation.resume(throwing: error) }
        waiters = [:]
        for waiter in waitingForConnection { waiter.resume(throwing: error) }
        waitingForConnection = []
        for (_, pending) in subscribing { for waiter in pending.waiters { waiter.resume(throwing: error) } }
        subscribing = [:]
        input.finish()
    }
}
