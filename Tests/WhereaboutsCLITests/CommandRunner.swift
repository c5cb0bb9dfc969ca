import Foundation

/// Runs the built `whereabouts` executable, as a user would from a shell.
struct CommandRunner {
    struct Output {
        var status: Int32
        var standardOutput: String
        var standardError: String
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
    /// process's) and waits for it.
    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> Output {
        try runExecutable(productsDirectory.appendingPathComponent("whereabouts").path, arguments, input: input, environment: environment)
    }

    /// Runs `whereabouts` as ``run(_:input:environment:)`` does, waiting on a thread of its own.
    ///
    /// Every test target runs in one process, whose concurrency pool has a thread a core (two on
    /// a 2-core machine): an async test that blocked one of them for the seconds a command takes
    /// would stall every other async test's work (servers, HTTP clients) meanwhile, and make
    /// their deadlines pass. An async test awaits this instead.
    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) async throws -> Output {
        try await runExecutable(productsDirectory.appendingPathComponent("whereabouts").path, arguments, input: input,
                                environment: environment)
    }

    /// Runs the program at `path` as the blocking ``runExecutable(_:_:input:environment:)`` does, on a
    /// thread of its own, off the concurrency pool.
    static func runExecutable(_ path: String, _ arguments: [String], input: Data? = nil,
                              environment: [String: String] = [:]) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try runExecutable(path, arguments, input: input, environment: environment) as Output })
            }
            thread.start()
        }
    }

    /// Runs the program at `path` with `arguments` in the package root and waits for it.
    static func runExecutable(_ path: String, _ arguments: [String], input: Data? = nil,
                              environment: [String: String] = [:]) throws -> Output {
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
                      standardError: String(decoding: errData, as: UTF8.self))
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
