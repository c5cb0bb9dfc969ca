import Foundation

/// A real MQTT broker for tests: Debian's Mosquitto, started in a temporary folder on free
/// loopback ports, with a password file and, when asked, a TLS listener whose certificate a
/// throw-away authority signed (OpenSSL's command line makes both). A test can stop and restart
/// it on the same ports; with `persistence`, it keeps its sessions and queued messages across.
///
/// ```swift
/// let broker = try await MosquittoBroker.start(users: ["gateway": "secret"], tls: true)
/// defer { broker.remove() }
/// let url = broker.url(user: "gateway", password: "secret")   // mqtt://gateway:secret@127.0.0.1:PORT
/// ```
///
/// Tests that need it check ``shouldRun``: without Mosquitto they are skipped, unless `CI` is
/// set, in which case they run and fail with ``Failure/notInstalled``.
public final class MosquittoBroker: @unchecked Sendable {
    /// The broker's folder: configuration, passwords, certificates, persistence, log.
    public let directory: String
    /// The plain listener's port.
    public let port: Int
    /// The TLS listener's port, when it has one.
    public let tlsPort: Int?
    /// The authority that signed the TLS listener's certificate (PEM), when it has one.
    public var caFile: String? { tlsPort == nil ? nil : directory + "/ca.pem" }
    private let lock = NSLock()
    /// The broker's process id while it runs.
    private var pid: pid_t?

    /// Why the broker could not be run.
    public enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case didNotStart(String)

