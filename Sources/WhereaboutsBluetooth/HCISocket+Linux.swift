#if canImport(Glibc)
import Dispatch
import Foundation
import Glibc

/// A raw HCI socket (`AF_BLUETOOTH`, `BTPROTO_HCI`) bound to one adapter, receiving events only.
final class HCISocket: HCITransport {
    private static let afBluetooth: Int32 = 31
    private static let btprotoHCI: Int32 = 1
    private static let solHCI: Int32 = 0
    private static let hciFilter: Int32 = 2
    private static let hciChannelRaw: UInt16 = 0

    private let fd: Int32
    private let adapter: String
    private var buffer = [UInt8](repeating: 0, count: 1024)

    private init(fd: Int32, adapter: String) {
        self.fd = fd
        self.adapter = adapter
    }

    /// Opens `adapter` (`hci0`, …): binds a raw socket to it (which fails when there is no such
    /// adapter) and filters events. An adapter that is down (or blocked) is found at the first
    /// command, which the kernel refuses with `ENETDOWN`.
    static func open(adapter: String) throws(BluetoothError) -> any HCITransport {
        guard adapter.hasPrefix("hci"), let index = UInt16(adapter.dropFirst(3)) else { throw .invalidAdapterName(adapter) }
        let fd = socket(afBluetooth, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), btprotoHCI)
        guard fd >= 0 else {
            let code = errno
            switch code {
            case EAFNOSUPPORT, EPROTONOSUPPORT, ESOCKTNOSUPPORT:
                throw .noAdapter(adapter, reason: "this system has no Bluetooth support (the kernel's bluetooth module is not loaded, or this is a container without it)")
            case EPERM, EACCES:
                throw .permissionDenied(adapter)
            default:
                throw systemError(adapter, "socket", code)
            }
        }
        do throws(BluetoothError) {
            var address = (UInt16(afBluetooth), index, hciChannelRaw)   // struct sockaddr_hci
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(6)) }
            }
            if bound < 0 { throw mapped(errno, adapter, "bind") }
            // struct hci_filter: type mask (events), event mask (Command Complete, Command
            // Status, LE Meta), opcode (any).
            var filter = [UInt8](repeating: 0, count: 16)
            filter[0] = 1 << HCIPacketType.event.rawValue
            let low: UInt32 = 1 << 0x0E | 1 << 0x0F, high: UInt32 = 1 << (0x3E - 32)
            withUnsafeBytes(of: low.littleEndian) { filter.replaceSubrange(4..<8, with: $0) }
            withUnsafeBytes(of: high.littleEndian) { filter.replaceSubrange(8..<12, with: $0) }
            let set = filter.withUnsafeBytes { setsockopt(fd, solHCI, hciFilter, $0.baseAddress, socklen_t(16)) }
            if set < 0 { throw mapped(errno, adapter, "setsockopt(HCI_FILTER)") }
        } catch {
            Glibc.close(fd)
            throw error
        }
        return HCISocket(fd: fd, adapter: adapter)
    }

    func send(_ packet: [UInt8]) throws(BluetoothError) {
        let written = packet.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written < 0 { throw Self.mapped(errno, adapter, "write") }
    }

    func receive(timeout: Double) throws(BluetoothError) -> [UInt8]? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, min(timeout, 60)) * 1000)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready < 0 {
            if errno == EINTR { return nil }
            throw Self.mapped(errno, adapter, "poll")
        }
        if ready == 0 { return nil }
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return nil }
            throw Self.mapped(errno, adapter, "read")
        }
        if count == 0 { throw .noAdapter(adapter, reason: "the adapter went away") }
        return Array(buffer[0..<count])
    }

    func close() {
        Glibc.close(fd)
    }

    private static func mapped(_ code: Int32, _ adapter: String, _ operation: String) -> BluetoothError {
        switch code {
        case ENODEV: .noAdapter(adapter, reason: "no such adapter (it may have been unplugged)")
        case ENETDOWN:
            if let state = RFKill.state(of: adapter), state.isBlocked { .adapterBlocked(adapter, hard: state.hard) } else { .adapterDown(adapter) }
        case ERFKILL: .adapterBlocked(adapter, hard: RFKill.state(of: adapter)?.hard ?? false)
        case EPERM, EACCES: .permissionDenied(adapter)
        case EBUSY: .adapterBusy(adapter)
        default: systemError(adapter, operation, code)
        }
    }

    private static func systemError(_ adapter: String, _ operation: String, _ code: Int32) -> BluetoothError {
        .system(adapter, operation: operation, code: code, message: String(cString: strerror(code)))
    }
}

/// Turns SIGINT and SIGTERM into a stop request while a scan runs, and restores the default
/// handling afterwards.
final class SignalStop {
    private let sources: [any DispatchSourceSignal]

    init(_ flag: StopFlag) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { flag.set() }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
#endif
