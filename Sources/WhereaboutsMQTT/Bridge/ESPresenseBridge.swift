import Foundation
import Logging
import Whereabouts

/// ESPresense's messages in, each tag's position and room out: the receivers' reports that come
/// on a broker's `espresense/devices/+/+` (``ESPresenseInput``) are fused per tag over the venue
/// (a `TagPipeline` on a live `ScanTimeline`), and each tag's fixes and the places it enters and
/// leaves go back to the broker as ESPresense's companion and Home Assistant read them
/// (``CompanionOutput``), and to ``run(emit:)``'s caller.
///
/// ```swift
/// let client = MQTTClient(configuration: configuration)   // its will: output.will
/// let bridge = ESPresenseBridge(broker: client, venue: venue, output: CompanionOutput(venue: venue))
/// try await bridge.run { outputs in print(outputs.count) }
/// ```
///
/// A message that is not a report is counted and logged (the first few, then every
/// thousandth) and dropped; nothing else is disturbed.
public actor ESPresenseBridge {
    /// What became of the messages.
    public struct Statistics: Sendable, Hashable {
        /// Reports handed to the fusion.
        public var reports = 0
        /// Messages that were not reports.
        public var refused = 0
        /// Why the last one was refused.
        public var lastRefusal: String?
        /// Messages published.
        public var published = 0
        /// Reports left to the other processes that share the tags (``ESPresenseBridge/shard``).
        public var otherShards = 0
    }

    /// What it has done so far.
    public private(set) var statistics = Statistics()
    private let broker: any MessageBroker
    /// What ``run(emit:)`` fuses with: the venue, the setup given (else the default algorithm's,
    /// made when the bridge runs — ``forward(to:)`` fuses nothing), the pipeline's configuration.
    private let venue: Venue
    private let setup: PositioningSetup?
    private let configuration: TagPipeline.Configuration
    private let input: ESPresenseInput
    private let output: CompanionOutput?
    private let filters: [String]
    /// The tags this process fuses when several share them; `nil` for all.
    public nonisolated let shard: TagShard?
    /// Names tags as the fusion does, when there is a ``shard``.
    private let naming: ReceiverFusion?
    private let clock: any Clock<Duration>
    private let wallClock: @Sendable () -> Double
    private let logger: Logger
    /// The places each published tag is in, and the tags whose discovery went out.
    private var places: [String: [String]] = [:]
    private var discovered: Set<String> = []

    /// A bridge over `venue`'s receivers. `filters` are the topics subscribed to; `output`
    /// `nil` publishes nothing (the outputs still reach ``run(emit:)``); with a `shard`, only the
    /// readings of the tags it owns are taken (each process that shares the broker given its own).
    public init(broker: any MessageBroker, venue: Venue, setup: PositioningSetup? = nil,
                configuration: TagPipeline.Configuration = TagPipeline.Configuration(),
                input: ESPresenseInput = ESPresenseInput(), output: CompanionOutput?,
                filters: [String] = [ESPresenseInput.defaultFilter], shard: TagShard? = nil,
                clock: any Clock<Duration> = ContinuousClock(),
                wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                logger: Logger = Logger(label: "whereabouts.espresense")) {
        self.broker = broker
        self.venue = venue
        self.setup = setup
        self.configuration = configuration
        self.input = input
        self.output = output
        self.filters = filters
        self.shard = shard
        naming = shard.map { _ in ReceiverFusion(venue: venue, configuration: configuration.fusion) }
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
    }

    /// Subscribes, publishes `online`, and fuses what comes until the broker's messages end or
    /// the task is cancelled; `emit` gets each batch of outputs as they fall due.
    public func run(emit: @escaping @Sendable ([TagPipeline.Output]) async -> Void = { _ in }) async throws {
        let setup = setup ?? PositioningAlgorithm.allCases[0].setup(venue: venue.receiversAsBeacons())
        let pipeline = TagPipeline(venue: venue, setup: setup, configuration: configuration)
        let (timeline, inbox) = ScanTimeline.makeInbox(clock: clock, capacity: 10_000)
        try await broker.subscribe(to: filters, qos: .atMostOnce)
        if let output { try await publish(output.online) }
        let reading = Task { [broker] in
            for await message in broker.messages {
                self.take(message, into: inbox)
            }
            inbox.finish()
        }
        defer { reading.cancel(); inbox.finish() }
        let fusing = Task.detached { [pipeline] in
            var stage = pipeline
            var running = timeline
            try await running.run(&stage) { outputs in
                guard !outputs.isEmpty else { return }
                await self.publish(outputs)
                await emit(outputs)
            }
        }
        try await withTaskCancellationHandler {
            try await fusing.value
        } onCancel: {
            inbox.finish()
            fusing.cancel()
        }
    }

    /// Subscribes, publishes `online`, and hands each message's report to `deliver` as it comes,
    /// unfused — for a fusion of its own, such as a server's (`ReceiverReportFeed`), which gives
    /// the outputs back to ``publish(_:)`` — until the broker's messages end or the task is
    /// cancelled.
    public func forward(to deliver: @escaping @Sendable ([Scan]) async -> Void) async throws {
        try await broker.subscribe(to: filters, qos: .atMostOnce)
        if let output { try await publish(output.online) }
        for await message in broker.messages {
            if Task.isCancelled { return }
            if let report = report(of: message) {
                statistics.reports += 1
                await deliver([report])
            }
        }
    }

    private func take(_ message: MQTTMessage, into inbox: ScanInbox) {
        guard let report = report(of: message) else { return }
        if inbox.offer(report) {
            statistics.reports += 1
        } else {
            refuse("\(message.topic.prefix(200)): the fusion's queue is full")
        }
    }

    /// The report of `message`, stamped now, with the readings of this process's tags; `nil`
    /// when it is no report (counted and logged) or holds none of them (counted).
    private func report(of message: MQTTMessage) -> Scan? {
        var report: Scan
        do {
            report = try input.report(from: message, arrival: wallClock())
        } catch {
            refuse("\(message.topic.prefix(200)): \(error)")
            return nil
        }
        if let shard, let naming {
            report.readings.removeAll { !shard.owns(naming.tagName(for: $0.beacon)) }
            if report.readings.isEmpty {
                statistics.otherShards += 1
                return nil
            }
        }
        return report
    }

    private func refuse(_ reason: String) {
        statistics.refused += 1
        statistics.lastRefusal = reason
        if statistics.refused <= 10 || statistics.refused % 1_000 == 0 {
            logger.warning("Not a receiver's report (\(statistics.refused) so far): \(reason)")
        }
    }

    /// Publishes outputs as the companion does: a fix's attributes, a place entered or left as
    /// the tag's state, each tag's discovery once — for the tags the output publishes.
    public func publish(_ outputs: [TagPipeline.Output]) async {
        guard let output else { return }
        for item in outputs {
            switch item {
            case .fix(let fix):
                guard let tag = fix.device, output.publishes(tag) else { continue }
                await announce(tag, with: output)
                try? await publish(output.attributes(of: fix, tag: tag))
            case .event(let event):
                guard let tag = event.device, output.publishes(tag) else { continue }
                var inside = places[tag] ?? []
                switch event.event.kind {
                case .enterLocation(_, let place): if !inside.contains(place) { inside.append(place) }
                case .exitLocation(_, let place): inside.removeAll { $0 == place }
                default: continue
                }
                places[tag] = inside
                await announce(tag, with: output)
                try? await publish(output.state(of: tag, place: inside.last))
            }
        }
    }

    /// Publishes the tag's discovery and first state once.
    private func announce(_ tag: String, with output: CompanionOutput) async {
        guard !discovered.contains(tag), discovered.count < 10_000 else { return }
        discovered.insert(tag)
        for message in output.discovery(of: tag) { try? await publish(message) }
        try? await publish(output.state(of: tag, place: places[tag]?.last))
    }

    private func publish(_ message: MQTTMessage) async throws {
        do {
            try await broker.publish(message)
            statistics.published += 1
        } catch {
            logger.warning("Not published to \(message.topic): \(error)")
            throw error
        }
    }
}
