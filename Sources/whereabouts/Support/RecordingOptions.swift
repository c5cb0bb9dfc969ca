import ArgumentParser
import Whereabouts

/// How a command reads its recordings: `--lenient`. One flag, with one meaning and one help text,
/// for every command that reads recordings.
struct RecordingOptions: ParsableArguments {
    /// Skip and count malformed lines instead of stopping at the first.
    @Flag(name: .long, help: "Skip malformed lines of the recordings (counted) instead of stopping at the first.")
    var lenient = false

    /// The reader options the flag stands for.
    var readerOptions: RecordingReader.Options { RecordingReader.Options(lenient: lenient) }
}
