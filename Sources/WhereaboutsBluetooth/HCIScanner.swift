import Foundation
import Whereabouts

/// Live beacon scanning on Linux over a raw HCI socket (no daemon needed): an `AsyncSequence` of
/// `Scan`s, one per advertising report event that held a wanted beacon.
///
/// ```swift
/// let scanner = HCIScanner(configuration: .init(adapter: "hci0", scanType: .active))
/// for try await scan in scanner {
///     for reading in scan.readings { print(scan.time, reading.beacon, reading.rssi) }
/// }
/// ```
///
/// Iterating opens the adapter, sets the scan parameters (extended scanning on controllers that
/// support it, legacy scanning otherwise), turns duplicate filtering off and enables scanning.
/// When the iteration ends — the task is cancelled, the loop breaks, the
/// ``Configuration/duration`` is over, or (with
/// ``Configuration/stopsOnSignals``) the process gets SIGINT or SIGTERM — scanning is disabled
/// again and the socket closed; a signal ends the sequence normally, so the consumer can finish
/// its work. Failures are ``BluetoothError``s that say what to do.
///
/// ``pauseScanning()`` turns the adapter's LE scanning off (the sequence stays open and waits)
/// until ``resumeScanning()`` turns it on again (`PausableScanning`: NaviBeacon's
/// `pauseScanning` saves the radio with it).
///
/// The process needs `CAP_NET_RAW` and `CAP_NET_ADMIN` (or root). Another program scanning at
/// the same time (such as `bluetoothctl scan on`) makes the adapter busy.
public struct HCIScanner: PacedScans, PausableScanning {
    /// What to scan and how.
    public struct Configuration: Sendable {
        /// The adapter, `hci0` by default.
        public var adapter: String
        /// Passive (listen only, the default) or active (ask for scan responses).
        public var scanType: HCICommand.ScanType
        /// The scan interval and window (100 ms each by default: continuous).
        public var timing: ScanTiming
        /// Whether to use extended scanning when the controller supports it (Bluetooth 5).
        public var prefersExtendedScanning: Bool
        /// Which reports become readings (UUID filter, report layout, the scans' device).
        public var decoder: SightingDecoder
        /// Whether SIGINT and SIGTERM end the scan cleanly (instead of killing the process) while
        /// it runs.
        public var stopsOnSignals: Bool
        /// How long to scan, in seconds; `nil` (the default) scans until stopped.
        public var duration: Double?

        /// Creates a configuration.
        public init(adapter: String = "hci0", scanType: HCICommand.ScanType = .passive, timing: ScanTiming = ScanTiming(),
                    prefersExtendedScanning: Bool = true, decoder: SightingDecoder = SightingDecoder(),
                    stopsOnSignals: Bool = true, duration: Double? = nil) {
            self.adapter = adapter
            self.scanType = scanType
            self.timing = timing
            self.prefersExtendedScanning = prefersExtendedScanning
            self.decoder = decoder
            self.stopsOnSignals = stopsOnSignals
            self.duration = duration
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// Whether scanning is paused, shared with the scanning thread (and by copies of the scanner).
    private let paused = StopFlag()
    private let transportFactory: @Sendable (String) throws(BluetoothError) -> any HCITransport

    /// A scanner of the adapter the configuration names.
    /// A live scan: time passes on the wall clock between its scans (`ScanPace/live(_:)`).
    public var pace: ScanPace { .live(ContinuousClock()) }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        transportFactory = { adapter throws(BluetoothError) in try HCISocket.open(adapter: adapter) }
    }

    /// A scanner over another transport (tests script a controller with one).
    init(configuration: Configuration, transport: @escaping @Sendable (String) throws(BluetoothError) -> any HCITransport) {
        self.configuration = configuration
        transportFactory = transport
    }

    /// Turns the adapter's scanning off until ``resumeScanning()``; the scans wait meanwhile.
    public func pauseScanning() {
        paused.set(true)
    }

    /// Turns the adapter's scanning on again.
    public func resumeScanning() {
        paused.set(false)
    }

    /// Opens the adapter and closes it again: throws the ``BluetoothError`` scanning would meet
    /// first (no adapter, down, blocked), so a command can fail before it starts its work.
    public func checkAdapter() throws(BluetoothError) {
        let transport = try transportFactory(configuration.adapter)
        transport.close()
    }

    /// The sightings, one array per advertising report event (with the advertisers' addresses),
    /// instead of scans.
    public var sightings: AsyncThrowingStream<[BeaconSighting], any Error> {
        let configuration = configuration, factory = transportFactory, paused = paused
        return AsyncThrowingStream { continuation in
            let stop = StopFlag()
            continuation.onTermination = { _ in stop.set() }
            let thread = Thread {
                let signals = configuration.stopsOnSignals ? SignalStop(stop) : nil
                defer { signals?.cancel() }
                // The socket is closed (and scanning disabled) before the stream ends.
                func scan() throws(BluetoothError) {
                    let transport = try factory(configuration.adapter)
                    defer { transport.close() }
                    try HCIScanLoop(transport: transport, configuration: configuration, stop: stop, paused: paused).run { sightings in
                        continuation.yield(sightings)
                    }
                }
                do throws(BluetoothError) {
                    try scan()
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            thread.name = "whereabouts.hci.\(configuration.adapter)"
            thread.start()
        }
    }

    /// The type of the scans.
    public typealias Element = Scan

    /// Starts scanning; see the type's discussion.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: sightings.makeAsyncIterator(), decoder: configuration.decoder)
    }

    /// Iterates the scans.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<[BeaconSighting], any Error>.AsyncIterator
        let decoder: SightingDecoder

        /// The next scan, or `nil` once scanning stopped.
        public mutating func next() async throws -> Scan? {
            while let sightings = try await base.next() {
                if let first = sightings.first, let scan = decoder.scan(from: sightings, at: first.time) { return scan }
            }
            return nil
        }
    }
}

/// A way to exchange H4 packets with a controller: the Linux HCI socket, or a script in tests.
protocol HCITransport: AnyObject {
    /// Sends one H4 packet (type byte first).
    func send(_ packet: [UInt8]) throws(BluetoothError)
    /// The next H4 packet, or `nil` when none came within `timeout` seconds.
    func receive(timeout: Double) throws(BluetoothError) -> [UInt8]?
    /// Releases the transport.
    func close()
}

/// A flag one thread sets and another polls.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set(_ newValue: Bool = true) { lock.withLock { value = newValue } }
    var isSet: Bool { lock.withLock { value } }
}

