/// How far a long piece of the library's work has come — tuning the fingerprints, the default
/// algorithm's validation replay, a room classifier's cross-validation, a calibration — for a
/// front end that shows progress.
///
/// The library reports to the handler bound to the current task with `$handler.withValue`, so
/// nothing changes for a caller that does not listen, and nothing has to be passed down through
/// every initializer. Reports come synchronously, on the thread doing the work: a handler should
/// be quick (the `whereabouts` tool redraws its progress line at most ten times a second).
///
/// ```swift
/// let setup = WorkProgress.$handler.withValue({ progress in
///     print(progress.stage, progress.completed, "of", progress.total)
/// }) {
///     PositioningAlgorithm.default.setup(venue: venue, training: survey)
/// }
/// ```
public struct WorkProgress: Sendable, Hashable, CustomStringConvertible {
    /// What is being done, such as `tuning the fingerprints`.
    public var stage: String
    /// Steps of the stage done.
    public var completed: Int
    /// Steps of the stage in all (at least 1).
    public var total: Int

    /// A report of `completed` steps of `total` done in `stage`.
    public init(stage: String, completed: Int, total: Int) {
        self.stage = stage
        self.total = max(1, total)
        self.completed = min(max(0, completed), self.total)
    }

    /// The share of the stage done, 0…1.
    public var fraction: Double { Double(completed) / Double(total) }

    /// `stage (completed/total)`.
    public var description: String { "\(stage) (\(completed)/\(total))" }

    /// The handler that hears the reports of the work done in this task; `nil` (no one listens)
    /// by default.
    @TaskLocal public static var handler: (@Sendable (WorkProgress) -> Void)?

    /// Tells the listening handler, if any, that `completed` of `total` steps of `stage` are done.
    static func report(_ stage: String, completed: Int, total: Int) {
        guard let handler else { return }
        handler(WorkProgress(stage: stage, completed: completed, total: total))
    }
}
