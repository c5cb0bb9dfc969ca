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
                FuseCommand.self,
                BridgeCommand.self,
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
                TagsCommand.self,
            ]),
            CommandGroup(name: "Tracking", subcommands: [
                TrackCommand.self,
                RelayCommand.self,
                SyncCommand.self,
                NoteCommand.self,
                EventsCommand.self,
            ]),
            CommandGroup(name: "Server", subcommands: [
                ServeCommand.self,
                UsersCommand.self,
                ExportCommand.self,
                ImportCommand.self,
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
            let message = errorMessage(for: error)
            if !message.isEmpty { Terminal.error(message) }
            Foundation.exit(code.rawValue)
        }
    }

    /// What the tool writes on standard error when `error` ends the command line `arguments`
    /// (the program's name first): ArgumentParser's message with its usage, in the tool's style
    /// and with the option a mistyped one most likely meant; usage wrapped to `columns` (the
    /// terminal's width when `nil`).
    static func errorMessage(for error: any Error, arguments: [String] = CommandLine.arguments, columns: Int? = nil) -> String {
        ErrorMessage.styled(ErrorMessage.suggestingOptions(in: fullMessage(for: error, columns: columns), arguments: arguments))
    }
}

/// The one style of the tool's error messages.
enum ErrorMessage {
    /// `text` with the option an unknown option most likely meant, chosen among every option of
    /// the command named on the command line (a prefix, a case, a few edits: `--algo` →
    /// `--algorithm`), in place of ArgumentParser's own guess, or with no guess when none is near.
    ///
    /// ArgumentParser reports a missing required option before an unknown one, so a misspelt
    /// required option (`--venu`) would read "Missing expected argument '--venue'": that is
    /// answered the same way, from the unknown option on the command line.
    static func suggestingOptions(in text: String, arguments: [String] = CommandLine.arguments) -> String {
        if let missing = text.range(of: "Missing expected argument '--") {
            return suggestingMisspeltRequiredOption(in: text, missing: missing, arguments: arguments)
        }
        guard let range = text.range(of: "Unknown option '--") else { return text }
        let nameStart = range.upperBound
        guard let nameEnd = text[nameStart...].firstIndex(of: "'") else { return text }
        let typed = String(text[nameStart..<nameEnd])
        let options = optionNames(of: command(named: arguments))
        let lineEnd = text[nameEnd...].firstIndex(where: \.isNewline) ?? text.endIndex
        var line = "Unknown option '--\(typed)'."
        if let suggestion = NearestName.suggestion(for: typed, among: options) { line += " Did you mean '--\(suggestion)'?" }
        return String(text[..<range.lowerBound]) + line + String(text[lineEnd...])
    }

    /// `text` with its "Missing expected argument" line (at `missing`) replaced by the first
    /// long option on the command line that the command does not know, and the option it most
    /// likely meant; unchanged when every option given is known.
    private static func suggestingMisspeltRequiredOption(in text: String, missing: Range<String.Index>,
                                                         arguments: [String]) -> String {
        let options = optionNames(of: command(named: arguments))
        let given = arguments.dropFirst().prefix { $0 != "--" }
        guard let typed = given.lazy.filter({ $0.hasPrefix("--") && $0.count > 2 })
            .map({ String($0.dropFirst(2).prefix { $0 != "=" }) })
            .first(where: { !options.contains($0) && $0 != "help" && $0 != "version" }) else { return text }
        var line = "Unknown option '--\(typed)'."
        if let suggestion = NearestName.suggestion(for: typed, among: options) { line += " Did you mean '--\(suggestion)'?" }
        let lineEnd = text[missing.upperBound...].firstIndex(where: \.isNewline) ?? text.endIndex
        return String(text[..<missing.lowerBound]) + line + String(text[lineEnd...])
    }

    /// The subcommand the arguments name (the root command when they name none).
    static func command(named arguments: [String]) -> any ParsableCommand.Type {
        var command: any ParsableCommand.Type = WhereaboutsCommand.self
        for argument in arguments.dropFirst() {
            guard let next = command.configuration.subcommands.first(where: { $0.configuration.commandName == argument }) else { break }
            command = next
        }
        return command
    }

    /// The long option names (without `--`) in `command`'s help.
    static func optionNames(of command: any ParsableCommand.Type) -> [String] {
        let help = WhereaboutsCommand.helpMessage(for: command, columns: 10_000)
        var names: Set<String> = []
        var index = help.startIndex
        while let range = help.range(of: "--", range: index..<help.endIndex) {
            let name = help[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            if let first = name.first, first.isLetter { names.insert(String(name)) }
            index = range.upperBound
        }
        return names.sorted()
    }

    /// `text` with ArgumentParser's `Error: ` prefix written as the tool writes its own errors,
    /// `error: `, and without trailing blank lines.
    static func styled(_ text: String) -> String {
        var text = Substring(text)
        while text.last?.isNewline == true { text.removeLast() }
        if text.hasPrefix("Error: ") { return "error: " + text.dropFirst("Error: ".count) }
        return String(text)
    }
}
