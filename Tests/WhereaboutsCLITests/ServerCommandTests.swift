import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import WhereaboutsServerTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `whereabouts users`, `serve` and `export` as a user runs them: the real executable, a real
/// port, a real data folder — and an acknowledged event surviving `kill -9`.
@Suite("Server commands")
struct ServerCommandTests {
    /// A running `whereabouts serve`.
    final class ServerProcess {
        private(set) var process = Process()
        /// The port it listens on; another one when the one first chosen was taken before the
        /// server bound it (see ``waitUntilReady()``).
        private(set) var port: Int
        private var errorPipe = Pipe()
        private let store: [String], arguments: [String]
        /// Whether the port was picked here (a free one, which another process may take first).
        private let picksPort: Bool

        convenience init(dataDir: URL, port: Int? = nil, arguments: [String] = []) throws {
            try self.init(store: ["--data-dir", dataDir.path], port: port, arguments: arguments)
        }

        /// A server of the store `store` names (`--data-dir D` or `--database URL`).
        init(store: [String], port: Int? = nil, arguments: [String] = []) throws {
            self.port = try port ?? Self.freePort()
            self.store = store
            self.arguments = arguments
            picksPort = port == nil
            try start()
        }

        private func start() throws {
            process = Process()
            errorPipe = Pipe()
            process.executableURL = CommandRunner.productsDirectory.appendingPathComponent("whereabouts")
            process.arguments = ["serve"] + store + ["--port", String(port), "--log-level", "warning"] + arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errorPipe
            try process.run()
        }

        /// Waits until `/health` answers; throws at once when the server has ended (with what it
        /// wrote), or after 300 s (a loaded machine starts slowly). Each try is bounded: a client
        /// may keep trying a refused connection until its request's deadline. A port picked here
        /// that another process took between the picking and the server's binding is picked
        /// again (up to three times): read ``port`` after this.
        func waitUntilReady() async throws {
            let deadline = ContinuousClock.now + .seconds(300)
            var picks = 0
            while ContinuousClock.now < deadline {
                guard process.isRunning else {
                    let written = errors
                    if picksPort, picks < 3, written.contains("is in use by another process") {
                        picks += 1
                        port = try Self.freePort()
                        try start()
                        continue
                    }
                    throw NotReady(errors: written)
                }
                if let answer = try? await ServerCommandTests.send("GET", "http://127.0.0.1:\(port)/health", timeout: .seconds(2)),
                   answer.status == 200 { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw NotReady(errors: "(still running)")
        }

        /// A server that ended, or did not answer `/health` in time, with what it wrote.
        struct NotReady: Error, CustomStringConvertible {
            let errors: String
            var description: String { "the server did not answer /health: \(errors.suffix(2_000))" }
        }

        /// What the server wrote on standard error, once it has ended.
        var errors: String {
            String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }

        /// Sends `signal` and waits for the process to end; returns its status.
        func stop(with signal: Int32) -> Int32 {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            return process.terminationStatus
        }

        /// A port nobody listens on now.
        static func freePort() throws -> Int {
            let (fd, port) = try boundSocket(listening: false)
            close(fd)
            return port
        }

        /// A TCP socket bound to a free port of 127.0.0.1 (listening when asked), and its port;
        /// the caller closes it.
        static func boundSocket(listening: Bool) throws -> (fd: Int32, port: Int) {
            #if canImport(Glibc)
            let streamType = Int32(SOCK_STREAM.rawValue)
            #else
            let streamType = SOCK_STREAM
            #endif
            let fd = socket(AF_INET, streamType, 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && (!listening || listen(fd, 1) == 0) && getsockname(fd, pointer, &length) == 0
                }
            }
            guard bound else {
                close(fd)
                throw CocoaError(.fileWriteUnknown)
            }
            return (fd, Int(UInt16(bigEndian: address.sin_port)))
        }
    }

