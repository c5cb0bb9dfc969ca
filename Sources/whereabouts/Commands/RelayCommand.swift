import ArgumentParser
import Foundation
import Whereabouts
import WhereaboutsBluetooth
import WhereaboutsMQTT
import WhereaboutsTracking

/// `whereabouts relay`
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Be a fixed receiver: send what this gateway hears to a server, which locates the tags.",
        discussion: HelpText.fitting("""
        Every scan becomes a report of --receiver (the receiver's id in the server's venue, \
        `receivers` in venue.json) and goes to the server's POST /receivers/reports as soon as \
        the request before it is answered. The server fuses the reports of all its receivers \
        into each tag's positions and the places it enters and leaves, stored as events in the \
        tag's stream under `tags` (`whereabouts events`, the exports and the map show them). \
        Without --receiver, each scan must name its receiver in `device` (a recording of several \
        receivers' reports, FORMATS.md §8, such as an ESPresense MQTT bridge writes).

        Sightings are perishable: the server uses a report only within a few seconds of when it \
        was heard, so while the server cannot be reached the relay keeps the last --keep seconds \
        (at most 10,000 reports), retries, and drops what grew older, counting it. The source must \
        be live: an adapter, a capture at --pace recorded, or a recording from a pipe, a FIFO or \
        standard input; a recording file would arrive all at once.

        The token needs the `receivers` grant, which lets it send reports and nothing else:
          whereabouts users token NAME --name kitchen-pi --stream receivers --level contribute
        and the server a venue that lists the receivers: `whereabouts serve --venue venue.json`.

        With --mqtt, the gateway is an ESPresense node instead: each tag it hears is published \
        to the broker as espresense/devices/<tag id>/<receiver> ({"id", "rssi", "rssi@1m"}), which \
        ESPresense's companion, Home Assistant's mqtt_room and `whereabouts bridge` read; --receiver \
        is then its room, and nothing goes to a server.

        Phones advertise from addresses that change every ~15 minutes: with --tags, a tags file \
        whose identity resolving keys name them (`whereabouts tags add`), each address a key \
        made is reported as the phone's tag.

        Examples:
          whereabouts relay --adapter hci0 --receiver kitchen-pi \\
              --server https://home.example:8443 --token …
          mosquitto_sub -t 'espresense/devices/#' -F %J | jq -c … | \\
              whereabouts relay --recording - --server … --token …
          whereabouts relay --adapter hci0 --receiver kitchen --mqtt mqtt://ha:secret@homeassistant.local
          whereabouts relay --adapter hci0 --tags /etc/whereabouts/tags.json --receiver kitchen-pi --server … --token …
        """)
    )

    @OptionGroup(title: "Source") var source: SightingSourceOptions

    @Option(name: .long, help: ArgumentHelp("The receiver this gateway is in the server's venue (default: each scan's own device).",
                                            valueName: "id"))
    var receiver: String?

    @OptionGroup(title: "Server") var connection: ServerConnectionOptions

    @Option(name: .long, help: ArgumentHelp("Publish to this MQTT broker as an ESPresense node instead of sending to a server.",
                                            valueName: "mqtt://host"))
    var mqtt: String?

    @Option(name: .long, help: ArgumentHelp("Seconds a report may wait to be sent before it is dropped (the server's fusion window).",
                                            valueName: "seconds"))
    var keep: Double = 3

    @Option(name: .long, help: ArgumentHelp("At the end of the source, wait up to this many seconds for the server to take what waits.",
                                            valueName: "seconds"))
    var wait: Double = 5

    func validate() throws {
        guard keep > 0, keep <= 3_600 else { throw ValidationError("--keep must be a number of seconds between 0 and 3600.") }
        guard wait >= 0, wait.isFinite else { throw ValidationError("--wait must be a number of seconds, 0 or more.") }
        if let receiver, receiver.isEmpty || receiver.utf8.count > 200 {
            throw ValidationError("--receiver must be a receiver's id of 1 to 200 characters.")
        }
    }

    func run() async throws {
        let scans = try source.open(defaultPace: .recorded)
        guard scans.isLive else {
            throw CommandFailure("\(scans.name) is a file, read at once: the server would get its reports all together. "
                                 + "Pipe it (`--recording -`) at its own pace, give a capture with --pace recorded, or scan with --adapter.")
        }
        if let mqtt {
            try await publishAsNode(scans, to: mqtt)
            return
        }
        let client = try connection.client()
        let relay = ReceiverRelay(client: client, receiver: receiver,
                                  configuration: ReceiverRelay.Configuration(keep: .milliseconds(Int64(keep * 1_000))))
        let sending = Task { await relay.run() }
        Terminal.error("Relaying \(scans.name)\(receiver.map { " as receiver \($0)" } ?? "") to \(client.server).")
        do {
            for try await scan in scans { await relay.add(scan) }
        } catch {
            _ = await relay.finish(waitingUpTo: .zero)
            sending.cancel()
            throw error
        }
        let statistics = await relay.finish(waitingUpTo: .milliseconds(Int64(wait * 1_000)))
        let pending = await relay.pending
        sending.cancel()
        scans.recordingReader?.warnAboutSkippedLines()
        if let summary = scans.summary { Terminal.error(summary) }
        Terminal.error(Self.summary(statistics, pending: pending))
        if statistics.delivered == 0, statistics.received > 0 { throw ExitCode.failure }
    }

    /// Publishes every scan's readings as an ESPresense node's messages until the source ends.
    private func publishAsNode(_ scans: ScanSource, to url: String) async throws {
        let configuration = try MQTTConnection.configuration(url: url)
        let connection = try await MQTTConnection.open(configuration, label: "whereabouts.relay")
        defer { connection.task.cancel() }
        let client = connection.client
        Terminal.error("Publishing \(scans.name) to \(configuration.brokerDescription) as an ESPresense node.")
        var published = 0
        var unnamed = 0
        var refused = 0
        for try await scan in scans {
            guard let room = receiver ?? scan.device else {
                unnamed += 1
                continue
            }
            for message in ESPresenseNode(room: room).messages(for: scan) {
                do {
                    try await client.publish(message)
                    published += 1
                } catch {
                    refused += 1
                }
            }
        }
        try? await client.waitUntilAcknowledged(timeout: .milliseconds(Int64(wait * 1_000)))
        await client.stop()
        scans.recordingReader?.warnAboutSkippedLines()
        var text = "Published \(published.counted("message")) to \(configuration.brokerDescription)"
        if refused > 0 { text += "; \(refused) not queued (the broker was away too long)" }
        if unnamed > 0 { text += "; \(unnamed.counted("scan")) without a receiver (give --receiver)" }
        Terminal.error(text + ".")
    }

    /// `Relayed 120 scans: the server took 118, refused 2; 0 dropped. Last problem: …`
    static func summary(_ statistics: ReceiverRelay.Statistics, pending: Int) -> String {
        var dropped: [String] = []
        if statistics.expired > 0 { dropped.append("\(statistics.expired) too old to send") }
        if statistics.overflowed > 0 { dropped.append("\(statistics.overflowed) beyond the relay's room") }
        if statistics.unnamed > 0 { dropped.append("\(statistics.unnamed) without a receiver (give --receiver)") }
        if pending > 0 { dropped.append("\(pending) still waiting at the end") }
        var text = "Relayed \(statistics.received.counted("scan")): the server took \(statistics.delivered), refused \(statistics.refused)"
        text += dropped.isEmpty ? "; none dropped." : "; dropped " + dropped.joined(separator: ", ") + "."
        if let error = statistics.lastError { text += " Last problem: \(error)" }
        return text
    }
}
