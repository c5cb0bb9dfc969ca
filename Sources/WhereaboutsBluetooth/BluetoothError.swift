/// Why live scanning cannot start or went on: what went wrong and what to do about it.
///
/// ```swift
/// do {
///     for try await scan in HCIScanner() { print(scan) }
/// } catch let error as BluetoothError {
///     print(error)   // "No Bluetooth adapter hci0: … run `hciconfig -a` or `bluetoothctl list` …"
/// }
/// ```
public enum BluetoothError: Error, Hashable, Sendable, CustomStringConvertible {
    /// There is no such adapter, or the kernel has no Bluetooth support at all (`reason` says which).
    case noAdapter(String, reason: String)
    /// The adapter name is not of the form `hci0`, `hci1`, …
    case invalidAdapterName(String)
    /// The adapter exists but is down (powered off).
    case adapterDown(String)
    /// The adapter is blocked by rfkill (a soft block or a hardware switch).
    case adapterBlocked(String, hard: Bool)
    /// The process may not send HCI commands: it lacks `CAP_NET_RAW`/`CAP_NET_ADMIN`.
    case permissionDenied(String)
    /// The controller refused to scan because something else is using it (another scan, an
    /// exclusive user channel).
    case adapterBusy(String)
    /// The controller answered a command with an error status.
    case commandFailed(String, opcode: UInt16, status: UInt8)
    /// The controller did not answer a command in time.
    case timeout(String, opcode: UInt16)
    /// A system call failed unexpectedly.
    case system(String, operation: String, code: Int32, message: String)
    /// Live HCI scanning exists only on Linux.
    case unsupportedPlatform

    /// The adapter the error is about (empty for ``unsupportedPlatform``).
    public var adapter: String {
        switch self {
        case .noAdapter(let adapter, _), .invalidAdapterName(let adapter), .adapterDown(let adapter),
             .adapterBlocked(let adapter, _), .permissionDenied(let adapter), .adapterBusy(let adapter),
             .commandFailed(let adapter, _, _), .timeout(let adapter, _), .system(let adapter, _, _, _):
            adapter
        case .unsupportedPlatform:
            ""
        }
    }

    /// What went wrong and what to do, in a sentence or two.
    public var description: String {
        switch self {
        case .noAdapter(let adapter, let reason):
            "No Bluetooth adapter \(adapter): \(reason). List the adapters with `hciconfig -a` or `bluetoothctl list`, "
                + "and give another with --adapter; to try without hardware, replay a capture with --btsnoop FILE."
        case .invalidAdapterName(let name):
            "\"\(name)\" is not an adapter name: give one such as hci0 (see `hciconfig -a`)."
        case .adapterDown(let adapter):
            "Bluetooth adapter \(adapter) is down: bring it up with `sudo hciconfig \(adapter) up` or `bluetoothctl power on`."
        case .adapterBlocked(let adapter, let hard):
            hard
                ? "Bluetooth adapter \(adapter) is blocked by a hardware switch (rfkill hard block): turn the switch on."
                : "Bluetooth adapter \(adapter) is blocked by rfkill: unblock it with `sudo rfkill unblock bluetooth`, "
                    + "then `sudo hciconfig \(adapter) up`."
        case .permissionDenied(let adapter):
            "Not allowed to scan with \(adapter): raw HCI access needs CAP_NET_RAW and CAP_NET_ADMIN. Grant them with "
                + "`sudo setcap 'cap_net_raw,cap_net_admin+eip' $(which whereabouts)` or run as root."
        case .adapterBusy(let adapter):
            "Bluetooth adapter \(adapter) is busy: another program is scanning or holds it. Stop it (for example "
                + "`bluetoothctl scan off`, or stop the other scanner) and try again."
        case .commandFailed(let adapter, let opcode, let status):
            "Bluetooth adapter \(adapter) refused command \(hex(opcode)) with status \(hex(status))"
                + (status == 0x01 ? " (unknown command: the controller does not support it)" : "")
                + (status == 0x12 ? " (invalid parameters: check the scan interval and window)" : "")
                + ". Try resetting it with `sudo hciconfig \(adapter) reset`."
        case .timeout(let adapter, let opcode):
            "Bluetooth adapter \(adapter) did not answer command \(hex(opcode)) in time. "
                + "Check it with `hciconfig \(adapter)` and reset it with `sudo hciconfig \(adapter) reset`."
        case .system(let adapter, let operation, let code, let message):
            "\(operation) on Bluetooth adapter \(adapter) failed: \(message) (errno \(code))."
        case .unsupportedPlatform:
            "Live HCI scanning needs Linux (BlueZ). On Apple platforms use CoreLocationRangingSource; "
                + "anywhere, replay a capture with --btsnoop FILE."
        }
    }
}
