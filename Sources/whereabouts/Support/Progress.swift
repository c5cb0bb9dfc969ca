import ArgumentParser
import Foundation
import Whereabouts

/// A one-line progress display on standard error, redrawn at most ten times a second, and only
/// when standard error is a terminal (never in pipes, logs or CI) and `--quiet` was not given.
struct Progress {
    /// What is in progress (`reading train.jsonl`).
    private let label: String
    /// The amount of work when done (bytes, scans); 0 when unknown.
    private let total: Int
    /// Whether the line is drawn at all.
    private let enabled: Bool
    /// When the line was last drawn.
    private var lastDraw = Date.distantPast
    /// When the work began, for the time left.
    private let start = Date()

    /// A progress line for `label`, `total` units of work in all.
    init(_ label: String, total: Int) {
        self.label = label
        self.total = total
        enabled = ProgressLine.isShown && total > 0
    }

    /// Redraws the line with `done` units of work done, unless it was drawn less than 0.1 s ago.
    mutating func update(_ done: Int) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        ProgressLine.draw(label, fraction: Double(done) / Double(total), elapsed: now.timeIntervalSince(start))
    }

    /// Clears the line.
    func finish() {
        guard enabled else { return }
        ProgressLine.clear()
    }
}

/// The progress line itself: whether it is shown, how it is drawn, and the library's reports of
/// its long work (``WorkProgress``) drawn on it.
enum ProgressLine {
    /// Whether progress lines are drawn: standard error is a terminal and `--quiet` was not given.
    static var isShown: Bool { Terminal.standardErrorIsTerminal && !quiet.value }
    /// Set by `--quiet`.
    static let quiet = LockedValue(false)

    /// `label ████░░░░ 40% · 12 s left`, over whatever the line held.
    static func draw(_ label: String, fraction: Double, elapsed: TimeInterval) {
        let fraction = min(1, max(0, fraction))
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        var line = "\r\u{1B}[2K\(label) \(bar) \(Int(fraction * 100))%"
        if fraction > 0.02, elapsed > 2 {
            line += " · " + timeLeft(elapsed / fraction - elapsed)
        }
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Clears the line.
    static func clear() {
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    /// `12 s left`, `3 min left`.
    static func timeLeft(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite else { return "" }
        if seconds < 90 { return "\(Int(seconds.rounded())) s left" }
        return "\(Int((seconds / 60).rounded())) min left"
    }

    /// Runs `body` with the library's reports of its long work drawn on the progress line (a
    /// stage at a time: what it does, how far, how long is left), and clears the line after.
    static func showingWork<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard isShown else { return try body() }
        let drawer = WorkDrawer()
        defer { drawer.finish() }
        return try WorkProgress.$handler.withValue({ drawer.draw($0) }, operation: body)
    }

    /// Runs `body` with the library's reports of its long work drawn on the progress line.
    static func showingWork<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        guard isShown else { return try await body() }
        let drawer = WorkDrawer()
        defer { drawer.finish() }
        return try await WorkProgress.$handler.withValue({ drawer.draw($0) }, operation: body)
    }

    /// Draws the reports, at most ten times a second; the time left is measured from the start
    /// of each stage.
    private final class WorkDrawer: Sendable {
        private struct State {
            var stage = ""
            var stageStart = Date()
            var lastDraw = Date.distantPast
            var drawn = false
        }
        private let state = LockedValue(State())

        func draw(_ progress: WorkProgress) {
            let now = Date()
            let elapsed: TimeInterval? = state.withValue { state in
                if state.stage != progress.stage {
                    state.stage = progress.stage
                    state.stageStart = now
                } else if now.timeIntervalSince(state.lastDraw) < 0.1, progress.completed < progress.total {
                    return nil
                }
                state.lastDraw = now
                state.drawn = true
                return now.timeIntervalSince(state.stageStart)
            }
            guard let elapsed else { return }
            ProgressLine.draw("\(progress.stage) (\(progress.completed)/\(progress.total))",
                              fraction: progress.fraction, elapsed: elapsed)
        }

        func finish() {
            if state.withValue({ $0.drawn }) { ProgressLine.clear() }
        }
    }
}

/// `--quiet`, for the commands that draw a progress line on long work.
struct ProgressOptions: ParsableArguments {
    @Flag(help: "Draw no progress line (it is drawn only when standard error is a terminal).")
    var quiet = false

    /// Applies the option: call it first thing in `run()`.
    func apply() {
        ProgressLine.quiet.withValue { $0 = quiet }
    }
}