/// Sends commands and waits for their completion, setting scanning up and down: the logic of
/// the scanner, independent of the socket.
struct HCIScanLoop {
    let transport: any HCITransport
    let configuration: HCIScanner.Configuration
    let stop: StopFlag
    /// Set while scanning is to be off (``HCIScanner/pauseScanning()``).
    var paused = StopFlag()
    var commandTimeout = 2.0
    var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    private var adapter: String { configuration.adapter }

    /// Starts scanning, hands every event's sightings to `body` until stopped, then disables
    /// scanning (also when an error ends the loop).
    /// While ``paused`` is set, scanning is disabled and what still comes is dropped; once it is
    /// cleared, scanning is set up and enabled again.
    func run(_ body: ([BeaconSighting]) -> Void) throws(BluetoothError) {
        var extended = try start()
        var scanning = true
        defer { if scanning { disable(extended: extended) } }
        let deadline = configuration.duration.map { Date().addingTimeInterval(Swift.min($0, 1e9)) }
        while !stop.isSet {
            if let deadline, deadline.timeIntervalSinceNow <= 0 { break }
            if paused.isSet == scanning {
                if scanning {
                    disable(extended: extended)
                } else {
                    extended = try start()
                }
                scanning.toggle()
            }
            guard let packet = try transport.receive(timeout: 0.2) else { continue }
            guard scanning, packet.first == HCIPacketType.event.rawValue else { continue }
            let sightings = (try? configuration.decoder.sightings(fromEvent: packet.dropFirst(), at: now())) ?? []
            if !sightings.isEmpty { body(sightings) }
        }
    }

    /// Configures and enables scanning; returns whether it is extended scanning.
    func start() throws(BluetoothError) -> Bool {
        var extended = false
        if configuration.prefersExtendedScanning,
           let features = try? execute(.readLocalSupportedFeatures), features.first == 0, features.count >= 3 {
            extended = features[2] & 0x10 != 0  // LE feature bit 12: LE Extended Advertising
        }
        let timing = configuration.timing
        // Scanning must be off to change its parameters; a refusal here only means it was off.
        _ = try? execute(extended ? .setExtendedScanEnable(false) : .setScanEnable(false))
        if extended {
            try check(execute(.setExtendedScanParameters(type: configuration.scanType, interval: timing.intervalUnits,
                                                          window: timing.windowUnits)), opcode: HCICommand.Opcode.setExtendedScanParameters)
            try check(execute(.setExtendedScanEnable(true, filterDuplicates: false)), opcode: HCICommand.Opcode.setExtendedScanEnable)
        } else {
            try check(execute(.setScanParameters(type: configuration.scanType, interval: timing.intervalUnits,
                                                  window: timing.windowUnits)), opcode: HCICommand.Opcode.setScanParameters)
            try check(execute(.setScanEnable(true, filterDuplicates: false)), opcode: HCICommand.Opcode.setScanEnable)
        }
        return extended
    }

    /// Disables scanning, ignoring failures (the adapter may be gone).
    func disable(extended: Bool) {
        _ = try? execute(extended ? .setExtendedScanEnable(false) : .setScanEnable(false))
    }

    /// Sends `command` and returns its Command Complete return parameters; a Command Status
    /// with an error is thrown as ``BluetoothError/commandFailed(_:opcode:status:)``.
    func execute(_ command: HCICommand) throws(BluetoothError) -> [UInt8] {
        try transport.send(command.packet)
        let deadline = Date().addingTimeInterval(commandTimeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw .timeout(adapter, opcode: command.opcode) }
            guard let packet = try transport.receive(timeout: remaining),
                  packet.first == HCIPacketType.event.rawValue,
                  let event = try? HCIEvent.decode(packet.dropFirst()) else { continue }
            switch event {
            case .commandComplete(let opcode, _, let parameters) where opcode == command.opcode:
                return parameters
            case .commandStatus(let opcode, let status, _) where opcode == command.opcode && status != 0:
                throw failure(opcode: opcode, status: status)
            default:
                continue
            }
        }
    }

    private func check(_ parameters: [UInt8], opcode: UInt16) throws(BluetoothError) {
        guard let status = parameters.first else { throw .commandFailed(adapter, opcode: opcode, status: 0xFF) }
        if status != 0 { throw failure(opcode: opcode, status: status) }
    }

    private func failure(opcode: UInt16, status: UInt8) -> BluetoothError {
        switch status {
        case 0x0C: .adapterBusy(adapter)  // Command Disallowed: scanning is held by someone else
        default: .commandFailed(adapter, opcode: opcode, status: status)
        }
    }
}

#if !canImport(Glibc)
/// Raw HCI sockets exist only on Linux.
enum HCISocket {
    static func open(adapter: String) throws(BluetoothError) -> any HCITransport { throw .unsupportedPlatform }
}

/// Signals end scans only where the socket exists.
final class SignalStop {
    init(_ flag: StopFlag) {}
    func cancel() {}
}
#endif
