import Foundation

/// A set of iBeacons watched together: every beacon of a proximity UUID, optionally narrowed to
/// one major (and one minor), named by the reference id that events carry (Bluenet's
/// `trackIBeacon(uuid:referenceId:)`).
///
/// ```swift
/// let building = BeaconRegion(uuid: uuid, referenceId: "building")
/// let hall3 = BeaconRegion(uuid: uuid, major: 3, referenceId: "hall3")
/// ```
public struct BeaconRegion: Hashable, Sendable {
    /// The proximity UUID.
    public var uuid: UUID
    /// The major, or `nil` for any.
    public var major: UInt16?
    /// The minor, or `nil` for any (only meaningful with a major).
    public var minor: UInt16?
    /// The id events report for this region.
    public var referenceId: String

    /// Creates a region.
    public init(uuid: UUID, major: UInt16? = nil, minor: UInt16? = nil, referenceId: String) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.referenceId = referenceId
    }

    /// Whether a beacon belongs to the region.
    public func contains(_ identity: IBeaconIdentity) -> Bool {
        identity.uuid == uuid && (major.map { $0 == identity.major } ?? true) && (minor.map { $0 == identity.minor } ?? true)
    }
}

/// What a `RegionMonitor` reports: a region was entered or left.
public struct RegionEvent: Hashable, Sendable {
    /// Whether the region was entered or left.
    public enum Kind: String, Hashable, Sendable {
        /// The first sighting of one of the region's beacons.
        case enter
        /// No sighting for the exit timeout.
        case exit
    }

    /// What happened.
    public var kind: Kind
    /// The region.
    public var region: BeaconRegion
    /// When: the sighting's time for an enter, the time the exit fell due (last sighting + timeout) for an exit.
    public var time: Double

    /// Creates an event.
    public init(_ kind: Kind, region: BeaconRegion, time: Double) {
        self.kind = kind
        self.region = region
        self.time = time
    }
}

/// Enter and exit events for beacon regions, timed by the scans' clock.
///
/// A region is entered on the first sighting of any of its beacons and left once
/// ``exitTimeout`` seconds pass without one. Exits are raised by time passing — the time of the
/// next sighting, or an explicit ``advance(to:)`` — never by the wall clock, so replaying a
/// recording gives the same events every time. (Bluenet left exit timing to the operating system;
/// Whereabouts owns it.)
///
/// ```swift
/// var monitor = RegionMonitor()
/// monitor.watch(BeaconRegion(uuid: uuid, referenceId: "building"))
/// monitor.observe([identity], at: 100)    // [enter building at 100]
/// monitor.advance(to: 140)                // [exit building at 130]
/// ```
package struct RegionMonitor: Sendable {
    /// Seconds without a sighting after which a region is left; default 30.
    package var exitTimeout: Double
    /// The regions watched, in the order watched.
    package private(set) var regions: [BeaconRegion] = []
    /// When each active region's beacons were last seen, by region.
    private var lastSeen: [BeaconRegion: Double] = [:]
    private var clock: Double = -.infinity

    /// Creates a monitor with no regions.
    package init(exitTimeout: Double = 30) {
        self.exitTimeout = exitTimeout
    }

    /// The regions currently entered, in the order watched.
    package var activeRegions: [BeaconRegion] { regions.filter { lastSeen[$0] != nil } }

    /// When the next exit falls due without another sighting (the earliest last sighting of an
    /// entered region plus ``exitTimeout``), or `nil` when no region is entered.
    package var nextExitTime: Double? {
        lastSeen.values.min().map { $0 + exitTimeout }
    }

    /// Starts watching a region. A region with the same UUID, major and minor is replaced.
    package mutating func watch(_ region: BeaconRegion) {
        if let index = regions.firstIndex(where: { $0.uuid == region.uuid && $0.major == region.major && $0.minor == region.minor }) {
            if let seen = lastSeen.removeValue(forKey: regions[index]) { lastSeen[region] = seen }
            regions[index] = region
        } else {
            regions.append(region)
        }
    }

    /// Stops watching every region of a UUID, silently.
    package mutating func stopWatching(uuid: UUID) {
        for region in regions where region.uuid == uuid { lastSeen[region] = nil }
        regions.removeAll { $0.uuid == uuid }
    }

    /// Stops watching every region, silently.
    package mutating func removeAll() {
        regions = []
        lastSeen = [:]
    }

    /// Forgets which regions are entered, silently, so that the next sighting of each enters it
    /// afresh (Bluenet's `forceClearActiveRegion`).
    package mutating func clearActive() {
        lastSeen = [:]
    }

    /// Takes in the beacons one scan heard at `time`: first the exits that fell due before it,
    /// then an enter for each watched region seen for the first time.
    package mutating func observe(_ identities: [IBeaconIdentity], at time: Double) -> [RegionEvent] {
        var events = advance(to: time)
        for region in regions where identities.contains(where: region.contains) {
            if lastSeen[region] == nil { events.append(RegionEvent(.enter, region: region, time: time)) }
            lastSeen[region] = Swift.max(lastSeen[region] ?? time, time)
        }
        return events
    }

    /// Moves the clock to `time` and returns the exits that fell due by then, oldest first.
    package mutating func advance(to time: Double) -> [RegionEvent] {
        clock = Swift.max(clock, time)
        var events: [(order: Int, event: RegionEvent)] = []
        for (order, region) in regions.enumerated() {
            guard let seen = lastSeen[region], clock >= seen + exitTimeout else { continue }
            lastSeen[region] = nil
            events.append((order, RegionEvent(.exit, region: region, time: seen + exitTimeout)))
        }
        return events.sorted { ($0.event.time, $0.order) < ($1.event.time, $1.order) }.map(\.event)
    }
}
