import Foundation

/// A one-line progress display on standard error, redrawn at most ten times a second, and only
/// when standard error is a terminal (never in pipes, logs or CI).
struct Progress {
    /// What is in progress (`reading train.jsonl`).
    private let label: String
    /// The amount of work when done (bytes, scans); 0 when unknown.
    private let total: Int
    /// Whether the line is drawn at all.
    private let enabled: Bool
    /// When the line was last drawn.
    private var lastDraw = Date.distantPast

    /// A progress line for `label`, `total` units of work in all.
    init(_ label: String, total: Int) {
        self.label = label
        self.total = total
        enabled = Terminal.standardErrorIsTerminal && total > 0
    }

    /// Redraws the line with `done` units of work done, unless it was drawn less than 0.1 s ago.
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

    /// Clears the line.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
