import Foundation
import WhereaboutsServerTesting

/// This test binary started again to run one test alone (`--filter`), with `environment` added:
/// for what must happen in another process — being killed mid-write, or having its memory
/// measured without the tests that run beside it.
///
/// The child test is one that runs only when its environment variable is set. Waiting for it
/// happens on a thread of its own (``DedicatedThread``): the child runs for minutes, and a test
/// that held one of the concurrency pool's threads that long would starve the tests beside it.
struct ChildTestProcess: Sendable {
    let process = Process()
    let output = Pipe()

    /// Starts the test `filter` in a child process; its standard output is ``output``.
    init(filter: String, environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Waits for the child to end; returns everything it printed.
    func waitForOutput() async -> String {
        let (process, output) = (process, output)
        return await DedicatedThread.run {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
    }
}
