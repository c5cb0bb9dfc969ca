import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to standard error, and a progress line that only appears on a terminal.
enum Terminal {
    /// Writes a line to standard error.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Whether standard error is a terminal (progress lines are drawn only then).
    static var standardErrorIsTerminal: Bool { isatty(2) != 0 }

    /// How to run this tool again from the shell it was run from: `swift run whereabouts` when it
    /// is the build product of a package (`swift run` built it, it is not installed yet), else
    /// `whereabouts`.
    static var invocation: String {
        let path = URL(fileURLWithPath: CommandLine.arguments.first ?? "").standardizedFileURL.path
        return path.contains("/.build/") ? "swift run whereabouts" : "whereabouts"
    }
}
