/// A source of scans whose radio can stop scanning for a while and start again — what
/// NaviBeacon's `pauseScanning` saves battery with. The BlueZ scanner of `WhereaboutsBluetooth`
/// is one: paused, it turns the adapter's LE scanning off until resumed.
///
/// ```swift
/// let scanner = HCIScanner(configuration: .init(adapter: "hci0"))
/// scanner.pauseScanning()     // the adapter stops scanning; the scan stream waits
/// scanner.resumeScanning()    // and scans again
/// ```
public protocol PausableScanning: Sendable {
    /// Stops scanning until ``resumeScanning()``; the source's stream stays open.
    func pauseScanning()
    /// Scans again.
    func resumeScanning()
}
