import Foundation
import Whereabouts

extension RecordingReader {
    /// A reader of the recording at `path` (`-` for standard input), or an error naming the
    /// missing file.
    static func open(_ path: String, lenient: Bool) throws -> RecordingReader {
        let options = Options(lenient: lenient)
        if path == "-" { return RecordingReader(handle: FileHandle.standardInput, options: options) }
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("\(path): no such file (the recording)") }
        return try RecordingReader(url: URL(fileURLWithPath: path), options: options)
    }

    /// Writes a warning to standard error for each key the format does not know, and when a
    /// lenient reader skipped lines.
    func warnAboutSkippedLines() {
        InputFiles.warn(about: unknownKeys)
        guard skippedLines > 0 else { return }
        Terminal.error("warning: \(name): skipped \(skippedLines.counted("malformed line"))"
                       + " (first: \(problems.first.map(String.init(describing:)) ?? "?"))")
    }

    /// Fails, saying so, when the recording held no scan at all (an empty file, or only blank
    /// lines): a command that silently wrote nothing would look like a success.
    func requireScans(toDo task: String) throws {
        guard scansRead == 0 else { return }
        let skipped = skippedLines > 0 ? " (\(skippedLines.counted("malformed line")) skipped)" : ""
        throw CommandFailure("\(name): the recording holds no scans\(skipped); nothing to \(task).")
    }
}
