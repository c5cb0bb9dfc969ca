import ArgumentParser
import Whereabouts

/// `whereabouts version`
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the version of Whereabouts.",
        discussion: "Example:\n  whereabouts version"
    )

    func run() {
        print("whereabouts \(WhereaboutsInfo.version)")
    }
}
