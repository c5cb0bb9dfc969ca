import ArgumentParser
import Foundation
import Logging
import Whereabouts
import WhereaboutsMQTT

/// `whereabouts bridge`
struct BridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bridge",
        abstract: "Locate the tags that ESPresense nodes hear, from an MQTT broker, and publish their rooms for Home Assistant.",
        discussion: HelpText.fitting("""
        Subscribes to what ESPresense nodes publish (espresense/devices/<tag>/<room>, unchanged; \
        also Home Assistant's bare mqtt_room form on the topics --topic gives), takes each message \
        as a report of the receiver its room names (the venue's "receivers"; --receiver-name maps \
        a node's room to a receiver where the two differ), fuses them per tag as `fuse` does, and \
        publishes each named tag as ESPresense's companion does: espresense/companion/<tag> (the \
        place it is in, or not_home) and its retained /attributes (x, y, z, latitude, longitude, \
        accuracy, confidence, fixes, last_seen), with Home Assistant's MQTT discovery of a \
        device_tracker and a room sensor per tag, available while the bridge runs (its last will \
        says offline). Only tags the venue's "tags" or the --tags file name are published, unless         --all-tags. A phone is named by its identity resolving key in the tags file: from a node         that reports it as irk:<key>, or from the resolvable private address in a message's "mac".

        Output, one JSON object a line, as `fuse` writes it: each fix, and each place entered or \
        left. Messages that are not reports are counted and logged (standard error), and dropped.

        The broker: mqtt://[USER[:PASSWORD]@]HOST[:PORT], or mqtts:// for TLS (--mqtt-ca for a \
        private authority). A password may come from WHEREABOUTS_MQTT_PASSWORD instead of the URL. \
        A lost connection is reopened (subscriptions restored); a refused password ends the bridge.

        Examples:
          whereabouts bridge --venue venue.json --mqtt mqtt://ha:secret@homeassistant.local
          whereabouts bridge --venue venue.json --mqtt mqtts://broker.lan --mqtt-ca ca.pem --receiver-name living_room=node-1
          whereabouts bridge --venue venue.json --mqtt mqtt://127.0.0.1 --topic 'room_presence/+' --no-discovery
          whereabouts bridge --venue venue.json --tags tags.json --mqtt mqtt://127.0.0.1
        """)
    )

    @OptionGroup var positioning: PositioningOptions

    @OptionGroup var pipeline: PipelineOptions

    @Option(name: .long, help: ArgumentHelp("The MQTT broker's URL.", valueName: "mqtt://host"))
    var mqtt: String

    @OptionGroup(title: "ESPresense and Home Assistant") var espresense: ESPresenseOptions

    @OptionGroup var fusion: FusionOptions

    @Option(name: .long, help: ArgumentHelp("Seconds without a located scan before a tag's place is left.", valueName: "seconds"))
    var exitTimeout: Double = 30

    @OptionGroup var tags: TagsFileOption

    func validate() throws {
        guard exitTimeout > 0, exitTimeout.isFinite else { throw ValidationError("--exit-timeout must be a positive number of seconds.") }
    }

    func run() async throws {
        let venueValue = try tags.adding(to: positioning.venue.read())
        let input = try espresense.input(for: venueValue, path: positioning.venue.path, role: "the bridge")
        var configuration = try MQTTConnection.configuration(url: mqtt, caFile: espresense.mqttCa)
        let output = try espresense.output(for: venueValue)
        configuration.will = output?.will
        let connection = try await MQTTConnection.open(configuration, label: "whereabouts.bridge")
        defer { connection.task.cancel() }
        var logger = Logger(label: "whereabouts.bridge")
        logger.logLevel = .warning
        let tagVenue = venueValue.receiversAsBeacons()
        let setup = positioning.algorithm.setup(venue: tagVenue, training: try positioning.readTraining(), configuration: pipeline.configuration)
        let bridge = ESPresenseBridge(
            broker: connection.client, venue: venueValue, setup: setup,
            configuration: TagPipeline.Configuration(fusion: fusion.configuration, timing: pipeline.timing, exitTimeout: exitTimeout),
            input: input, output: output, filters: espresense.filters, shard: try espresense.tagShard, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withTaskCancellationHandler { try await connection.task.value } onCancel: { connection.task.cancel() }
            }
            Terminal.error("Connected to \(configuration.brokerDescription); reading \(espresense.filters.joined(separator: ", ")).")
            group.addTask {
                try await bridge.run { outputs in
                    var out = TextOutput(live: true)
                    for item in outputs {
                        switch item {
                        case .fix(let fix): out.line(FixCoding.line(for: fix, decimalPlaces: 3))
                        case .event(let event) where WatchCommand.isChange(event.event):
                            out.line(WatchCommand.jsonLine(event.event, device: event.device ?? ""))
                        case .event: break
                        }
                    }
                    out.flush()
                }
            }
            do {
                try await group.next()
            } catch let error as MQTTError {
                group.cancelAll()
                throw CommandFailure(error.description)
            }
            group.cancelAll()
        }
    }
}