        public var description: String {
            switch self {
            case .notInstalled:
                "mosquitto is not installed (CI is set, so the MQTT tests are required): install Debian's packages "
                    + "with `apt-get install -y mosquitto openssl`, or set WHEREABOUTS_MOSQUITTO to its executable"
            case .didNotStart(let message): "mosquitto did not start: \(message)"
            }
        }
    }

    /// Mosquitto's executable: `$WHEREABOUTS_MOSQUITTO`, else `/usr/sbin/mosquitto` or
    /// `mosquitto` on the `PATH`.
    public static var executablePath: String? {
        let environment = ProcessInfo.processInfo.environment
        var candidates = [environment["WHEREABOUTS_MOSQUITTO"], "/usr/sbin/mosquitto"].compactMap { $0 }
        candidates += (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/mosquitto" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether the MQTT tests should run: Mosquitto is installed, or CI requires it.
    public static var shouldRun: Bool { executablePath != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    private static let announced = NSLock()
    nonisolated(unsafe) private static var hasAnnounced = false
    /// The brokers running now, killed when the test process exits (a test that forgot one
    /// leaves no broker behind it).
    private static let runningLock = NSLock()
    nonisolated(unsafe) private static var runningBrokers: Set<pid_t> = []

    /// Starts a broker. `users` maps user names to passwords (anonymous clients are refused
    /// when there is any); `tls` adds a TLS listener; `persistence` keeps sessions across a
    /// restart.
    public static func start(users: [String: String] = [:], tls: Bool = false, persistence: Bool = false) async throws -> MosquittoBroker {
        guard let executable = executablePath else { throw Failure.notInstalled }
        announced.withLock {
            if !hasAnnounced {
                print("note: the MQTT half of the tests runs against \(executable)")
                atexit {
                    MosquittoBroker.runningLock.withLock {
                        for pid in MosquittoBroker.runningBrokers { kill(pid, SIGKILL) }
                    }
                }
            }
            hasAnnounced = true
        }
        let directory = NSTemporaryDirectory() + "whereabouts-mosquitto-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = try freePort()
        let tlsPort = tls ? try freePort() : nil
        var lines = [
            "per_listener_settings false",
            "listener \(port) 127.0.0.1",
            "persistence \(persistence)",
            "persistence_location \(directory)/",
            "autosave_interval 0",
            "log_dest file \(directory)/mosquitto.log",
            "log_type all",
            "message_size_limit 0",
        ]
        if geteuid() == 0 { lines.append("user root") }
        if users.isEmpty {
            lines.append("allow_anonymous true")
        } else {
            lines.append("allow_anonymous false")
            lines.append("password_file \(directory)/passwords")
            let file = directory + "/passwords"
            guard FileManager.default.createFile(atPath: file, contents: nil) else {
                throw Failure.didNotStart("cannot write \(file)")
            }
            for (user, password) in users.sorted(by: { $0.key < $1.key }) {
                try await DedicatedThread.run { try run("/usr/bin/mosquitto_passwd", ["-b", file, user, password], in: directory) }
            }
        }
        if let tlsPort {
            try await DedicatedThread.run { try makeCertificates(in: directory) }
            lines += [
                "listener \(tlsPort) 127.0.0.1",
                "cafile \(directory)/ca.pem",
                "certfile \(directory)/server.pem",
                "keyfile \(directory)/server.key",
            ]
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        let broker = MosquittoBroker(directory: directory, port: port, tlsPort: tlsPort)
        do {
            try await broker.launch(executable)
        } catch {
            broker.remove()   // a broker that did not start in time is not left running
            throw error
        }
        return broker
    }

    private init(directory: String, port: Int, tlsPort: Int?) {
        self.directory = directory
        self.port = port
        self.tlsPort = tlsPort
    }

    /// `mqtt://[user:password@]127.0.0.1:PORT` (or `mqtts://localhost:TLSPORT` with `tls`).
    public func url(user: String? = nil, password: String? = nil, tls: Bool = false) -> String {
        let credentials = user.map { user in password.map { "\(user):\($0)@" } ?? "\(user)@" } ?? ""
        if tls, let tlsPort { return "mqtts://\(credentials)localhost:\(tlsPort)" }
        return "mqtt://\(credentials)127.0.0.1:\(port)"
    }

    /// Whether the broker's process runs.
    public var isRunning: Bool {
        lock.withLock {
            guard let pid else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                self.pid = nil
                _ = Self.runningLock.withLock { Self.runningBrokers.remove(pid) }
                return false
            }
            return true
        }
    }

    /// Stops the broker gracefully (SIGTERM: it saves its sessions when it persists them), and
    /// waits for it to end (killing it after 10 s).
    public func stop() {
        guard let running = lock.withLock({ () -> pid_t? in defer { pid = nil }; return pid }) else { return }
        defer { _ = Self.runningLock.withLock { Self.runningBrokers.remove(running) } }
        kill(running, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<1_000 {
            if waitpid(running, &status, WNOHANG) == running { return }
            usleep(10_000)
        }
        kill(running, SIGKILL)
        waitpid(running, &status, 0)
    }

    /// Starts the stopped broker again on the same ports.
    public func restart() async throws {
        stop()
        guard let executable = Self.executablePath else { throw Failure.notInstalled }
        do {
            try await launch(executable)
        } catch {
            stop()
            throw error
        }
    }

    /// Stops the broker and removes its folder.
    public func remove() {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The broker's log so far (to explain a failure).
    public var log: String {
        (try? String(contentsOfFile: directory + "/mosquitto.log", encoding: .utf8)) ?? ""
    }

    private func launch(_ executable: String) async throws {
        let started = try Self.spawn(executable, ["-c", directory + "/mosquitto.conf"])
        lock.withLock { pid = started }
        _ = Self.runningLock.withLock { Self.runningBrokers.insert(started) }
        // Ready once its listeners take connections: a start takes milliseconds, but this task
        // may wait long for a thread while a whole test suite loads two cores.
        let deadline = Date().addingTimeInterval(300)
        while Date() < deadline {
            guard isRunning else { throw Failure.didNotStart("it exited: \(log.suffix(2_000))") }
            if Self.accepts(port) && (tlsPort.map(Self.accepts) ?? true) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure.didNotStart("no listener answered within 300 s: \(log.suffix(2_000))")
    }

    /// Starts `executable` with no signal blocked and the default handlers (a child of a test
    /// process would otherwise inherit its blocked SIGTERM and never stop), its output discarded,
    /// and no other descriptor of the test process: a broker that kept a copy of a server's
    /// listening socket, a client's connection or a child's output pipe would hold it open
    /// after the test closed it — a port that stays taken, a peer that never sees the close,
    /// a read that never ends — for as long as the broker runs.
    private static func spawn(_ executable: String, _ arguments: [String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        try closeInheritedDescriptors(in: &actions)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { throw Failure.didNotStart("posix_spawn \(executable): error \(result)") }
        return pid
    }

    /// Adds to `actions` the closing of every descriptor from 3 up: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; looked up at run time, since
    /// Swift's Glibc module does not declare it), else one close per descriptor open now.
    static func closeInheritedDescriptors(in actions: inout posix_spawn_file_actions_t) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            guard closeFrom(&actions, 3) == 0 else { throw Failure.didNotStart("posix_spawn_file_actions_addclosefrom_np failed") }
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 && fcntl(descriptor, F_GETFD) >= 0 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    private static func accepts(_ port: Int) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A port that was free a moment ago (bound to port 0, then closed).
    private static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure.didNotStart("no socket for a free port") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw Failure.didNotStart("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A throw-away authority and a certificate it signed for `localhost` and 127.0.0.1.
    private static func makeCertificates(in directory: String) throws {
        let openssl = "/usr/bin/openssl"
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: directory + "/san.ext", atomically: true, encoding: .utf8)
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(openssl, ["req", "-x509"] + curve + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                                                       "-subj", "/CN=Whereabouts test authority"], in: directory)
        try run(openssl, ["req"] + curve + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"], in: directory)
        try run(openssl, ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                          "-out", "server.pem", "-days", "2", "-extfile", "san.ext"], in: directory)
    }

    private static func run(_ executable: String, _ arguments: [String], in directory: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure.didNotStart("\(executable) \(arguments.joined(separator: " ")): \(String(decoding: message, as: UTF8.self))")
        }
    }
}
