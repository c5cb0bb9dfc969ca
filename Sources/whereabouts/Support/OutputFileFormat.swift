import ArgumentParser
import Foundation

/// The format an output file's name says it holds, so that `-o places.jsonl` writes JSON Lines
/// and `-o day.gpx` GPX without a format option, and a format option that contradicts the name
/// is refused rather than written under the wrong extension.
enum OutputFileFormat {
    /// The format the extension of `path` names, among `formats` (lower-case extensions, without
    /// the dot); `nil` without an extension or with one that names none of them.
    static func named<Format>(by path: String?, among formats: [String: Format]) -> Format? {
        guard let path else { return nil }
        let suffix = URL(fileURLWithPath: path).pathExtension.lowercased()
        return suffix.isEmpty ? nil : formats[suffix]
    }

    /// The format to write: the one asked for, else the one the file's name says, else
    /// `fallback`. Asking for one format while naming the file as another is a usage error.
    static func resolve<Format: Equatable>(asked: Format?, askedAs option: String, output: String?,
                                           among formats: [String: Format], fallback: Format,
                                           describe: (Format) -> String) throws -> Format {
        let named = named(by: output, among: formats)
        if let asked, let named, asked != named, let output {
            throw ValidationError("\(option) asks for \(describe(asked)), but \(output) is named as \(describe(named)); "
                                  + "give the file the extension of its format, or leave out \(option).")
        }
        return asked ?? named ?? fallback
    }
}