    static func send(_ method: String, _ url: String, token: String? = nil, body: String? = nil,
                     contentType: String = "application/json", timeout: TimeAmount = .seconds(10)) async throws -> (status: Int, text: String) {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        if let token { request.headers.add(name: "Authorization", value: token) }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let collected = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: collected))
    }

    @Test("users add prints a token once; a second add of the same name fails clearly")
    func usersAdd() async throws {
        let dataDir = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dataDir) }
        let added = try await CommandRunner.run(["users", "add", "alice", "--data-dir", dataDir.path])
        #expect(added.status == 0, "\(added.standardError)")
        let token = added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count == 32)
        #expect(token.allSatisfy { $0.isLowercase || $0.isNumber })
        let again = try await CommandRunner.run(["users", "add", "alice", "--data-dir", dataDir.path])
        #expect(again.status != 0)
        #expect(again.standardError.contains("already exists"))
        let badName = try await CommandRunner.run(["users", "add", "Alice Smith", "--data-dir", dataDir.path])
        #expect(badName.standardError.contains("cannot be a user name"))
        let noStream = try await CommandRunner.run(["users", "token", "alice", "--stream", "nowhere", "--data-dir", dataDir.path])
        #expect(noStream.status != 0)
        #expect(noStream.standardError.contains("no stream \"nowhere\""))
        let noUser = try await CommandRunner.run(["users", "token", "bob", "--data-dir", dataDir.path])
        #expect(noUser.standardError.contains("users add bob"))
        let listed = try await CommandRunner.run(["users", "list", "--data-dir", dataDir.path])
        #expect(listed.standardOutput == "alice\n")
    }

    @Test("A port in use is named, with what to do")
    func portInUse() async throws {
        let dataDir = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dataDir) }
        // Hold a port with a listening socket of our own.
        let (fd, port) = try ServerProcess.boundSocket(listening: true)
        defer { close(fd) }
        let run = try await CommandRunner.run(["serve", "--port", String(port), "--data-dir", dataDir.path])
        #expect(run.status != 0)
        #expect(run.standardError.contains("Port \(port) on 127.0.0.1 is in use"), "\(run.standardError)")
    }

    @Test("An unreachable PostgreSQL makes users add fail, saying so, instead of hanging")
    func unreachableDatabase() async throws {
        let run = try await CommandRunner.run(["users", "add", "zed", "--database", "postgres://nobody:secret@127.0.0.1:9/nowhere"],
                                        environment: ["WHEREABOUTS_DATABASE_TIMEOUT": "2"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("did not answer within 2 s"), "\(run.standardError)")
        #expect(!run.standardError.contains("secret"))
        #expect(run.duration < .seconds(30), "users add took \(run.duration)")
    }

    @Test("users token refuses a level it does not know, listing the levels")
    func unknownLevel() {
        let badLevel = InProcessCommand.parse(["users", "token", "alice", "--level", "owner", "--data-dir", "data"])
        #expect(badLevel.status == 64)
        #expect(badLevel.standardError.contains("'read', 'contribute' or 'manage'"))
    }

    @Test("serve refuses plain HTTP beyond loopback unless told, and TLS files that do not go together")
    func servePlainHTTPBeyondLoopback() {
        let open = InProcessCommand.parse(["serve", "--host", "0.0.0.0", "--data-dir", "data"])
        #expect(open.status == 64)
        #expect(open.standardError.contains("in clear") && open.standardError.contains("--tls-cert"), "\(open.standardError)")
        let half = InProcessCommand.parse(["serve", "--tls-cert", "cert.pem", "--data-dir", "data"])
        #expect(half.status == 64 && half.standardError.contains("--tls-cert and --tls-key together"))
        let missing = InProcessCommand.parse(["serve", "--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.pem",
                                              "--data-dir", "data"])
        #expect(missing.status == 64 && missing.standardError.contains("no such file"))
    }

    /// `serve --mqtt` needs the user its tags' events go to and the venue of the nodes; the
    /// broker's options go with it.
    @Test("serve refuses --mqtt without --mqtt-user or --venue, and the broker's options without --mqtt")
    func serveMQTTOptionsGoTogether() {
        let url = "mqtt://ha:pw@127.0.0.1:1883"
        let noUser = InProcessCommand.parse(["serve", "--data-dir", "data", "--venue", "venue.json", "--mqtt", url])
        #expect(noUser.status == 64 && noUser.standardError.contains("--mqtt needs --mqtt-user"))
        let noVenue = InProcessCommand.parse(["serve", "--data-dir", "data", "--mqtt", url, "--mqtt-user", "alice"])
        #expect(noVenue.status == 64 && noVenue.standardError.contains("--mqtt needs --venue"))
        let noBroker = InProcessCommand.parse(["serve", "--data-dir", "data", "--venue", "venue.json", "--shard", "1/2"])
        #expect(noBroker.status == 64 && noBroker.standardError.contains("go with --mqtt"))
    }

    @Test("users token --expires, users list --tokens and users revoke, by token and by label")
    func tokenLifetimes() async throws {
        let dataDir = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dataDir) }
        let store = ["--data-dir", dataDir.path]
        let personal = try await CommandRunner.run(["users", "add", "alice"] + store).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let phone = try await CommandRunner.run(["users", "token", "alice", "--name", "phone", "--expires", "30d"] + store)
        #expect(phone.status == 0, "\(phone.standardError)")
        let listed = try await CommandRunner.run(["users", "list", "--tokens"] + store).standardOutput
        let lines = listed.split(separator: "\n").map(String.init)
        #expect(lines.first == "alice")
        #expect(lines.contains { $0.contains("personal") && $0.contains("*:manage") && $0.contains("never expires") })
        #expect(lines.contains { $0.contains("phone") && $0.contains("*:contribute") && $0.contains("expires 20") })
        #expect(!listed.contains(personal))

        let byLabel = try await CommandRunner.run(["users", "revoke", "--user", "alice", "--name", "phone"] + store)
        #expect(byLabel.status == 0 && byLabel.standardError.contains("Revoked 1 token of alice"), "\(byLabel.standardError)")
        let again = try await CommandRunner.run(["users", "revoke", "--user", "alice", "--name", "phone"] + store)
        #expect(again.status != 0 && again.standardError.contains("no token labelled \"phone\""))
        let byToken = try await CommandRunner.run(["users", "revoke", personal] + store)
        #expect(byToken.status == 0, "\(byToken.standardError)")
        let twice = try await CommandRunner.run(["users", "revoke", personal] + store)
        #expect(twice.status != 0 && twice.standardError.contains("revoked already"))
        #expect(try await CommandRunner.run(["users", "list", "--tokens"] + store).standardOutput == "alice\n")
    }

    @Test("users token refuses a lifetime that is not one", arguments: ["0", "-3d", "soon", "12y"])
    func badLifetime(expires: String) {
        let refused = InProcessCommand.parse(["users", "token", "alice", "--expires", expires, "--data-dir", "data"])
        #expect(refused.status == 64 && refused.standardError.contains("--expires"), "\(refused.standardError)")
    }

    @Test("users revoke takes a token, or --user and --name, not both")
    func revokeByTokenOrByLabel() {
        let both = InProcessCommand.parse(["users", "revoke", "0123456789abcdef0123456789abcdef", "--user", "alice", "--name", "x",
                                           "--data-dir", "data"])
        #expect(both.status == 64 && both.standardError.contains("not both"))
    }

    @Test("export, users token and users list refuse a folder without a store, and create nothing there")
    func mistypedDataDir() async throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let typo = folder.appendingPathComponent("whereabouts-dta")
        for arguments in [["export", "--user", "alice"], ["users", "token", "alice"], ["users", "list"]] {
            let run = try await CommandRunner.run(arguments + ["--data-dir", typo.path])
            #expect(run.status != 0)
            #expect(run.standardError.contains("There is no Whereabouts store in \(typo.path)"), "\(run.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: typo.path))
    }

    @Test("Acknowledged events survive kill -9; SIGTERM stops the server gracefully; export writes the track")
    func serveSurvivesKill() async throws {
        let dataDir = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dataDir) }
        let added = try await CommandRunner.run(["users", "add", "walker", "--data-dir", dataDir.path])
        let token = added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)

        let server = try ServerProcess(dataDir: dataDir)
        try await server.waitUntilReady()
        for index in 0..<40 {
            let body = #"{"streamIds":["position"],"time":\#(1_700_000_000 + index),"type":"position/wgs84","content":{"latitude":46.5,"longitude":\#(6.0 + Double(index) / 1000)}}"#
            let answer = try await Self.send("POST", "http://127.0.0.1:\(server.port)/events", token: token, body: body)
            #expect(answer.status == 201)
        }
        _ = server.stop(with: SIGKILL)

        let exported = try await CommandRunner.run([
            "export", "--user", "walker", "--data-dir", dataDir.path, "--from", "1699999999", "--to", "1700000100",
            "--format", "csv",
        ])
        #expect(exported.status == 0, "\(exported.standardError)")
        let lines = exported.standardOutput.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 41)  // header + every acknowledged event
        #expect(lines.last?.contains(",46.5,6.039,") == true)

        let restarted = try ServerProcess(dataDir: dataDir)
        try await restarted.waitUntilReady()
        let listed = try await Self.send(
            "GET", "http://127.0.0.1:\(restarted.port)/events?fromTime=0&toTime=1800000000&limit=1000", token: token)
        #expect(listed.text.components(separatedBy: "\"position/wgs84\"").count == 41)

        // SIGTERM while a request is half-sent: the server waits for it, answers it, stores the
        // event, then exits 0.
        let busy = try RawHTTPConnection(port: restarted.port)
        let last = #"{"id":"last","streamIds":["position"],"time":1700200000,"type":"position/wgs84","content":{"latitude":46.5,"longitude":6.5}}"#
        busy.send("POST /events HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(token)\r\nContent-Type: application/json\r\n"
                  + "Content-Length: \(last.utf8.count)\r\n\r\n" + last.prefix(20))
        #expect(await busy.receive(for: 0.5).closed == false)
        kill(restarted.process.processIdentifier, SIGTERM)
        #expect(await busy.receive(for: 1).closed == false)
        #expect(restarted.process.isRunning, "the server left before answering the request in progress")
        busy.send(String(last.dropFirst(20)))
        let answer = await busy.receive(for: 20, until: "serial")
        #expect(answer.text.hasPrefix("HTTP/1.1 201"), "\(answer.text)")
        for _ in 0..<200 where restarted.process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        restarted.process.waitUntilExit()
        #expect(restarted.process.terminationStatus == 0)
        let stored = try await CommandRunner.run([
            "export", "--user", "walker", "--data-dir", dataDir.path, "--from", "1700199999", "--to", "1700200001", "--format", "csv",
        ])
        #expect(stored.standardOutput.contains(",last,"), "\(stored.standardOutput)")

        let gpxFile = dataDir.appendingPathComponent("track.gpx")
        let gpx = try await CommandRunner.run([
            "export", "--user", "walker", "--data-dir", dataDir.path, "--from", "2023-11-14", "--to", "2023-11-15",
            "--format", "gpx", "-o", gpxFile.path,
        ])
        #expect(gpx.status == 0, "\(gpx.standardError)")
        #expect(gpx.standardError.contains("Wrote 40 positions"))
        let text = try String(contentsOf: gpxFile, encoding: .utf8)
        #expect(text.components(separatedBy: "<trkpt").count == 41)
        // The format follows the file's name (one at odds with it is refused: `exportFormatAtOddsWithTheFile`).
        let geojsonFile = dataDir.appendingPathComponent("track.geojson")
        let named = try await CommandRunner.run(["export", "--user", "walker", "--data-dir", dataDir.path, "--from", "2023-11-14",
                                           "--to", "2023-11-15", "-o", geojsonFile.path])
        #expect(named.status == 0, "\(named.standardError)")
        #expect(try String(contentsOf: geojsonFile, encoding: .utf8).hasPrefix(#"{"type":"FeatureCollection""#))
        // An empty range says where the data is: the latest event, 1700200000, is of 2023-11-17.
        let empty = try await CommandRunner.run(["export", "--user", "walker", "--data-dir", dataDir.path])
        #expect(empty.status == 0)
        #expect(empty.standardError.contains("Nothing in the last 24 hours; the latest is from 2023-11-17T05:46:40Z: "
                                             + "try --from 2023-11-17 --to 2023-11-18."), "\(empty.standardError)")
        let unknown = try await CommandRunner.run(["export", "--user", "nobody", "--data-dir", dataDir.path])
        #expect(unknown.standardError.contains("no user \"nobody\""))
    }

    @Test("export refuses a --format at odds with the output file's name")
    func exportFormatAtOddsWithTheFile() {
        let mismatch = InProcessCommand.parse(["export", "--user", "walker", "--data-dir", "data", "--format", "csv", "-o", "track.gpx"])
        #expect(mismatch.status == 64)
        #expect(mismatch.standardError.contains("--format asks for CSV, but track.gpx is named as GPX"), "\(mismatch.standardError)")
    }

    @Test("A full disk: writes fail with a 503 and an error id, nothing acknowledged is lost, writing resumes once there is room",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"),
                   "needs /usr/bin/prlimit (util-linux) to fill the disk of a running server"))
    func fullDisk() async throws {
        let dataDir = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dataDir) }
        let added = try await CommandRunner.run(["users", "add", "filler", "--data-dir", dataDir.path])
        let token = added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        // The server must not count on being started with SIGXFSZ ignored (as some launchers
        // do, and children inherit): it is started here with the default, which kills. This
        // process has no file-size limit, so the signal can never reach it.
        signal(SIGXFSZ, SIG_DFL)
        let server = try ServerProcess(dataDir: dataDir)
        defer { _ = server.stop(with: SIGKILL) }
        try await server.waitUntilReady()
        let base = "http://127.0.0.1:\(server.port)"
        func position(_ index: Int) -> String {
            #"{"id":"p\#(index)","streamIds":["position"],"time":\#(1_700_000_000 + index),"type":"position/wgs84","content":{"latitude":46.5,"longitude":6.5}}"#
        }
        /// Sets the server's soft limit on a file's size (the hard one stays, so it can be raised again).
        func limitFileSize(_ value: String) async throws {
            let limit = try await CommandRunner.runExecutable("/usr/bin/prlimit", ["--pid", String(server.process.processIdentifier), "--fsize=\(value):"])
            #expect(limit.status == 0, "\(limit.standardError)")
        }
        var acknowledged: Set<Int> = []
        for index in 0..<20 where try await Self.send("POST", base + "/events", token: token, body: position(index)).status == 201 {
            acknowledged.insert(index)
        }
        #expect(acknowledged.count == 20)

        // The disk fills up: no file of the server may grow past its size now (plus a little).
        let files = try FileManager.default.subpathsOfDirectory(atPath: dataDir.path).map { dataDir.path + "/" + $0 }
        let largest = files.compactMap { (try? FileManager.default.attributesOfItem(atPath: $0))?[.size] as? Int }.max() ?? 0
        try await limitFileSize(String(largest + 65_536))
        var refused: (status: Int, text: String)?
        for index in 20..<2_000 {
            let answer = try await Self.send("POST", base + "/events", token: token, body: position(index))
            if answer.status == 201 { acknowledged.insert(index); continue }
            refused = answer
            break
        }
        let full = try #require(refused, "the store never reported the full disk")
        #expect(full.status == 503, "\(full.text)")
        #expect(full.text.contains(#""id":"unexpected-error""#) && full.text.contains("(error "), "\(full.text)")
        #expect(!full.text.lowercased().contains("full") && !full.text.contains("sqlite"), "internals reached the client: \(full.text)")
        // An upload larger than the room left: refused, its spooled part removed.
        let boundary = "full-disk"
        let upload = "--\(boundary)\r\nContent-Disposition: form-data; name=\"event\"\r\n\r\n"
            + #"{"streamIds":["position"],"type":"picture/attached"}"#
            + "\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n\r\n"
            + String(repeating: "z", count: largest + 200_000) + "\r\n--\(boundary)--\r\n"
        let uploaded = try await Self.send("POST", base + "/events", token: token, body: upload,
                                           contentType: "multipart/form-data; boundary=\(boundary)")
        #expect(uploaded.status == 503, "\(uploaded.text.prefix(300))")
        #expect(try await Self.send("GET", base + "/health").status == 200, "the server must stay up")

        // Room again: writes resume, and every acknowledged event is there.
        try await limitFileSize("unlimited")
        let resumed = try await Self.send("POST", base + "/events", token: token, body: position(5_000))
        #expect(resumed.status == 201, "\(resumed.text)")
        acknowledged.insert(5_000)
        let listed = try await Self.send("GET", base + "/events?fromTime=0&toTime=1800000000&limit=10000", token: token)
        let stored = Set(acknowledged.filter { listed.text.contains(#""id":"p\#($0)""#) })
        #expect(stored == acknowledged, "lost: \(acknowledged.subtracting(stored).sorted())")
        let spool = dataDir.path + "/attachments/.incoming"
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).isEmpty)
    }
}
