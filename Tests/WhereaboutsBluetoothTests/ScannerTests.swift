import Foundation
import Testing
@testable import Whereabouts
@testable import WhereaboutsBluetooth

/// A controller played by a script: answers each command with a Command Complete carrying the
/// status the script gives, and hands out queued events.
final class ScriptedController: HCITransport, @unchecked Sendable {
    private let lock = NSLock()
    private(set) var sent: [[UInt8]] = []
    private var queue: [[UInt8]] = []
    var statuses: [UInt16: UInt8] = [:]
    var features: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0]
    var answers = true
    /// Runs when a receive finds nothing queued (outside the lock).
    var whenIdle: (() -> Void)?
    private(set) var closed = false

    init(events: [[UInt8]] = []) {
        queue = events.map { [0x04] + $0 }
    }

    var opcodes: [UInt16] { lock.withLock { sent.map { UInt16($0[1]) | UInt16($0[2]) << 8 } } }

    func send(_ packet: [UInt8]) throws(BluetoothError) {
        lock.withLock {
            sent.append(packet)
            guard answers else { return }
            let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
            let parameters: [UInt8] = opcode == HCICommand.Opcode.readLocalSupportedFeatures ? [0] + features : [statuses[opcode] ?? 0]
            // Answers go first, before queued reports.
            queue.insert([0x04, 0x0E, UInt8(3 + parameters.count), 0x01, packet[1], packet[2]] + parameters, at: 0)
        }
    }

    func receive(timeout: Double) throws(BluetoothError) -> [UInt8]? {
        if let packet = lock.withLock({ queue.isEmpty ? nil : queue.removeFirst() }) { return packet }
        whenIdle?()
        return nil
    }

    /// Queues an event, as if the controller had just sent it.
    func queue(event: [UInt8]) {
        lock.withLock { queue.append([0x04] + event) }
    }

    func close() { lock.withLock { closed = true } }
}

@Suite struct ScannerTests {
    private let report1 = Vectors.legacyEvent(data: Vectors.iBeacon(major: 1, minor: 1))
    private let report2 = Vectors.legacyEvent(data: Vectors.iBeacon(major: 1, minor: 2), rssi: 0xB0)

    private func configuration(_ prefersExtended: Bool = true) -> HCIScanner.Configuration {
        HCIScanner.Configuration(adapter: "hci9", scanType: .active, prefersExtendedScanning: prefersExtended, stopsOnSignals: false)
    }

    /// A controller without LE Extended Advertising: read features, disable, legacy parameters
    /// (active, 160 units), enable without duplicate filtering; stopping disables again.
    @Test func legacyScanningSequence() throws {
        let controller = ScriptedController(events: [report1, [0x05, 0x04, 0x00, 0x40, 0x00, 0x13], report2])
        let stop = StopFlag()
        var heard: [[BeaconSighting]] = []
        try HCIScanLoop(transport: controller, configuration: configuration(), stop: stop, now: { 42 }).run { sightings in
            heard.append(sightings)
            if heard.count == 2 { stop.set() }
        }
        #expect(controller.opcodes == [0x2003, 0x200C, 0x200B, 0x200C, 0x200C])
        #expect(controller.sent[2] == HCICommand.setScanParameters(type: .active, interval: 160, window: 160).packet)
        #expect(controller.sent[3] == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
        #expect(controller.sent[4] == [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00])
        #expect(heard.map { $0.map(\.reading.rssi) } == [[-59], [-80]])
        #expect(heard.allSatisfy { $0.allSatisfy { $0.time == 42 } })
    }

    /// Paused, the loop turns scanning off and drops what still comes; resumed, it sets scanning up
    /// and on again and hands reports over as before (NaviBeacon's `pauseScanning`).
    @Test func pausingTurnsScanningOffUntilResumed() throws {
        let controller = ScriptedController(events: [report1])
        let stop = StopFlag(), paused = StopFlag()
        var heard: [[Double]] = []
        var resumed = false
        controller.whenIdle = {
            // Idle while paused: a report that comes anyway, then the resume and a last report.
            guard paused.isSet, !resumed else { return }
            resumed = true
            controller.queue(event: self.report2)
            controller.whenIdle = {
                guard paused.isSet else { return }
                paused.set(false)
                controller.queue(event: Vectors.legacyEvent(data: Vectors.iBeacon(major: 1, minor: 3), rssi: 0xC4))
            }
        }
        try HCIScanLoop(transport: controller, configuration: configuration(false), stop: stop, paused: paused).run { sightings in
            heard.append(sightings.map(\.reading.rssi))
            if heard.count == 1 { paused.set() } else { stop.set() }
        }
        // disable, parameters, enable; paused: disable; resumed: disable, parameters, enable; stopped: disable.
        #expect(controller.opcodes == [0x200C, 0x200B, 0x200C, 0x200C, 0x200C, 0x200B, 0x200C, 0x200C])
        #expect(controller.sent[3] == [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00])
        #expect(controller.sent[6] == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
        // The report that came while paused (−80 dBm) was dropped.
        #expect(heard == [[-59], [-60]])
    }

