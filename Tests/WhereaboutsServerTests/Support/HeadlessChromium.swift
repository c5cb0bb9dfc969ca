import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import Whereabouts
import WhereaboutsServerTesting

/// A headless Chromium driven through the DevTools protocol, for tests of the map page.
///
/// ``withPage(_:)`` starts Debian's `chromium` with a fresh profile and remote debugging on a
/// free port, finds the page target through `GET /json/list`, talks to it over a WebSocket, and
/// always kills the browser and removes the profile at the end, whatever happens in between.
///
/// ```swift
/// try await HeadlessChromium.withPage { page in
///     try await page.navigate(to: "http://127.0.0.1:\(port)/map")
///     try await page.waitUntil("window.whereaboutsMap.connected")
///     let points = try await page.evaluate("window.whereaboutsMap.points")
/// }
/// ```
///
/// Tests that need the browser are enabled by ``shouldRun``: when no `chromium` is installed
/// they are skipped, unless `CI` is set, in which case they run and fail with ``Failure/notInstalled``.
enum HeadlessChromium {
    /// The browser's executable: `$WHEREABOUTS_CHROMIUM`, else `chromium` or `chromium-browser`
    /// on the `PATH`.
    static var executablePath: String? {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["WHEREABOUTS_CHROMIUM"], FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in ["chromium", "chromium-browser"] {
            for directory in directories {
                let path = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
        }
        return nil
    }

    /// Whether continuous integration is running the tests (`CI` is set), so that a missing
    /// browser is a failure rather than a reason to skip.
    static var isRequired: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    /// Says once, on standard output, that the browser half of the tests runs:
    /// Scripts/test-summary.sh reads this line as the evidence that it ran.
    private static func announce(_ executable: String) {
        announcement.withValue { announced in
            if !announced { print("note: the browser half of the tests runs with \(executable)") }
            announced = true
        }
    }
    private static let announcement = LockedValue(false)

    /// Whether browser tests should run: the browser is installed, or CI requires it.
    static var shouldRun: Bool { executablePath != nil || isRequired }

    /// Why the browser could not be driven.
    enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case didNotStart(String)
        case protocolError(String)
        case timedOut(String)

        var description: String {
            switch self {
            case .notInstalled:
                "chromium is not installed (CI is set, so browser tests are required): install Debian's package "
                    + "with `apt-get install -y chromium`, or set WHEREABOUTS_CHROMIUM to a Chromium executable"
            case .didNotStart(let message): "chromium did not start: \(message)"
            case .protocolError(let message): "DevTools protocol: \(message)"
            case .timedOut(let message): "timed out: \(message)"
            }
        }
    }

