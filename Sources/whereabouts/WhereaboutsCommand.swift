import ArgumentParser
import Whereabouts

/// The `whereabouts` command-line tool.
@main
struct WhereaboutsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whereabouts",
        abstract: "Turn Bluetooth beacon sightings into where people are.",
        discussion: """
        Venues (venue.json) and recordings (*.jsonl) follow the formats in FORMATS.md.
        Start with `whereabouts demo`, which runs the bundled example.
        """,
        version: WhereaboutsInfo.version,
        subcommands: [
            DemoCommand.self,
            SimulateCommand.self,
            ValidateCommand.self,
            CalibrateCommand.self,
            EvalCommand.self,
            LocateCommand.self,
            ScanCommand.self,
            RecordCommand.self,
            TrainCommand.self,
            ClassifyCommand.self,
            RankCommand.self,
            WatchCommand.self,
            ServeCommand.self,
            UsersCommand.self,
            ExportCommand.self,
            VersionCommand.self,
        ]
    )
}
