/// One RSSI filter per beacon, created on a beacon's first sample from a prototype and forgotten
/// once the beacon has gone unheard for longer than ``timeout``.
///
/// `Key` is whatever names a beacon cheaply: a ``BeaconReference``, a venue beacon index, …
///
/// ```swift
/// var bank = RSSIFilterBank<BeaconReference, KalmanRSSIFilter>(prototype: KalmanRSSIFilter(), timeout: 10)
/// bank.add(rssi: -67, for: .id("23"), at: 100)
/// bank.add(rssi: -80, for: .id("24"), at: 100.5)
/// let now = 101.0
/// bank.removeExpired(at: now)
/// for (beacon, rssi) in bank.values(at: now) { print(beacon, rssi) }
/// ```
///
/// A beacon heard again after more than ``timeout`` seconds of silence starts from a fresh
/// filter, even if ``removeExpired(at:)`` has not run in between, so an old estimate never
/// leaks into a new visit.
public struct RSSIFilterBank<Key: Hashable & Sendable, Filter: RSSIFilter>: Sendable {
    /// The default timeout, 10 s.
    public static var defaultTimeout: Double { 10 }

    /// The filter every new beacon starts from (a copy of it, reset).
    public let prototype: Filter
    /// How long (seconds) a beacon may go unheard before it is forgotten.
    public let timeout: Double
    private var entries: [Key: Entry] = [:]

    private struct Entry: Sendable {
        var filter: Filter
        var lastSeen: Double
    }

    /// Creates an empty bank. A timeout that is not positive (or is NaN) is replaced by the
    /// default; an infinite timeout keeps beacons until ``remove(_:)``.
    public init(prototype: Filter, timeout: Double = RSSIFilterBank.defaultTimeout) {
        var fresh = prototype
        fresh.reset()
        self.prototype = fresh
        self.timeout = timeout > 0 ? timeout : Self.defaultTimeout
    }

    /// Adds a sample for `key` and returns the beacon's filtered RSSI afterwards (`nil` when the
    /// sample was unusable and the beacon has no estimate). Samples with a non-finite time are
    /// ignored.
    @discardableResult
    public mutating func add(rssi: Double, for key: Key, at time: Double) -> Double? {
        guard time.isFinite else { return value(for: key, at: time) }
        var entry = entries[key] ?? Entry(filter: prototype, lastSeen: time)
        if time - entry.lastSeen > timeout {
            entry.filter = prototype
        }
        entry.filter.add(rssi: rssi, at: time)
        entry.lastSeen = max(entry.lastSeen, time)
        entries[key] = entry
        return entry.filter.value(at: time)
    }

    /// The filtered RSSI of `key` at `time`, or `nil` when the beacon is unknown, unheard for
    /// longer than ``timeout`` or its filter has no value at that time.
    public func value(for key: Key, at time: Double) -> Double? {
        guard let entry = entries[key], !(time - entry.lastSeen > timeout) else { return nil }
        return entry.filter.value(at: time)
    }

    /// The filtered RSSI of every beacon that has one at `time`.
    public func values(at time: Double) -> [Key: Double] {
        var result: [Key: Double] = [:]
        result.reserveCapacity(entries.count)
        for (key, entry) in entries where !(time - entry.lastSeen > timeout) {
            if let value = entry.filter.value(at: time) { result[key] = value }
        }
        return result
    }

    /// The filter of `key`, or `nil` when the bank holds none.
    public func filter(for key: Key) -> Filter? { entries[key]?.filter }

    /// When `key` was last heard, or `nil` when the bank holds no filter for it.
    public func lastSeen(_ key: Key) -> Double? { entries[key]?.lastSeen }

    /// The beacons the bank holds a filter for, in no particular order.
    public var keys: [Key] { Array(entries.keys) }

    /// How many beacons the bank holds a filter for.
    public var count: Int { entries.count }

    /// Whether the bank holds no filter.
    public var isEmpty: Bool { entries.isEmpty }

    /// Forgets every beacon unheard for longer than ``timeout`` at `time`, and returns them.
    @discardableResult
    public mutating func removeExpired(at time: Double) -> [Key] {
        let expired = entries.compactMap { time - $0.value.lastSeen > timeout ? $0.key : nil }
        for key in expired { entries[key] = nil }
        return expired
    }

    /// Forgets one beacon.
    public mutating func remove(_ key: Key) {
        entries[key] = nil
    }

    /// Forgets every beacon.
    public mutating func removeAll() {
        entries.removeAll()
    }
}

extension RSSIFilterBank where Key == BeaconReference {
    /// Adds every valid reading of a scan (see ``Reading/isValid``) at the scan's time.
    public mutating func add(_ scan: Scan) {
        for reading in scan.readings where reading.isValid {
            add(rssi: reading.rssi, for: reading.beacon, at: scan.time)
        }
    }
}
