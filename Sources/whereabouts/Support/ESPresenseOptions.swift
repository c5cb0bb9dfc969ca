import ArgumentParser
import Foundation
import Whereabouts
import WhereaboutsBluetooth
import WhereaboutsMQTT

/// What ESPresense's messages are read from and what is published back for Home Assistant: the
/// options `bridge` and `serve --mqtt` share.
struct ESPresenseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A certificate authority (PEM) to check an mqtts:// broker's certificate with.", valueName: "ca.pem"))
    var mqttCa: String?

    @Option(name: .long, help: ArgumentHelp("A topic filter to read reports from (repeatable; default espresense/devices/+/+).", valueName: "filter"))
    var topic: [String] = []

    @Option(name: .long, help: ArgumentHelp("A node's room name and the venue receiver it is (repeatable).", valueName: "room=receiver"))
    var receiverName: [String] = []

    @Option(name: .long, help: ArgumentHelp("The base of the topics published per tag.", valueName: "topic"))
    var companionTopic = "espresense/companion"

    @Option(name: .long, help: ArgumentHelp("Home Assistant's MQTT discovery prefix.", valueName: "prefix"))
    var discoveryPrefix = "homeassistant"

    @Flag(name: .long, help: "Publish no Home Assistant discovery.")
    var noDiscovery = false

    @Flag(name: .long, help: "Publish nothing to the broker: only read.")
    var noPublish = false

    @Flag(name: .long, help: "Publish every tag heard, not only those the venue's \"tags\" or --tags name.")
    var allTags = false

    @Option(name: .long, help: ArgumentHelp("Fuse only this share of the tags, when several processes read the same broker (1/2 here, 2/2 in the other).",
                                            valueName: "index/count"))
    var shard: String?

    /// `--shard`, parsed.
    var tagShard: TagShard? {
        get throws {
            guard let shard else { return nil }
            do { return try TagShard(parsing: shard) } catch { throw ValidationError("--shard: \(error).") }
        }
    }

    /// The filters subscribed to.
    var filters: [String] { topic.isEmpty ? [ESPresenseInput.defaultFilter] : topic }

    func validate() throws {
        for filter in topic {
            if let problem = MQTTTopic.problem(withFilter: filter) { throw ValidationError("--topic \(filter): \(problem).") }
        }
        if let problem = MQTTTopic.problem(withName: companionTopic + "/x") { throw ValidationError("--companion-topic: \(problem).") }
        _ = try receiverNames()
        _ = try tagShard
    }

    /// `--receiver-name`'s rooms and receivers.
    func receiverNames() throws -> [String: String] {
        var names: [String: String] = [:]
        for pair in receiverName {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--receiver-name takes ROOM=RECEIVER (the room a node publishes, the receiver's id in the venue), found \"\(pair)\".")
            }
            names[String(parts[0])] = String(parts[1])
        }
        return names
    }

    /// The input over `venue`'s receivers and tags (`venue` names the file in errors), or an
    /// error when the venue lists no receivers or `--receiver-name` names one it does not list.
    func input(for venue: Venue, path: String, role: String) throws -> ESPresenseInput {
        guard !venue.receivers.isEmpty else {
            throw CommandFailure("\(path) lists no receivers: \(role) locates tags from fixed receivers (ESPresense nodes), "
                                 + "listed in the venue's \"receivers\" (FORMATS.md §1), each with the id its node publishes as its room.")
        }
        let names = try receiverNames()
        let known = Set(venue.receivers.map(\.id))
        for (room, receiver) in names.sorted(by: { $0.key < $1.key }) where !known.contains(receiver) {
            throw CommandFailure("--receiver-name \(room)=\(receiver): the venue lists no receiver \"\(receiver)\" (it has \(known.sorted().joined(separator: ", "))).")
        }
        return ESPresenseInput(receiverNames: names, tagResolver: TagResolver(tags: venue.tags))
    }

    /// What is published for `venue`'s tags, or `nil` with `--no-publish`.
    /// With `--shard`, each process says on a status topic of its own whether it runs
    /// (`status-1of2`), and its tags' availability is that one.
    func output(for venue: Venue) throws -> CompanionOutput? {
        guard !noPublish else { return nil }
        var output = CompanionOutput(venue: venue, baseTopic: companionTopic,
                                     discoveryPrefix: noDiscovery ? nil : discoveryPrefix, publishesUnnamedTags: allTags)
        if let shard = try tagShard { output.statusLevel = "status-\(shard.index)of\(shard.count)" }
        return output
    }
}
