import Foundation
import Whereabouts

/// Reading the single-document input files (venues, walks, models) as every command does: an
/// error naming a missing file and its role, and a warning on standard error for each key the
/// format does not know (`warning: venue.json:9:7: beacons[0].txpower: unknown key, ignored —
/// did you mean "txPower"?`).
enum InputFiles {
    /// The venue at `path`.
    static func venue(at path: String) throws -> Venue {
        try read(path, role: "the venue") { url, keys throws(FormatError) in try VenueFile.read(from: url, unknownKeys: &keys) }
    }

    /// The tags file at `path`.
    static func tags(at path: String) throws -> [Venue.Tag] {
        try read(path, role: "the tags file") { url, keys throws(FormatError) in try TagsFile.read(from: url, unknownKeys: &keys) }
    }

    /// The walk at `path`.
    static func walk(at path: String) throws -> Walk {
        try read(path, role: "the walk") { url, keys throws(FormatError) in try WalkFile.read(from: url, unknownKeys: &keys) }
    }

    /// The place model at `path`.
    static func placeModel(at path: String) throws -> PlaceModel {
        try read(path, role: "the model") { url, keys throws(FormatError) in try PlaceModelFile.read(from: url, unknownKeys: &keys) }
    }

    /// Writes one warning line for each unknown key.
    static func warn(about unknownKeys: [UnknownKey]) {
        for key in unknownKeys { Terminal.error("warning: \(key)") }
    }

    private static func read<Value>(_ path: String, role: String,
                                    _ body: (URL, inout [UnknownKey]) throws(FormatError) -> Value) throws -> Value {
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("\(path): no such file (\(role))") }
        var unknownKeys: [UnknownKey] = []
        let value = try body(URL(fileURLWithPath: path), &unknownKeys)
        warn(about: unknownKeys)
        return value
    }
}
