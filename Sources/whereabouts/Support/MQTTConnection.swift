import Foundation
import Logging
import WhereaboutsMQTT

/// A command's connection to an MQTT broker (`bridge`, `relay --mqtt`): the configuration from
/// `--mqtt` (the password from the URL or `WHEREABOUTS_MQTT_PASSWORD`), a client running in a
/// task, and a clear failure when the broker cannot be reached or refuses.
struct MQTTConnection {
    /// The client, connected.
    let client: MQTTClient
    /// The task that holds the connection; it ends with the broker's refusal, if any.
    let task: Task<Void, any Error>

    /// The configuration `url` and `caFile` give, with the password from the environment when
    /// the URL names a user without one.
    static func configuration(url: String, caFile: String? = nil) throws -> MQTTConfiguration {
        var configuration: MQTTConfiguration
        do { configuration = try MQTTConfiguration(url: url, caFile: caFile) } catch { throw CommandFailure("--mqtt: \(error)") }
        if configuration.userName != nil, configuration.password == nil {
            configuration.password = ProcessInfo.processInfo.environment["WHEREABOUTS_MQTT_PASSWORD"]
        }
        return configuration
    }

    /// Starts the client without waiting for the broker (a server must not fail to start because
    /// its broker boots later): it connects when the broker answers, reconnects when it goes,
    /// and its task ends with the broker's refusal, if any.
    static func start(_ configuration: MQTTConfiguration, label: String, logLevel: Logger.Level = .warning) -> MQTTConnection {
        var logger = Logger(label: label)
        logger.logLevel = logLevel
        let client = MQTTClient(configuration: configuration, logger: logger)
        return MQTTConnection(client: client, task: Task { try await client.run() })
    }

    /// Connects, waiting up to 15 s for the broker to accept; throws a `CommandFailure` saying
    /// why it did not (the broker's refusal, or the last connection's end).
    static func open(_ configuration: MQTTConfiguration, label: String) async throws -> MQTTConnection {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        let client = MQTTClient(configuration: configuration, logger: logger)
        let task = Task { try await client.run() }
        do {
            try await client.waitUntilConnected(timeout: .seconds(15))
        } catch {
            task.cancel()
            let reason = await client.statistics.lastDisconnection.map { " (\($0))" } ?? ""
            throw CommandFailure("\(error)\(reason)")
        }
        return MQTTConnection(client: client, task: task)
    }
}
