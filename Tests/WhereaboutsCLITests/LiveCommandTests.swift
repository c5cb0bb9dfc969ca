import Foundation
import Testing
import WhereaboutsServerTesting

/// Commands fed live through a pipe that stays open, as on a gateway: each event line comes out
/// when it happens, and silence lets the exits fall due before the input ends.
@Suite struct LiveCommandTests {
    /// A `whereabouts` process with its standard input held open and its output lines collected
    /// as they come, each with the moment it was read.
    final class LiveProcess: @unchecked Sendable {
        let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private let lock = NSLock()
        private var received: [(line: String, at: ContinuousClock.Instant)] = []
        private var partial = Data()

        init(_ arguments: [String]) throws {
            process.executableURL = CommandRunner.productsDirectory.appendingPathComponent("whereabouts")
            process.arguments = arguments
            process.currentDirectoryURL = CommandRunner.packageRoot
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let handle = output.fileHandleForReading
            let thread = Thread { [self] in
                var buffer = [UInt8](repeating: 0, count: 4_096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { return }
                    let now = ContinuousClock.now
                    lock.withLock {
                        partial.append(contentsOf: buffer[0..<count])
                        while let newline = partial.firstIndex(of: 0x0A) {
                            received.append((String(decoding: partial[partial.startIndex..<newline], as: UTF8.self), now))
                            partial.removeSubrange(partial.startIndex...newline)
                        }
                    }
                }
            }
            thread.start()
        }

        /// The lines read so far, with when.
        var lines: [(line: String, at: ContinuousClock.Instant)] { lock.withLock { received } }

        /// Writes one line to the process's standard input; returns when it was written.
        @discardableResult
        func send(_ line: String) -> ContinuousClock.Instant {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
            return ContinuousClock.now
        }

        /// Waits (at most `limit`) until a line containing `text` has been read after the first
        /// `skipping` lines; returns when it was read. It blocks the calling thread: a test calls
        /// it within ``DedicatedThread/run(_:)``, or awaits ``waitForLine(containing:skipping:limit:)``.
        func blockingWaitForLine(containing text: String, skipping: Int = 0, limit: Duration) -> ContinuousClock.Instant? {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                if let found = lines.dropFirst(skipping).first(where: { $0.line.contains(text) }) { return found.at }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return lines.dropFirst(skipping).first(where: { $0.line.contains(text) })?.at
        }

        /// ``blockingWaitForLine(containing:skipping:limit:)`` on a thread of its own.
        func waitForLine(containing text: String, skipping: Int = 0, limit: Duration) async -> ContinuousClock.Instant? {
            await DedicatedThread.run { self.blockingWaitForLine(containing: text, skipping: skipping, limit: limit) }
        }

        /// Closes standard input and waits (on a thread of its own) for the process to end.
        func close() async -> Int32 {
            try? input.fileHandleForWriting.close()
            return await DedicatedThread.waitUntilExit(process)
        }
    }

    /// How long the command may take to start and answer its first scan: a debug build on a busy
    /// machine (the rest of the suite running on both cores) can take minutes. Not what is measured.
    static let startup = Duration.seconds(600)

