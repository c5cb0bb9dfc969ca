/// One ``Locator`` per device and track, made on first sight: motion and filter state never
/// leak from one device (or one track) to another.
///
/// ```swift
/// var pool = LocatorPool { Locator(venue: venue, solver: solver) }
/// for scan in scans { if let fix = pool.locate(scan) { print(fix) } }
/// ```
public struct LocatorPool: Sendable {
    /// A device and track pair.
    public struct Key: Hashable, Sendable {
        /// The scan's device.
        public var device: String?
        /// The scan's track.
        public var track: String?
    }

    private let makeLocator: @Sendable () -> Locator
    private var locators: [Key: Locator] = [:]

    /// Creates a pool that builds a locator with `makeLocator` for each new device and track.
    public init(_ makeLocator: @escaping @Sendable () -> Locator) {
        self.makeLocator = makeLocator
    }

    /// The devices and tracks seen so far.
    public var keys: [Key] { Array(locators.keys) }

    /// Locates a scan with the locator of its device and track.
    public mutating func locate(_ scan: Scan) -> Fix? {
        let key = Key(device: scan.device, track: scan.track)
        var locator = locators.removeValue(forKey: key) ?? makeLocator()
        let fix = locator.locate(scan)
        locators[key] = locator
        return fix
    }

    /// Forgets every device and track.
    public mutating func removeAll() {
        locators.removeAll()
    }
}
