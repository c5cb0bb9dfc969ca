/// The fixes of many devices and tracks, each reported a fixed time late and smoothed with the
/// scans of that time: the live counterpart of `DeviceLocators` with a ``FixedLagSmoother``, and the fixed-lag
/// stage of a ``FixPipeline``.
///
/// Per device (afresh for each new track), a ``Locator`` without tracking locates each scan, and
/// a ``FixedLagSmoother`` of the configuration's tracking model (constant-velocity when it has
/// none) holds each fix back until the scans of the next `lag` seconds came in. A solver that
/// smooths with a lag itself (``PositionSolver/startLagSmoothing()``, ``PosteriorSolver``)
/// smooths each fix with its own model instead. Reports are final
/// and come in each device's order. The scans' times are taken to run on one clock: a scan of
/// one device also lets the fixes of the others fall due (``advance(to:)``), so that a device
/// that falls silent still gets its last fixes out, `lag` seconds late. At the end of the input,
/// ``finish()`` reports what is still held back.
///
/// With a lag of 0 the fixes are those of the online tracker, at once.
///
/// ```swift
/// var locators = FixedLagLocators(venue: venue, solver: solver,
///                                 configuration: LocatorConfiguration(filter: nil, tracking: .stopAndGo), lag: 1)
/// for try await scan in scanner {
///     for fix in locators.locate(scan) { show(fix) }   // each a second old, and better for it
/// }
/// for fix in locators.finish() { show(fix) }
/// ```
package struct FixedLagLocators: Sendable {
    /// The venue.
    package var venue: PositioningVenue { factory.locators.venue }
    /// The solver each locator uses.
    package var solver: any PositionSolver { factory.locators.solver }
    /// The configuration; its ``LocatorConfiguration/tracking`` is the smoother's motion model.
    package var configuration: LocatorConfiguration { factory.configuration }
    /// How late each fix is reported, seconds.
    package var lag: Double { factory.lag }

    /// One device's pipeline.
    private struct Device: Sendable {
        var locator: Locator
        var delay: DelayedTrack
    }

    /// What each device's pipeline is made from, shared by reference (see ``LocatorParts``).
    private final class Factory: Sendable {
        /// The locators' parts: the configuration without tracking (the smoother tracks, not the locator).
        let locators: LocatorParts
        /// The configuration with its tracking, the smoother's motion model.
        let configuration: LocatorConfiguration
        let lag: Double

        init(venue: PositioningVenue, solver: any PositionSolver, configuration: LocatorConfiguration, lag: Double) {
            var untracked = configuration
            untracked.tracking = nil
            locators = LocatorParts(venue: venue, solver: solver, configuration: untracked)
            self.configuration = configuration
            self.lag = lag
        }

        func makeDevice() -> Device {
            var locator = locators.makeLocator()
            if lag > 0 { _ = locator.solver.startLagSmoothing() }
            return Device(locator: locator,
                          delay: DelayedTrack(smoother: Locator.smoother(lag: lag, venue: locators.venue, configuration: configuration)))
        }
    }

    private let factory: Factory

    private var devices = DeviceSlots<Device>()
    /// No device has a fix due before this time (its earliest due time when it was last worked out).
    private var nextDue = Double.infinity
    /// The latest finite scan time.
    private var clock = -Double.infinity

    /// Scans taken in so far, fixes reported, devices and tracks seen, and the time spent
    /// locating and smoothing.
    package private(set) var statistics = PipelineStatistics()

    /// Creates the pipelines of a venue and solver, reporting `lag` seconds late (negative or
    /// non-finite lags count as 0); none exists until a device is first seen.
    package init(venue: PositioningVenue, solver: any PositionSolver, configuration: LocatorConfiguration = LocatorConfiguration(),
                lag: Double) {
        factory = Factory(venue: venue, solver: solver, configuration: configuration, lag: lag.isFinite && lag > 0 ? lag : 0)
    }

    /// Creates the pipelines of a setup, reporting `lag` seconds late.
    package init(setup: PositioningSetup, lag: Double) {
        self.init(venue: setup.venue, solver: setup.solver, configuration: setup.configuration, lag: lag)
    }

    /// Devices seen so far.
    package var deviceCount: Int { devices.count }
    /// Scans taken in so far.
    package var calls: Int { statistics.scans }
    /// Fixes reported so far.
    package var fixes: Int { statistics.fixes }
    /// Total time spent locating and smoothing.
    package var elapsed: Duration { statistics.elapsed }
    /// Scans taken in per second of time spent, or `nil` before any time was measured.
    package var callsPerSecond: Double? { statistics.scansPerSecond }

    /// The earliest time at which a fix may fall due (a lower bound: ``advance(to:)`` at that
    /// time works out the next), or `nil` when none waits.
    package var nextDueTime: Double? { nextDue.isFinite ? nextDue : nil }

    /// Fixes taken in and not yet reported.
    package var pendingCount: Int { devices.indices.reduce(0) { $0 + devices[$1].delay.pendingCount } }

    /// Takes in one scan (of any device) and returns the fixes now due, each device's in order:
    /// the earlier fixes of its device (and of any other) that are now `lag` seconds old. A new
    /// track of the scan's device first reports the whole of the old one.
    package mutating func locate(_ scan: Scan) -> [Fix] {
        let timer = ContinuousClock()
        let start = timer.now
        defer { statistics.elapsed += timer.now - start }
        statistics.scans += 1
        var reports: [Fix] = []
        let starts = devices.trackStarts
        let factory = factory
        let slot = devices.slot(device: scan.device, track: scan.track, start: factory.makeDevice) { old in
            var old = old
            reports += old.delay.finish(locator: &old.locator)
        }
        statistics.trackStarts += devices.trackStarts - starts
        statistics.devices = devices.count
        let due = devices.update(slot) { device in
            let fix = device.locator.locate(scan)
            reports += device.delay.add(fix, at: scan.time, locator: &device.locator)
            return device.delay.nextDueTime
        }
        if let due { nextDue = min(nextDue, due) }
        reports += advanced(to: scan.time)
        statistics.fixes += reports.count
        return reports
    }

    /// Lets the clock run on to `time` (no scan came in, but time passed: a live source calls it
    /// now and then) and returns the fixes of every device now `lag` seconds old.
    package mutating func advance(to time: Double) -> [Fix] {
        let reports = advanced(to: time)
        statistics.fixes += reports.count
        return reports
    }

    /// Reports every fix still held back, each smoothed with what came after it, and starts every
    /// device afresh (the end of the input).
    package mutating func finish() -> [Fix] {
        var reports: [Fix] = []
        let factory = factory
        for slot in devices.indices {
            devices.update(slot) { device in reports += device.delay.finish(locator: &device.locator) }
            devices.restart(slot, with: factory.makeDevice)
        }
        nextDue = .infinity
        statistics.fixes += reports.count
        return reports
    }

    /// The fixes due by `time` of every device, when some may be; works out the next due time.
    private mutating func advanced(to time: Double) -> [Fix] {
        guard time.isFinite else { return [] }
        clock = max(clock, time)
        guard clock >= nextDue else { return [] }
        var reports: [Fix] = []
        var due = Double.infinity
        let now = clock
        devices.updateAll { device in
            reports += device.delay.advance(to: now, locator: &device.locator)
            if let next = device.delay.nextDueTime { due = min(due, next) }
        }
        nextDue = due
        return reports
    }
}
