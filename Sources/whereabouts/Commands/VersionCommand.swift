import ArgumentParser

/// `whereabouts version`
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the version of Whereabouts.",
        discussion: "Example:\n  whereabouts version"
    )

    func run() {
        print("whereabouts \(WhereaboutsCommand.configuration.version)")
    }
}
