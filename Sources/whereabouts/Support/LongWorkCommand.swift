import ArgumentParser

/// A command whose work takes long enough to draw a progress line (`calibrate`, `eval`, `train`,
/// `simulate`): its `run()` applies `--quiet` and shows the work's progress, so that each
/// command writes only its `work()`.
protocol LongWorkCommand: ParsableCommand {
    /// `--quiet`.
    var progressOptions: ProgressOptions { get }

    /// What the command does, reporting its progress through `WorkProgress`.
    func work() throws
}

extension LongWorkCommand {
    /// Applies `--quiet`, then does the work with a progress line on a terminal.
    func run() throws {
        progressOptions.apply()
        try ProgressLine.showingWork { try work() }
    }
}
