import Foundation
import WhereaboutsServerTesting

/// Runs the built `whereabouts` executable, as a user would from a shell.
struct CommandRunner {
    struct Output: Sendable {
        var status: Int32
        var standardOutput: String
        var standardError: String
        /// From the launch to the exit, measured on the thread that waited (not when the test's
        /// task got a thread again).
        var duration: Duration
    }

    /// The directory of the build products (where the test bundle and the executable are).
    static let productsDirectory: URL = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On Apple platforms the test binary sits inside an .xctest bundle.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS" || directory.lastPathComponent == "Contents" {
            directory.deleteLastPathComponent()
        }
        return directory
    }()

    /// The package's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `whereabouts` with `arguments` in the package root (with `environment` added to this
    /// process's) and waits for it on a thread of its own.
    ///
    /// Every test target runs in one process, whose concurrency pool has a thread a core (two on
    /// a 2-core machine), and synchronous tests run on it as well as async ones: a test that
    /// blocked one of its threads for the seconds a command takes would stall every other test's
    /// work (servers, HTTP clients, clocks) meanwhile, and make their deadlines pass. So there is
    /// no blocking variant.
    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) async throws -> Output {
        try await runExecutable(productsDirectory.appendingPathComponent("whereabouts").path, arguments, input: input,
                                environment: environment)
    }

    /// Runs the program at `path` with `arguments` in the package root and waits for it, on a
    /// thread of its own (see ``run(_:input:environment:)``).
    static func runExecutable(_ path: String, _ arguments: [String], input: Data? = nil,
                              environment: [String: String] = [:]) async throws -> Output {
        try await slots.withSlot {
            try await DedicatedThread.run { try blockingRun(path, arguments, input: input, environment: environment) }
        }
    }

    /// How many commands run at once: one. The pool's threads keep running the other tests
    /// meanwhile, and a command's process is one more on the machine's cores: more at once would
    /// slow the in-process servers of other tests past their clients' deadlines.
    private static let slots = ProcessSlots(count: 1)

    /// A count of free places that tasks wait for in turn, without holding a thread.
    actor ProcessSlots {
        private var free: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(count: Int) { free = count }

        /// Takes a place, waiting for one to be released when there is none.
        private func acquire() async {
            if free > 0 {
                free -= 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        /// Gives a place back: to the longest waiting task, if any.
        private func release() {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }

        /// Runs `body` holding a place, given back however it ends.
        func withSlot<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
            await acquire()
            defer { release() }
            return try await body()
        }
    }

    /// Runs the program and waits for it, blocking the calling thread.
    private static func blockingRun(_ path: String, _ arguments: [String], input: Data?,
                                    environment: [String: String]) throws -> Output {
        let started = ContinuousClock.now
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.currentDirectoryURL = packageRoot
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            pipe.fileHandleForWriting.write(input)
            try pipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        // Read both pipes before waiting, so a large output cannot fill a pipe and block the child.
        let outData = readToEnd(out.fileHandleForReading)
        let errData = readToEnd(err.fileHandleForReading)
        process.waitUntilExit()
        return Output(status: process.terminationStatus,
                      standardOutput: String(decoding: outData, as: UTF8.self),
                      standardError: String(decoding: errData, as: UTF8.self),
                      duration: ContinuousClock.now - started)
    }

    /// Everything left to read from `handle`, reading again when a signal interrupts a read
    /// (`FileHandle.readDataToEndOfFile()` stops the process on `EINTR`).
    static func readToEnd(_ handle: FileHandle) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("whereabouts-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
