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
}

/// A one-line progress display on standard error, redrawn at most ten times a second, and only
/// when standard error is a terminal (never in pipes, logs or CI).
struct Progress {
    private let label: String
    private let total: Int
    private let enabled: Bool
    private var lastDraw = Date.distantPast

    init(_ label: String, total: Int) {
        self.label = label
        self.total = total
        enabled = Terminal.standardErrorIsTerminal && total > 0
    }

    mutating func update(_ done: Int) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let fraction = min(1, Double(done) / Double(total))
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) \(bar) \(Int(fraction * 100))%".utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}

extension URL {
    /// The size of the file in bytes, or 0 when unknown.
    var fileSize: Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
