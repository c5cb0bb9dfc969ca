import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Memory stays under a fixed bound whatever the query or upload: a server over a store of a
/// million events answers all of them in one `GET /events` (its cap raised to a million) and
/// exports them as GeoJSON, then takes a 128 MiB attachment, and its peak memory grows by less
/// than ``bound``.
///
/// The answers run in a child process (this test binary, filtered to the child test) so that
/// its memory is the server's and its client's alone, not that of tests running beside it. The
/// figure is the process's anonymous resident memory (`RssAnon`: what it allocated), sampled
/// every 10 ms: the store's file, which SQLite maps into memory (up to 256 MiB), is page cache
/// the kernel can drop, not memory the answer holds.
@Suite("Answer memory")
struct AnswerMemoryTests {
    static let childVariable = "WHEREABOUTS_MEMORY_CHILD"
    /// The most the child's peak memory may grow while it answers: pages of events are a few
    /// hundred kilobytes; a million events held at once are more than a gigabyte.
    static let bound = 100 << 20
    static let eventCount = 1_000_000

    @Test(.enabled(if: FileManager.default.isReadableFile(atPath: "/proc/self/status"),
                   "needs /proc/self/status (Linux) to read the child's peak memory"),
          .timeLimit(.minutes(20)))
    func aMillionEventsInBoundedMemory() async throws {
        let child = try ChildTestProcess(filter: "childAnswersAMillionEvents", environment: [Self.childVariable: "1"])
        let text = await child.waitForOutput()
        var figures: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("memory-test ") {
            let parts = line.split(separator: " ")
            if parts.count == 3, let value = Int(parts[2]) { figures[String(parts[1])] = value }
        }
        try #require(child.process.terminationStatus == 0, "the child failed:\n\(text.suffix(3_000))")
        print("note: memory test figures (bytes, seconds, ms): \(figures.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
        #expect(figures["events"] == Self.eventCount, "\(figures)")
        #expect(figures["export-points"] == Self.eventCount, "\(figures)")
        let growth = try #require(figures["peak-growth"], "\(text.suffix(3_000))")
        #expect(growth < Self.bound, "peak memory grew by \(growth >> 20) MiB answering \(Self.eventCount) events")
        #expect(figures["upload-status"] == 201, "\(figures)")
        let uploadGrowth = try #require(figures["upload-peak-growth"], "\(text.suffix(3_000))")
        #expect(uploadGrowth < Self.bound, "peak memory grew by \(uploadGrowth >> 20) MiB taking a \(Self.uploadSize >> 20) MiB upload")
        // Retention: the million purged (the upload's event, made now, stays), in bounded
        // memory, tombstones left, /health answering throughout.
        #expect(figures["purged"] == Self.eventCount, "\(figures)")
        #expect(figures["left"] == 1 && figures["tombstones"] == 10, "\(figures)")
        let purgeGrowth = try #require(figures["purge-peak-growth"], "\(text.suffix(3_000))")
        #expect(purgeGrowth < Self.bound, "peak memory grew by \(purgeGrowth >> 20) MiB purging \(Self.eventCount) events")
        #expect(figures["health-failures"] == 0 && (figures["health-answers"] ?? 0) > 0, "\(figures)")
    }

    /// The attachment uploaded: held whole, even once, it alone passes ``bound``.
    static let uploadSize = 128 << 20

    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil,
                   "the child half of the memory test: runs only in the process that test starts and measures"))
    func childAnswersAMillionEvents() async throws {
        var configuration = ServerConfiguration()
        configuration.rateLimit = nil
        configuration.answerLimits = .init(eventsPerAnswer: Self.eventCount)
        configuration.bodyLimits = .init(json: 1 << 20, attachments: Self.uploadSize + (1 << 20))
        // This test measures memory, not speed: the upload's body may take as long as a slow
        // machine's debug build needs.
        configuration.requestTimeouts = .init(body: .seconds(1_200))
        try await TestServer.run(.sqlite, configuration: configuration) { server in
            let (user, token) = try await server.addUser("alice")
            let started = Date()
            let batch = 10_000
            for start in stride(from: 0, to: Self.eventCount, by: batch) {
                let writes = (start..<start + batch).map { index in
                    EventWrite(event: EventStoreContractTests.point("e\(index)", at: Double(index)))
                }
                _ = try await server.store.addEvents(writes, for: user)
            }
            let base = server.baseURL
            let filled = Date()
            print("memory-test fill-seconds \(Int(filled.timeIntervalSince(started)))")
            let baseline = try Self.statusField("RssAnon")
            let peak = LockedValue(baseline)
            let sampler = Task {
                while !Task.isCancelled {
                    if let now = try? Self.statusField("RssAnon") { peak.withValue { $0 = max($0, now) } }
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
            let events = try await Self.count(
                #"{"id":"#, in: base + "/events?fromTime=0&toTime=2000000000&sortAscending=true&limit=1000000", token: token,
                expectingEnd: #""meta":"#)
            print("memory-test events-peak-growth \(max(0, peak.value - baseline))")
            print("memory-test events-seconds \(Int(Date().timeIntervalSince(filled)))")
            let points = try await Self.count(
                #""kind":"position""#, in: base + "/events?format=geojson&fromTime=0&toTime=2000000000", token: token,
                expectingEnd: "]}\n")
            sampler.cancel()
            print("memory-test events \(events)")
            print("memory-test export-points \(points)")
            print("memory-test peak-growth \(max(0, peak.value - baseline))")

            // An upload, sent as it is made (the client holds a chunk at a time too).
            let uploadBaseline = try Self.statusField("RssAnon")
            peak.withValue { $0 = uploadBaseline }
            let uploadSampler = Task {
                while !Task.isCancelled {
                    if let now = try? Self.statusField("RssAnon") { peak.withValue { $0 = max($0, now) } }
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
            let status = try await Self.upload(bytes: Self.uploadSize, to: base + "/events", token: token)
            uploadSampler.cancel()
            print("memory-test upload-status \(status)")
            print("memory-test upload-peak-growth \(max(0, peak.value - uploadBaseline))")

            // The million events past a retention of a minute, purged while /health is asked
            // ten times a second.
            let purgeBaseline = try Self.statusField("RssAnon")
            peak.withValue { $0 = purgeBaseline }
            let purgeSampler = Task {
                while !Task.isCancelled {
                    if let now = try? Self.statusField("RssAnon") { peak.withValue { $0 = max($0, now) } }
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
            let health = Task { () -> (answers: Int, failures: Int, worst: Duration) in
                var answers = 0, failures = 0, worst = Duration.zero
                while !Task.isCancelled {
                    let asked = ContinuousClock.now
                    var request = HTTPClientRequest(url: base + "/health")
                    request.method = .GET
                    if let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(30)), response.status == .ok {
                        _ = try? await response.body.collect(upTo: 1 << 16)
                        answers += 1
                    } else if !Task.isCancelled {
                        failures += 1
                    }
                    worst = max(worst, ContinuousClock.now - asked)
                    try? await Task.sleep(for: .milliseconds(100))
                }
                return (answers, failures, worst)
            }
            let purgeStarted = Date()
            let purged = try await RetentionPurge(store: server.store, defaultKeep: 60, batchSize: 1_000).run(users: [user])
            print("memory-test purge-seconds \(Int(Date().timeIntervalSince(purgeStarted)))")
            purgeSampler.cancel()
            health.cancel()
            let asked = await health.value
            print("memory-test purged \(purged.events)")
            print("memory-test purge-peak-growth \(max(0, peak.value - purgeBaseline))")
            print("memory-test health-answers \(asked.answers)")
            print("memory-test health-failures \(asked.failures)")
            print("memory-test health-worst-ms \(Int(asked.worst.inSeconds * 1000))")
            print("memory-test left \(try await server.store.eventPage(matching: EventQuery(limit: 10, state: .all), for: user).events.count)")
            print("memory-test tombstones \(try await server.store.eventDeletions(of: user, since: 0, after: nil, limit: 10).count)")
        }
    }

    /// Posts an event with one attachment of `bytes` bytes, made chunk by chunk as it is sent;
    /// returns the answer's status.
    private static func upload(bytes: Int, to url: String, token: String) async throws -> Int {
        let boundary = "memory-boundary"
        let head = ByteBuffer(string: "--\(boundary)\r\nContent-Disposition: form-data; name=\"event\"\r\n\r\n"
            + #"{"streamIds":["position"],"type":"picture/attached"}"#
            + "\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n\r\n")
        let tail = ByteBuffer(string: "\r\n--\(boundary)--\r\n")
        let chunk = ByteBuffer(repeating: 0x5A, count: 1 << 16)
        let chunks = bytes / chunk.readableBytes
        let parts = AsyncStream<ByteBuffer> { continuation in
            continuation.yield(head)
            for _ in 0..<chunks { continuation.yield(chunk) }
            continuation.yield(tail)
            continuation.finish()
        }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Authorization", value: token)
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        request.body = .stream(parts, length: .known(Int64(head.readableBytes + chunks * chunk.readableBytes + tail.readableBytes)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    /// Reads the answer at `url` as it comes, holding only a few bytes of it, and counts the
    /// occurrences of `marker`; the answer must end with a text containing `end`.
    private static func count(_ marker: String, in url: String, token: String, expectingEnd end: String) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: token)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(1_200))
        try #require(response.status == .ok, "\(url): \(response.status)")
        let needle = Array(marker.utf8)
        var pending: [UInt8] = []
        var tail: [UInt8] = []
        var count = 0
        for try await buffer in response.body {
            let bytes = pending + Array(buffer.readableBytesView)
            var index = 0
            while index + needle.count <= bytes.count {
                if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) {
                    count += 1
                    index += needle.count
                } else {
                    index += 1
                }
            }
            // What could be the start of a marker cut by the buffer's end.
            pending = Array(bytes[index...])
            tail = Array((tail + buffer.readableBytesView).suffix(256))
        }
        let ending = String(decoding: tail, as: UTF8.self)
        #expect(ending.contains(end), "\(url) ended with \(ending)")
        return count
    }

    /// A `kB` field of `/proc/self/status`, in bytes.
    private static func statusField(_ name: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { throw CancellationError() }
        return kilobytes * 1024
    }
}