    /// Starts a browser, runs `body` with its page, then kills the browser.
    static func withPage<T: Sendable>(
        startTimeout: Duration = .seconds(60), _ body: (DevToolsPage) async throws -> T
    ) async throws -> T {
        guard let executable = executablePath else { throw Failure.notInstalled }
        announce(executable)
        let profile = FileManager.default.temporaryDirectory
            .appendingPathComponent("whereabouts-chromium-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let logURL = profile.appendingPathComponent("chromium.log")
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil) else {
            throw Failure.didNotStart("cannot create \(logURL.path)")
        }
        let log = try FileHandle(forWritingTo: logURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
            // The WebSocket client announces itself as this origin; DevTools refuses any other.
            "--remote-allow-origins=ws://127.0.0.1",
            "--user-data-dir=\(profile.path)", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-dev-shm-usage", "about:blank",
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let outcome: Result<T, any Error>
        do {
            let port = try await debuggingPort(profile: profile, process: process, timeout: startTimeout)
            let url = try await pageTargetURL(port: port)
            outcome = .success(try await DevToolsPage.connect(to: url, body))
        } catch {
            let tail = (try? String(contentsOf: logURL, encoding: .utf8)).map { String($0.suffix(2_000)) } ?? ""
            outcome = .failure(tail.isEmpty ? error : Failure.protocolError("\(error)\n--- chromium's log (end) ---\n\(tail)"))
        }
        await stop(process)
        try? log.close()
        try? FileManager.default.removeItem(at: profile)
        return try outcome.get()
    }

    /// Terminates the browser (and, by its own shutdown, its helper processes); kills it if it
    /// has not exited after five seconds. It waits without holding a thread of the pool.
    private static func stop(_ process: Process) async {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        await DedicatedThread.waitUntilExit(process)
    }

    /// The port Chromium chose, from the `DevToolsActivePort` file it writes in the profile.
    private static func debuggingPort(profile: URL, process: Process, timeout: Duration) async throws -> Int {
        let file = profile.appendingPathComponent("DevToolsActivePort")
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8),
               let line = text.split(separator: "\n").first, let port = Int(line), port > 0 {
                return port
            }
            guard process.isRunning else {
                throw Failure.didNotStart("it exited with status \(process.terminationStatus)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure.timedOut("chromium wrote no DevToolsActivePort within \(timeout)")
    }

    /// The DevTools WebSocket address of the browser's page.
    private static func pageTargetURL(port: Int) async throws -> String {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/json/list")
        request.method = .GET
        let response = try await HTTPClient.shared.execute(request, timeout: TestDeadline.answerTime)
        let body = try await response.body.collect(upTo: 1 << 20)
        guard case .array(let targets) = try JSONParser.parse(Array(body.readableBytesView)) else {
            throw Failure.protocolError("/json/list is not a JSON array")
        }
        for target in targets {
            if case .string("page")? = target["type"], case .string(let url)? = target["webSocketDebuggerUrl"] {
                return url
            }
        }
        throw Failure.protocolError("/json/list lists no page target")
    }
}

/// One browser page, driven by DevTools commands over a WebSocket.
struct DevToolsPage: Sendable {
    fileprivate let connection: DevToolsConnection

    /// Connects to a page target, runs `body`, then closes the connection.
    fileprivate static func connect<T: Sendable>(to url: String, _ body: (DevToolsPage) async throws -> T) async throws -> T {
        let connection = DevToolsConnection()
        var logger = Logger(label: "whereabouts.tests.devtools")
        logger.logLevel = .error
        let socket = Task {
            do {
                try await WebSocketClient.connect(
                    url: url, configuration: .init(maxFrameSize: 1 << 24), logger: logger
                ) { inbound, outbound, _ in
                    await connection.opened(outbound)
                    for try await message in inbound.messages(maxSize: 1 << 26) {
                        if case .text(let text) = message { await connection.received(text) }
                    }
                }
                await connection.closed(HeadlessChromium.Failure.protocolError("the DevTools WebSocket closed"))
            } catch {
                await connection.closed(error)
            }
        }
        defer { socket.cancel() }
        try await connection.waitUntilOpen()
        let page = DevToolsPage(connection: connection)
        let result = try await body(page)
        await connection.close()
        return result
    }

    /// Sends a DevTools command and returns its result.
    @discardableResult
    func send(_ method: String, _ parameters: [(key: String, value: JSONValue)] = []) async throws -> JSONValue {
        try await connection.send(method, parameters: .object(parameters))
    }

    /// Loads `url` in the page (returns once navigation has started; wait for the page's own
    /// state with ``waitUntil(_:timeout:)``).
    func navigate(to url: String) async throws {
        let result = try await send("Page.navigate", [("url", .string(url))])
        if case .string(let error)? = result["errorText"] {
            throw HeadlessChromium.Failure.protocolError("navigating to \(url): \(error)")
        }
    }

    /// Gives the page a `width` × `height` CSS-pixel viewport (scale 1), for tests of its layout.
    func setViewport(width: Int, height: Int) async throws {
        try await send("Emulation.setDeviceMetricsOverride", [
            ("width", .number(Double(width))), ("height", .number(Double(height))),
            ("deviceScaleFactor", .number(1)), ("mobile", .bool(false)),
        ])
    }

    /// Makes the page's `Date` use `timeZone` (an IANA name such as "UTC").
    func setTimeZone(_ timeZone: String) async throws {
        try await send("Emulation.setTimezoneOverride", [("timezoneId", .string(timeZone))])
    }

    /// Evaluates a JavaScript expression in the page (awaiting it if it is a promise) and
    /// returns its value as JSON; `undefined` is `null`. A thrown exception is an error.
    func evaluate(_ expression: String) async throws -> JSONValue {
        let response = try await send("Runtime.evaluate", [
            ("expression", .string(expression)), ("returnByValue", .bool(true)), ("awaitPromise", .bool(true)),
        ])
        if let details = response["exceptionDetails"] {
            let text = details["exception"]?["description"] ?? details["text"] ?? .null
            throw HeadlessChromium.Failure.protocolError("evaluating `\(expression)` threw \(JSONWriter().string(from: text))")
        }
        return response["result"]?["value"] ?? .null
    }

    /// Polls `expression` until it is truthy in the page; throws after `timeout`.
    func waitUntil(_ expression: String, timeout: Duration = TestDeadline.answer) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let check = "(() => { try { return !!(\(expression)); } catch (e) { return false; } })()"
        while clock.now < deadline {
            if case .bool(true) = try await evaluate(check) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HeadlessChromium.Failure.timedOut("`\(expression)` did not become true within \(timeout)")
    }
}

/// The DevTools WebSocket: numbers commands and hands each response to the command that asked.
private actor DevToolsConnection {
    private var outbound: WebSocketOutboundWriter?
    private var openWaiters: [CheckedContinuation<Void, any Error>] = []
    private var pending: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
    private var early: [Int: Result<JSONValue, any Error>] = [:]
    private var nextId = 1
    private var failure: (any Error)?
    private static let commandTimeout = TestDeadline.answer

    func opened(_ writer: WebSocketOutboundWriter) {
        outbound = writer
        for waiter in openWaiters { waiter.resume() }
        openWaiters = []
    }

    func waitUntilOpen() async throws {
        if outbound != nil { return }
        if let failure { throw failure }
        try await withCheckedThrowingContinuation { openWaiters.append($0) }
    }

    func closed(_ error: any Error) {
        failure = failure ?? error
        outbound = nil
        for waiter in openWaiters { waiter.resume(throwing: error) }
        openWaiters = []
        for (_, continuation) in pending { continuation.resume(throwing: error) }
        pending = [:]
    }

    func close() async {
        try? await outbound?.close(.normalClosure, reason: nil)
    }

    func send(_ method: String, parameters: JSONValue) async throws -> JSONValue {
        if let failure { throw failure }
        guard let outbound else { throw HeadlessChromium.Failure.protocolError("not connected") }
        let id = nextId
        nextId += 1
        let text = JSONWriter().string(from: .object([
            ("id", .number(Double(id))), ("method", .string(method)), ("params", parameters),
        ]))
        try await outbound.write(.text(text))
        if let result = early.removeValue(forKey: id) { return try result.get() }
        let timeout = Task { [weak self] in
            try await Task.sleep(for: Self.commandTimeout)
            await self?.expire(id, method: method)
        }
        defer { timeout.cancel() }
        return try await withCheckedThrowingContinuation { pending[id] = $0 }
    }

    private func expire(_ id: Int, method: String) {
        pending.removeValue(forKey: id)?.resume(throwing: HeadlessChromium.Failure.timedOut(
            "no answer to \(method) within \(Self.commandTimeout)"))
    }

    func received(_ text: String) {
        guard let message = try? JSONParser.parse(text), case .number(let number)? = message["id"] else {
            return   // an event: the tests do not subscribe to any
        }
        let id = Int(number)
        let result: Result<JSONValue, any Error>
        if let error = message["error"] {
            result = .failure(HeadlessChromium.Failure.protocolError(JSONWriter().string(from: error)))
        } else {
            result = .success(message["result"] ?? .null)
        }
        if let continuation = pending.removeValue(forKey: id) {
            continuation.resume(with: result)
        } else {
            early[id] = result
        }
    }
}