    /// A Bluetooth 5 controller (LE feature bit 12 set: byte 1, bit 4) gets extended scanning.
    @Test func extendedScanningSequence() throws {
        let controller = ScriptedController(events: [Vectors.extendedEvent(data: Vectors.iBeacon(major: 3, minor: 4))])
        controller.features = [0x00, 0x10, 0, 0, 0, 0, 0, 0]
        let stop = StopFlag()
        var heard = 0
        try HCIScanLoop(transport: controller, configuration: configuration(), stop: stop).run { _ in
            heard += 1
            stop.set()
        }
        #expect(controller.opcodes == [0x2003, 0x2042, 0x2041, 0x2042, 0x2042])
        #expect(controller.sent[3] == HCICommand.setExtendedScanEnable(true).packet)
        #expect(controller.sent[4] == HCICommand.setExtendedScanEnable(false).packet)
        #expect(heard == 1)
        // Not preferred: legacy even on a Bluetooth 5 controller, and no feature read.
        let legacy = ScriptedController()
        legacy.features = [0x00, 0x10, 0, 0, 0, 0, 0, 0]
        stop.set()
        try HCIScanLoop(transport: legacy, configuration: configuration(false), stop: stop).run { _ in }
        #expect(legacy.opcodes == [0x200C, 0x200B, 0x200C, 0x200C])
    }

