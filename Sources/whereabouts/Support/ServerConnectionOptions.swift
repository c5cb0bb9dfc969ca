import ArgumentParser
import Foundation
import WhereaboutsTracking

/// Which server and as whom: `--server` and `--token`. Shared by `track`, `sync`, `note` and
/// `events`.
struct ServerConnectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The server (default: $WHEREABOUTS_SERVER, else http://127.0.0.1:8080, where `whereabouts serve` listens).",
        valueName: "url"))
    var server: String?

    @Option(name: .long, help: ArgumentHelp(
        "The access token (default: $WHEREABOUTS_TOKEN; the environment keeps it out of the process list). `whereabouts users add NAME` prints one.",
        valueName: "token"))
    var token: String?

    /// The server's URL.
    var serverURL: String {
        server ?? ProcessInfo.processInfo.environment["WHEREABOUTS_SERVER"] ?? "http://127.0.0.1:8080"
    }

    /// A client for the server.
    func client(defaultStream: String = "position", timeout: Double = 30) throws -> TrackingClient {
        do {
            return try TrackingClient(server: serverURL, token: try resolvedToken(), defaultStream: defaultStream, timeout: timeout)
        } catch let error as TrackingError {
            throw ValidationError(error.description)
        }
    }

    /// The token, from `--token` or the environment.
    func resolvedToken() throws -> String {
        if let token { return token }
        if let token = ProcessInfo.processInfo.environment["WHEREABOUTS_TOKEN"], !token.isEmpty { return token }
        throw ValidationError("Give --token, or set WHEREABOUTS_TOKEN (`whereabouts users add NAME` prints a token).")
    }
}