    /// The bundled visit's scan `index`, stamped with the wall clock now.
    static func visitScan(_ index: Int) throws -> String {
        let lines = try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent("Examples/visit.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        let line = String(lines[index])
        let time = String(format: "%.3f", Date().timeIntervalSince1970)
        guard let comma = line.firstIndex(of: ",") else { return line }
        return "{\"t\":\(time)" + line[comma...]
    }

    /// `watch --recording -` on a pipe that stays open: once the pipeline runs, the exits come
    /// within the exit timeout + 1 s of the last scan, before the input ends, and a scan after
    /// them gives its enterRegion within 0.5 s.
    @Test func watchWritesEachEventWhileThePipeStaysOpen() async throws {
        let watch = try LiveProcess(["watch", "--venue", "Examples/venue.json", "--recording", "-", "--json",
                                     "--exit-timeout", "2", "--algorithm", "centroid"])
        defer { if watch.process.isRunning { watch.process.terminate() } }
        // The first scan: its enterRegion comes once the command has started (a debug build on a
        // slow machine takes seconds to load; that is not what is measured). Then five more scans,
        // a fifth of a second apart, then silence with the pipe open. All from a thread of its
        // own: the test's task can wait seconds for a thread of the concurrency pool while the
        // rest of the suite keeps it busy, which would let the first scan's exit fall due.
        let (entered, lastScan) = try await DedicatedThread.run { () throws -> (ContinuousClock.Instant?, ContinuousClock.Instant) in
            watch.send(try Self.visitScan(0))
            guard let entered = watch.blockingWaitForLine(containing: "\"enterRegion\"", limit: Self.startup) else { return (nil, .now) }
            var last = ContinuousClock.now
            for index in 1...5 {
                Thread.sleep(forTimeInterval: 0.2)
                last = watch.send(try Self.visitScan(index))
            }
            return (entered, last)
        }
        try #require(entered != nil, "no enterRegion while the pipe is open")
        let exited = await watch.waitForLine(containing: "\"exitRegion\"", limit: .seconds(10))
        let exitedAt = try #require(exited, "no exitRegion while the pipe is open")
        #expect(exitedAt - lastScan <= .seconds(3), "exitRegion \(exitedAt - lastScan) after the last scan (timeout 2 s)")
        #expect(exitedAt - lastScan >= .milliseconds(1_900))
        // The visit's first scans are in a room: it was entered, and is left on the same bound.
        try #require(watch.lines.contains { $0.line.contains("\"enterLocation\"") }, "no enterLocation from the visit's first scans")
        let left = try #require(await watch.waitForLine(containing: "\"exitLocation\"", limit: .seconds(1)))
        #expect(left - lastScan <= .seconds(3), "exitLocation \(left - lastScan) after the last scan (timeout 2 s)")
        #expect(left - lastScan >= .milliseconds(1_900))
        // A scan after the exits: entered again, at once.
        let before = watch.lines.count
        let sent = watch.send(try Self.visitScan(6))
        let again = try #require(await watch.waitForLine(containing: "\"enterRegion\"", skipping: before, limit: .seconds(10)))
        // At once, not at the next deadline (the exit timeout, 2 s, away): 1.5 s leaves room for a
        // busy machine's scheduling and still tells the two apart.
        #expect(again - sent <= .milliseconds(1_500), "enterRegion \(again - sent) after its scan")
        #expect(await watch.close() == 0)
        // The end of the input lets the last exit fall due: one exitRegion per enterRegion.
        let topics = watch.lines.map(\.line)
        #expect(topics.filter { $0.contains("\"enterRegion\"") }.count == 2)
        #expect(topics.filter { $0.contains("\"exitRegion\"") }.count == 2)
    }

    /// `locate --recording -` on a pipe that stays open writes each fix when its scan comes.
    @Test func locateWritesEachFixWhileThePipeStaysOpen() async throws {
        let locate = try LiveProcess(["locate", "--venue", "Examples/venue.json", "--recording", "-", "--algorithm", "centroid"])
        defer { if locate.process.isRunning { locate.process.terminate() } }
        locate.send(try Self.visitScan(0))
        try #require(await locate.waitForLine(containing: "\"accuracy\"", limit: Self.startup) != nil)
        let sent = locate.send(try Self.visitScan(1))
        let second = try #require(await locate.waitForLine(containing: "\"accuracy\"", skipping: 1, limit: .seconds(10)))
        // Written when its scan comes, not held until the input ends (nor a buffer fills): the
        // bound leaves room for a busy machine's scheduling.
        #expect(second - sent <= .milliseconds(1_500), "the fix came \(second - sent) after its scan")
        #expect(await locate.close() == 0)
        #expect(locate.lines.count == 2)
    }
}