    /// Command Disallowed (0x0C) on enable means someone else holds scanning: busy. Scanning
    /// never started, so no disable follows (it would stop the other program's scan).
    @Test func failures() throws {
        let busy = ScriptedController()
        busy.statuses[HCICommand.Opcode.setScanEnable] = 0x0C
        #expect(throws: BluetoothError.adapterBusy("hci9")) {
            try HCIScanLoop(transport: busy, configuration: configuration(), stop: StopFlag()).run { _ in }
        }
        #expect(busy.opcodes == [0x2003, 0x200C, 0x200B, 0x200C])
        let invalid = ScriptedController()
        invalid.statuses[HCICommand.Opcode.setScanParameters] = 0x12
        #expect(throws: BluetoothError.commandFailed("hci9", opcode: 0x200B, status: 0x12)) {
            try HCIScanLoop(transport: invalid, configuration: configuration(), stop: StopFlag()).run { _ in }
        }
        let silent = ScriptedController()
        silent.answers = false
        var loop = HCIScanLoop(transport: silent, configuration: configuration(false), stop: StopFlag())
        loop.commandTimeout = 0.05
        #expect(throws: BluetoothError.timeout("hci9", opcode: 0x200B)) { try loop.run { _ in } }
        #expect(BluetoothError.commandFailed("hci9", opcode: 0x200B, status: 0x12).description.contains("0x200B"))
    }

    /// The public sequence over a scripted controller: scans, then stopping when the consumer
    /// stops.
    @Test func scannerSequence() async throws {
        let controller = ScriptedController(events: [report1, report2])
        let scanner = HCIScanner(configuration: configuration(false)) { _ throws(BluetoothError) in controller }
        var scans: [Scan] = []
        for try await scan in scanner {
            scans.append(scan)
            if scans.count == 2 { break }
        }
        #expect(scans.map { $0.readings.map(\.beacon) } == [
            [.iBeacon(IBeaconIdentity(uuid: Vectors.uuid, major: 1, minor: 1))],
            [.iBeacon(IBeaconIdentity(uuid: Vectors.uuid, major: 1, minor: 2))],
        ])
        // A duration ends the scan by itself.
        let timed = ScriptedController(events: [report1])
        var configuration = configuration(false)
        configuration.duration = 0.3
        var count = 0
        for try await _ in HCIScanner(configuration: configuration, transport: { _ throws(BluetoothError) in timed }) { count += 1 }
        #expect(count == 1)
        #expect(timed.opcodes.last == HCICommand.Opcode.setScanEnable && timed.sent.last?.last == 0x00 && timed.closed)
    }

    /// This machine has no Bluetooth: opening hci0 is the "no adapter" error, never a crash,
    /// and so is iterating.
    @Test func noAdapterHere() async throws {
        let scanner = HCIScanner(configuration: .init(adapter: "hci0", stopsOnSignals: false))
        #if canImport(Glibc)
        do {
            try scanner.checkAdapter()
            Issue.record("hci0 opened on a machine without Bluetooth")
        } catch {
            guard case .noAdapter("hci0", _) = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains("No Bluetooth adapter hci0"))
            #expect(error.description.contains("--btsnoop"))
        }
        await #expect(throws: BluetoothError.self) { for try await _ in scanner {} }
        #expect(throws: BluetoothError.invalidAdapterName("bt0")) {
            try HCIScanner(configuration: .init(adapter: "bt0")).checkAdapter()
        }
        #else
        #expect(throws: BluetoothError.unsupportedPlatform) { try scanner.checkAdapter() }
        #endif
    }

    @Test func errorDescriptionsSayWhatToDo() {
        #expect(BluetoothError.permissionDenied("hci0").description.contains("sudo setcap 'cap_net_raw,cap_net_admin+eip' $(which whereabouts)"))
        #expect(BluetoothError.adapterBlocked("hci0", hard: false).description.contains("rfkill unblock bluetooth"))
        #expect(BluetoothError.adapterDown("hci0").description.contains("hciconfig hci0 up"))
        #expect(BluetoothError.adapterBusy("hci1").description.contains("busy"))
        #expect(BluetoothError.adapterBusy("hci1").adapter == "hci1")
    }

    /// rfkill state from a sysfs-like tree: hci0/rfkill3/soft = 1, hard = 0.
    @Test func rfkill() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rfkill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let device = root.appendingPathComponent("hci0/rfkill3")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        try Data("1\n".utf8).write(to: device.appendingPathComponent("soft"))
        try Data("0\n".utf8).write(to: device.appendingPathComponent("hard"))
        #expect(RFKill.state(of: "hci0", root: root) == RFKill.State(soft: true, hard: false))
        #expect(RFKill.state(of: "hci1", root: root) == nil)
        try Data("0\n".utf8).write(to: device.appendingPathComponent("soft"))
        #expect(RFKill.state(of: "hci0", root: root)?.isBlocked == false)
    }

    /// CoreLocation's ranging values: RSSI 0 means not heard; major/minor must fit 16 bits; a
    /// known accuracy is kept as the reading's distance, an unknown (negative) one is not.
    @Test func beaconRanging() {
        let reading = BeaconRanging.reading(uuid: Vectors.uuid, major: 1, minor: 65535, rssi: -71, accuracy: 2.4)
        #expect(reading == Reading(beacon: .iBeacon(IBeaconIdentity(uuid: Vectors.uuid, major: 1, minor: 65535)), rssi: -71,
                                   distance: 2.4))
        #expect(BeaconRanging.reading(uuid: Vectors.uuid, major: 1, minor: 2, rssi: -60, accuracy: -1)?.distance == nil)
        #expect(BeaconRanging.reading(uuid: Vectors.uuid, major: 1, minor: 2, rssi: 0, accuracy: -1) == nil)
        #expect(BeaconRanging.reading(uuid: Vectors.uuid, major: 65536, minor: 2, rssi: -60, accuracy: 1) == nil)
        #expect(BeaconRanging.reading(uuid: Vectors.uuid, major: -1, minor: 2, rssi: -60, accuracy: 1) == nil)
        let beacons = [BeaconRanging.Report(uuid: Vectors.uuid, major: 1, minor: 2, rssi: -60, accuracy: 1),
                       BeaconRanging.Report(uuid: Vectors.uuid, major: 1, minor: 3, rssi: 0, accuracy: -1)]
        let scan = BeaconRanging.scan(of: beacons, at: 100, device: "phone")
        #expect(scan?.readings.count == 1 && scan?.time == 100 && scan?.device == "phone")
        #expect(BeaconRanging.scan(of: [beacons[1]], at: 100) == nil)
    }
}
