/// A failure the command explains in one sentence (printed as `error: …`, exit status 1).
struct CommandFailure: Error, CustomStringConvertible {
    /// What went wrong and, where possible, what to do.
    let description: String

    /// A failure described by `description`.
    init(_ description: String) {
        self.description = description
    }
}
