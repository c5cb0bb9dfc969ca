import ArgumentParser
import Foundation
import Whereabouts

/// A tags file (FORMATS.md §9) naming the tags receivers hear: `--tags tags.json`.
struct TagsFileOption: ParsableArguments {
    @Option(name: .customLong("tags"),
            help: ArgumentHelp("A tags file naming tags by identity, and phones by their identity resolving keys (`whereabouts tags add`).",
                               valueName: "tags.json"))
    var path: String?

    /// The file's tags (none without `--tags`).
    func read() throws -> [Venue.Tag] {
        guard let path else { return [] }
        return try InputFiles.tags(at: path)
    }

    /// `venue` with the file's tags after its own, or an error naming the tag both name.
    func adding(to venue: Venue) throws -> Venue {
        let tags = try read()
        return tags.isEmpty ? venue : try venue.addingTags(tags, from: path)
    }
}
