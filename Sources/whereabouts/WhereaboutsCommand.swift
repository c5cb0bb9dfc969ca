import ArgumentParser
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
}
