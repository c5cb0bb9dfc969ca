import ArgumentParser
@testable import whereabouts

/// A `whereabouts` command line parsed and validated in this process, as the tool does before it
/// runs a command: the status it would exit with and what it would print, without launching it.
///
/// Nothing is run. A command line that parses and validates gives status 0, no text, and the
/// command ready to run; one that asks for help gives status 0 and the help on standard output; a
/// refused one gives the tool's error message on standard error (with the command's usage after
/// a usage error) and its status, 64 for a usage or validation error. Checks that a command makes
/// while it runs (files it reads, servers it reaches) need the launched tool: ``CommandRunner``.
enum InProcessCommand {
    /// What the tool answers a command line with before it runs any command.
    struct Outcome {
        /// The status the tool exits with.
        var status: Int32
        /// What the tool prints on standard output: the help or the version asked for.
        var standardOutput: String
        /// What the tool prints on standard error: why the command line was refused.
        var standardError: String
        /// The command parsed and validated, `nil` when the command line was refused or asked
        /// for help.
        var command: (any ParsableCommand)?
    }

    /// The width help and usage are wrapped to: the tool's own when its output is not a terminal
    /// and `COLUMNS` is unset, so that the texts do not depend on where the tests run.
    static let columns = 80

    /// Parses and validates `arguments` (the words after `whereabouts`) as the tool does.
    static func parse(_ arguments: [String]) -> Outcome {
        do {
            var command = try WhereaboutsCommand.parseAsRoot(arguments)
            if !isOwn(type(of: command)) {
                // ArgumentParser's help command (what `--help` and `help` parse to) answers by
                // throwing the help request when the tool's `main()` runs it; it prints nothing.
                try command.run()
            }
            return Outcome(status: 0, standardOutput: "", standardError: "", command: command)
        } catch {
            let code = WhereaboutsCommand.exitCode(for: error)
            if code == .success {
                // As ArgumentParser's `exit(withError:)` prints a help or version request.
                let text = WhereaboutsCommand.fullMessage(for: error, columns: columns)
                return Outcome(status: 0, standardOutput: text.isEmpty ? "" : text + "\n", standardError: "", command: nil)
            }
            // As the tool's `main()` prints a failure (`Terminal.error` ends it with a newline).
            let message = WhereaboutsCommand.errorMessage(for: error, arguments: ["whereabouts"] + arguments, columns: columns)
            return Outcome(status: code.rawValue, standardOutput: "", standardError: message.isEmpty ? "" : message + "\n",
                           command: nil)
        }
    }

    /// Whether `command` is the tool's root command or one of its subcommands, at any depth,
    /// rather than a command of ArgumentParser's own.
    private static func isOwn(_ command: any ParsableCommand.Type,
                              under root: any ParsableCommand.Type = WhereaboutsCommand.self) -> Bool {
        command == root || root.configuration.subcommands.contains { isOwn(command, under: $0) }
    }
}
