import ArgumentParser
import Foundation
import Whereabouts

/// The `whereabouts` command-line tool.
@main
struct WhereaboutsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whereabouts",
        abstract: "Turn Bluetooth beacon sightings into where people are.",
        discussion: HelpText.fitting("""
        Venues (venue.json) and recordings (*.jsonl) follow the formats in FORMATS.md.
        Start with `whereabouts demo`, which runs the bundled example.

        Examples:
          whereabouts demo
          whereabouts eval --venue Examples/venue.json --test Examples/visit.jsonl
          whereabouts help locate
        """),
        version: WhereaboutsInfo.version,
        subcommands: [
            DemoCommand.self,
            VersionCommand.self,
        ],
        groupedSubcommands: [
            CommandGroup(name: "Positioning", subcommands: [
                SimulateCommand.self,
                ValidateCommand.self,
                CalibrateCommand.self,
                EvalCommand.self,
                LocateCommand.self,
            ]),
            CommandGroup(name: "Places and rooms", subcommands: [
                TrainCommand.self,
                ClassifyCommand.self,
                RankCommand.self,
                WatchCommand.self,
                AnchorsCommand.self,
            ]),
            CommandGroup(name: "Bluetooth", subcommands: [
                ScanCommand.self,
                RecordCommand.self,
            ]),
            CommandGroup(name: "Tracking", subcommands: [
                TrackCommand.self,
                SyncCommand.self,
                NoteCommand.self,
                EventsCommand.self,
            ]),
            CommandGroup(name: "Server", subcommands: [
                ServeCommand.self,
                UsersCommand.self,
                ExportCommand.self,
            ]),
        ]
    )

    /// Runs the command named on the command line. Failures are printed in one style across
    /// commands, `error: FILE:LINE:COLUMN: what is wrong — what to do`, with the command's own
    /// usage after a usage error; help and the version are printed as ArgumentParser prints them.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            guard code != .success else { exit(withError: error) }
            let message = ErrorMessage.styled(fullMessage(for: error))
            if !message.isEmpty { Terminal.error(message) }
            Foundation.exit(code.rawValue)
        }
    }
}

/// The one style of the tool's error messages.
enum ErrorMessage {
    /// `text` with ArgumentParser's `Error: ` prefix written as the tool writes its own errors,
    /// `error: `, and without trailing blank lines.
    static func styled(_ text: String) -> String {
        var text = Substring(text)
        while text.last?.isNewline == true { text.removeLast() }
        if text.hasPrefix("Error: ") { return "error: " + text.dropFirst("Error: ".count) }
        return String(text)
    }
}
