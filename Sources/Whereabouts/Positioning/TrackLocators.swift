/// The ``Locator``s of a recording with several devices and tracks: one per device, started
/// afresh whenever that device's `track` changes, so that motion and filter state never leak
/// from one trajectory into the next. Memory grows with the number of devices, not of scans or
/// tracks.
///
/// It also measures the solver's own throughput: the time spent inside ``Locator/locate(_:)``
/// (filters, observation and solver), nothing spent reading or writing.
///
/// ```swift
/// var locators = TrackLocators(venue: positioning, solver: WeightedCentroid(venue: positioning))
/// while let scan = try reader.next() {
///     if let fix = locators.locate(scan) { try writer.write(fix) }
/// }
/// print(locators.callsPerSecond ?? 0)
/// ```
public struct TrackLocators: Sendable {
    /// The venue.
    public let venue: PositioningVenue
    /// The solver each locator uses.
    public let solver: any PositionSolver
    /// The configuration of each locator.
    public let configuration: LocatorConfiguration

    private var index: [String?: Int] = [:]
    private var entries: [(track: String?, locator: Locator)] = []
    private var last: (device: String?, slot: Int)?

    /// Scans located so far (whether they got a fix or not).
    public private(set) var calls = 0
    /// Scans that got a fix.
    public private(set) var fixes = 0
    /// Total time spent inside the locators.
    public private(set) var elapsed: Duration = .zero
    /// How many times a locator was started afresh because its device began a new track.
    public private(set) var trackStarts = 0

    /// Creates the locators of a venue and solver; none exists until a device is first seen.
    public init(venue: PositioningVenue, solver: any PositionSolver, configuration: LocatorConfiguration = LocatorConfiguration()) {
        self.venue = venue
        self.solver = solver
        self.configuration = configuration
    }

    /// Devices seen so far.
    public var deviceCount: Int { entries.count }

    /// The fix of a scan from its device's locator, or `nil` when the solver gives none.
    public mutating func locate(_ scan: Scan) -> Fix? {
        let slot: Int
        // Scans of one device mostly come in runs: the last device's slot saves hashing its name.
        let known = last.flatMap { $0.device == scan.device ? $0.slot : nil } ?? index[scan.device]
        if let existing = known {
            slot = existing
            if entries[slot].track != scan.track {
                entries[slot] = (scan.track, Locator(venue: venue, solver: solver, configuration: configuration))
                trackStarts += 1
            }
        } else {
            slot = entries.count
            index[scan.device] = slot
            entries.append((scan.track, Locator(venue: venue, solver: solver, configuration: configuration)))
            trackStarts += 1
        }
        last = (scan.device, slot)
        let clock = ContinuousClock()
        let start = clock.now
        let fix = entries[slot].locator.locate(scan)
        elapsed += clock.now - start
        calls += 1
        if fix != nil { fixes += 1 }
        return fix
    }

    /// Locates one whole track of one device offline (a ``TrackCollector`` gathers them): a fresh
    /// ``Locator`` with this configuration locates every scan and smooths the fixes with the
    /// scans after them too (``Locator/smoothedFixes(for:)``). One fix (or `nil`) per scan, in
    /// order; counted in ``calls``, ``fixes``, ``elapsed`` and ``trackStarts`` like
    /// ``locate(_:)``. The scans should be one device's, with one `track`, in time order. With a
    /// `lag`, each fix learns only from the scans of the `lag` seconds after it (a live pipeline
    /// delayed by that much, ``FixedLagSmoother``).
    ///
    /// ```swift
    /// var collector = TrackCollector()
    /// for scan in scans {
    ///     if let track = collector.add(scan) { write(locators.smoothedFixes(forTrack: track)) }
    /// }
    /// for track in collector.finish() { write(locators.smoothedFixes(forTrack: track)) }
    /// ```
    public mutating func smoothedFixes(forTrack scans: [Scan], lag: Double? = nil) -> [Fix?] {
        guard let first = scans.first else { return [] }
        if index[first.device] == nil {
            index[first.device] = entries.count
            entries.append((first.track, Locator(venue: venue, solver: solver, configuration: configuration)))
        }
        var locator = Locator(venue: venue, solver: solver, configuration: configuration)
        let clock = ContinuousClock()
        let start = clock.now
        let fixes = locator.smoothedFixes(for: scans, lag: lag)
        elapsed += clock.now - start
        calls += scans.count
        self.fixes += fixes.reduce(0) { $1 == nil ? $0 : $0 + 1 }
        trackStarts += 1
        return fixes
    }

    /// Scans located per second of time spent in the locators, or `nil` before any time was measured.
    public var callsPerSecond: Double? {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        guard calls > 0, seconds > 0 else { return nil }
        return Double(calls) / seconds
    }
}
