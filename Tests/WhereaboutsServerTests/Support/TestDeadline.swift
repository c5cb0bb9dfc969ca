import NIOCore

/// How long a test waits for an answer before it calls its peer hung — the in-process server,
/// Chromium — where what the test checks is the answer, not how soon it came.
///
/// The in-process server's handlers and the tests' own receiving tasks run on the test process's
/// concurrency pool, a thread a core, and every test starts at once: at the suite's start the
/// pool works through the CPU-bound tests first (a 100 ms sleep measured waking 177 s late on two
/// cores), so a deadline of seconds failed tests whose server was only waiting for its turn.
/// Tests of a timeout or of latency keep their own, exact bounds.
enum TestDeadline {
    /// A request's or a command's deadline.
    static let answer: Duration = .seconds(300)
    /// ``answer`` for AsyncHTTPClient.
    static let answerTime: TimeAmount = .seconds(300)
}
