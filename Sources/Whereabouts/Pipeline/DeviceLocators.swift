/// The ``Locator``s of a recording with several devices and tracks: one per device, started
/// afresh whenever that device's `track` changes (`DeviceSlots`), so that motion and filter
/// state never leak from one trajectory into the next. Memory grows with the number of devices,
/// not of scans or tracks. The immediate stage of a ``FixPipeline``.
///
/// It also measures the solver's own throughput (``statistics``): the time spent inside
/// ``Locator/locate(_:)`` (filters, observation and solver), nothing spent reading or writing.
///
/// ```swift
/// var locators = DeviceLocators(venue: positioning, solver: WeightedCentroid(venue: positioning))
/// while let scan = try reader.next() {
///     if let fix = locators.locate(scan) { try writer.write(fix) }
/// }
/// print(locators.statistics.scansPerSecond ?? 0)
/// ```
package struct DeviceLocators: Sendable {
    /// The venue.
    package var venue: PositioningVenue { parts.venue }
    /// The solver each locator uses.
    package var solver: any PositionSolver { parts.solver }
    /// The configuration of each locator.
    package var configuration: LocatorConfiguration { parts.configuration }

    private let parts: LocatorParts
    private var locators = DeviceSlots<Locator>()

    /// Scans located so far, fixes given, devices and tracks seen, and the time spent locating.
    package private(set) var statistics = PipelineStatistics()

    /// Creates the locators of a venue and solver; none exists until a device is first seen.
    package init(venue: PositioningVenue, solver: any PositionSolver, configuration: LocatorConfiguration = LocatorConfiguration()) {
        parts = LocatorParts(venue: venue, solver: solver, configuration: configuration)
    }

    /// Creates the locators of a setup.
    package init(setup: PositioningSetup) {
        self.init(venue: setup.venue, solver: setup.solver, configuration: setup.configuration)
    }

    /// Devices seen so far.
    package var deviceCount: Int { locators.count }
    /// Scans located so far (whether they got a fix or not).
    package var calls: Int { statistics.scans }
    /// Scans that got a fix.
    package var fixes: Int { statistics.fixes }
    /// Total time spent inside the locators.
    package var elapsed: Duration { statistics.elapsed }
    /// How many times a locator was started afresh: a device first seen, or a new track of one.
    package var trackStarts: Int { statistics.trackStarts }
    /// Scans located per second of time spent in the locators, or `nil` before any time was measured.
    package var callsPerSecond: Double? { statistics.scansPerSecond }

    /// Sets where a device is, on its track (a new device or track starts a locator), as
    /// ``Locator/setPosition(_:floor:accuracy:at:)`` does.
    package mutating func setPosition(_ point: SpatialPoint, floor: Int?, accuracy: Double, at time: Double,
                                      device: String?, track: String?) {
        let parts = parts
        let slot = locators.slot(device: device, track: track) { parts.makeLocator() }
        locators.update(slot) { $0.setPosition(point, floor: floor, accuracy: accuracy, at: time) }
    }

    /// The fix of a scan from its device's locator, or `nil` when the solver gives none.
    package mutating func locate(_ scan: Scan) -> Fix? {
        let starts = locators.trackStarts
        let parts = parts
        let slot = locators.slot(device: scan.device, track: scan.track) { parts.makeLocator() }
        statistics.trackStarts += locators.trackStarts - starts
        let clock = ContinuousClock()
        let start = clock.now
        let fix = locators.update(slot) { $0.locate(scan) }
        statistics.elapsed += clock.now - start
        statistics.scans += 1
        if fix != nil { statistics.fixes += 1 }
        statistics.devices = locators.count
        return fix
    }

    /// Locates one whole track of one device offline (a `TrackCollector` gathers them): a fresh
    /// ``Locator`` with this configuration locates every scan and smooths the fixes with the
    /// scans after them too (``Locator/smoothedFixes(for:lag:)``). One fix (or `nil`) per scan, in
    /// order; counted in ``statistics`` like ``locate(_:)``. The scans should be one device's,
    /// with one `track`, in time order. With a `lag`, each fix learns only from the scans of the
    /// `lag` seconds after it (a live pipeline delayed by that much, ``FixedLagSmoother``).
    ///
    /// ```swift
    /// var collector = TrackCollector()
    /// for scan in scans {
    ///     if let track = collector.add(scan) { write(locators.smoothedFixes(forTrack: track)) }
    /// }
    /// for track in collector.finish() { write(locators.smoothedFixes(forTrack: track)) }
    /// ```
    package mutating func smoothedFixes(forTrack scans: [Scan], lag: Double? = nil) -> [Fix?] {
        guard let first = scans.first else { return [] }
        // The device is counted; its slot's state is not used (each track starts afresh).
        if locators.existingSlot(device: first.device) == nil {
            let parts = parts
            _ = locators.slot(device: first.device, track: first.track) { parts.makeLocator() }
        }
        var locator = parts.makeLocator()
        let clock = ContinuousClock()
        let start = clock.now
        let fixes = locator.smoothedFixes(for: scans, lag: lag)
        statistics.elapsed += clock.now - start
        statistics.scans += scans.count
        statistics.fixes += fixes.reduce(0) { $1 == nil ? $0 : $0 + 1 }
        statistics.devices = locators.count
        statistics.trackStarts += 1
        return fixes
    }
}
