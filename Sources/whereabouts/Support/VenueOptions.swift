import ArgumentParser
import Foundation
import Whereabouts

/// The venue a command works in: `--venue venue.json`.
struct VenueOptions: ParsableArguments {
    /// The venue file's path.
    @Option(name: .customLong("venue"), help: ArgumentHelp("The venue.", valueName: "venue.json"))
    var path: String

    /// Reads the venue.
    func read() throws -> Venue {
        try Self.read(at: path)
    }

    /// The venue at `path`, or an error naming the file and the problem.
    static func read(at path: String) throws -> Venue {
        try InputFiles.venue(at: path)
    }
}
