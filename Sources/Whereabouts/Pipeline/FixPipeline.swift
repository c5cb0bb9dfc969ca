/// Scans in, fixes out, for any number of devices: the per-device locators of a
/// ``PositioningSetup`` with the timing of their output. Every front end — `whereabouts locate`,
/// ``LocationEngine``, `watch`, `rank`, the demo — locates through one of these.
///
/// - ``Timing/immediate``: each scan's fix as the scan comes in (`DeviceLocators`).
/// - ``Timing/fixedLag(seconds:)``: each fix that many seconds of scans late, smoothed with them,
///   live scans too (`FixedLagLocators`).
/// - ``Timing/wholeTrack(lookahead:)``: each track's fixes once it has ended, smoothed with the
///   scans after each one (`TrackCollector` and `DeviceLocators.smoothedFixes(forTrack:lag:)`).
///
/// ```swift
/// var pipeline = FixPipeline(setup: PositioningAlgorithm.default.setup(venue: venue), timing: .fixedLag(seconds: 1))
/// while let scan = try reader.next() {
///     try pipeline.add(scan) { fix in try writer.write(fix) }
/// }
/// try pipeline.finish { fix in try writer.write(fix) }
/// print(pipeline.statistics.fixes, "fixes of", pipeline.statistics.scans, "scans")
/// ```
public struct FixPipeline: Sendable {
    /// When a pipeline gives each fix out.
    public enum Timing: Hashable, Sendable {
        /// Each scan's fix as soon as the scan comes in: the live default.
        case immediate
        /// Each fix `seconds` of scans late, smoothed with the scans of those seconds (the
        /// configuration's tracking model, constant-velocity when it has none, run forwards and
        /// back). Works on live scans; the fixes still held back come out at ``FixPipeline/finish(_:)``.
        case fixedLag(seconds: Double)
        /// Each track's fixes once the track has ended (its device's next scan starts another
        /// track, or the input ends), smoothed with every later scan of the track, or only with
        /// those of `lookahead` seconds after each fix: the offline score of a pipeline delayed
        /// by that much.
        case wholeTrack(lookahead: Double? = nil)

    }

    /// How the scans are located now: the stage of the timing, with its state.
    private enum Stage: Sendable {
        case immediate(DeviceLocators)
        case fixedLag(FixedLagLocators)
        case wholeTrack(DeviceLocators, TrackCollector, lookahead: Double?)
        /// Held only while a stage is taken out to change it in place.
        case moving
    }

    /// The venue, solver and per-device configuration located with.
    public let setup: PositioningSetup
    /// When the fixes come out.
    public let timing: Timing
    private var stage: Stage

    /// A pipeline of a setup with a timing; no device has state until its first scan.
    public init(setup: PositioningSetup, timing: Timing = .immediate) {
        self.setup = setup
        self.timing = timing
        switch timing {
        case .immediate: stage = .immediate(DeviceLocators(setup: setup))
        case .fixedLag(let seconds): stage = .fixedLag(FixedLagLocators(setup: setup, lag: seconds))
        case .wholeTrack(let lookahead): stage = .wholeTrack(DeviceLocators(setup: setup), TrackCollector(), lookahead: lookahead)
        }
    }

    /// Scans taken in, fixes given out, devices and tracks seen, time spent locating.
    public var statistics: PipelineStatistics {
        switch stage {
        case .immediate(let locators), .wholeTrack(let locators, _, _): locators.statistics
        case .fixedLag(let locators): locators.statistics
        case .moving: PipelineStatistics()
        }
    }

    /// Fixes taken in (or scans, waiting for their track's end) and not given out yet.
    public var pendingCount: Int {
        switch stage {
        case .immediate, .moving: 0
        case .fixedLag(let locators): locators.pendingCount
        case .wholeTrack(_, let collector, _): collector.pendingScans
        }
    }

    /// The earliest time at which a fix may fall due without another scan (a fixed lag's oldest
    /// waiting fix), or `nil` when the timing holds none back on time.
    public var nextDueTime: Double? {
        guard case .fixedLag(let locators) = stage else { return nil }
        return locators.nextDueTime
    }

    /// Takes in one scan (of any device) and hands `emit` each fix now due, each device's in order.
    @inline(__always)
    public mutating func add(_ scan: Scan, _ emit: (Fix) throws -> Void) rethrows {
        try add(scan, located: { _, fix in if let fix { try emit(fix) } })
    }

    /// Sets where a device is, known from elsewhere (a beacon at a known spot, a tap on the map),
    /// so that its fixes that follow start from it: its floor and motion track restart there
    /// (see ``Locator/setPosition(_:floor:accuracy:at:)``). `accuracy` is the position's 68 %
    /// radius in venue units. Returns whether the pipeline took it: with
    /// ``Timing/immediate``; a delayed or whole-track timing smooths over scans it has not had
    /// yet, and does not.
    ///
    /// ```swift
    /// pipeline.setPosition(SpatialPoint(x: 3, y: 7, z: 0), floor: 0, accuracy: 0.5, at: scan.time, device: scan.device)
    /// ```
    @discardableResult
    public mutating func setPosition(_ point: SpatialPoint, floor: Int?, accuracy: Double, at time: Double,
                                     device: String?, track: String? = nil) -> Bool {
        guard case .immediate(var locators) = stage else { return false }
        stage = .moving
        locators.setPosition(point, floor: floor, accuracy: accuracy, at: time, device: device, track: track)
        stage = .immediate(locators)
        return true
    }

    /// Takes in one scan and returns the fixes now due.
    public mutating func add(_ scan: Scan) -> [Fix] {
        var fixes: [Fix] = []
        add(scan) { fixes.append($0) }
        return fixes
    }

    /// Lets the clock run on to `time` without a scan (a live source calls it now and then) and
    /// hands `emit` the fixes now due; only a fixed lag has any.
    public mutating func advance(to time: Double, _ emit: (Fix) throws -> Void) rethrows {
        guard case .fixedLag(var locators) = stage else { return }
        stage = .moving
        let fixes = locators.advance(to: time)
        stage = .fixedLag(locators)
        for fix in fixes { try emit(fix) }
    }

    /// The end of the input: hands `emit` every fix still held back (the open tracks' and the
    /// lagging ones; the immediate timing holds none back). A fixed lag's devices start afresh.
    public mutating func finish(_ emit: (Fix) throws -> Void) rethrows {
        try finish(located: { _, fix in if let fix { try emit(fix) } })
    }

    /// The end of the input; returns the fixes still held back.
    public mutating func finish() -> [Fix] {
        var fixes: [Fix] = []
        finish { fixes.append($0) }
        return fixes
    }

    // MARK: Scans with their fixes, for scoring

    /// Takes in one scan and hands `emit` each scan now located with its fix (`nil` when it got
    /// none), for scoring against the scans' truth. With ``Timing/fixedLag(seconds:)`` the scan
    /// is not kept, so `emit` gets `nil` for it: score a lag with ``Timing/wholeTrack(lookahead:)``.
    public mutating func add(_ scan: Scan, located emit: (_ scan: Scan?, _ fix: Fix?) throws -> Void) rethrows {
        switch stage {
        case .immediate(var locators):
            stage = .moving
            let fix = locators.locate(scan)
            stage = .immediate(locators)
            try emit(scan, fix)
        case .fixedLag(var locators):
            stage = .moving
            let fixes = locators.locate(scan)
            stage = .fixedLag(locators)
            for fix in fixes { try emit(nil, fix) }
        case .wholeTrack(var locators, var collector, let lookahead):
            stage = .moving
            let ended = collector.add(scan)
            let fixes = ended.map { locators.smoothedFixes(forTrack: $0, lag: lookahead) }
            stage = .wholeTrack(locators, collector, lookahead: lookahead)
            if let ended, let fixes {
                for (scan, fix) in zip(ended, fixes) { try emit(scan, fix) }
            }
        case .moving:
            return
        }
    }

    /// The end of the input, with the scans (when kept) of the fixes still held back; see
    /// ``add(_:located:)``.
    public mutating func finish(located emit: (_ scan: Scan?, _ fix: Fix?) throws -> Void) rethrows {
        switch stage {
        case .immediate, .moving:
            return
        case .fixedLag(var locators):
            stage = .moving
            let fixes = locators.finish()
            stage = .fixedLag(locators)
            for fix in fixes { try emit(nil, fix) }
        case .wholeTrack(var locators, var collector, let lookahead):
            stage = .moving
            let tracks = collector.finish()
            var located: [([Scan], [Fix?])] = []
            for track in tracks { located.append((track, locators.smoothedFixes(forTrack: track, lag: lookahead))) }
            stage = .wholeTrack(locators, collector, lookahead: lookahead)
            for (track, fixes) in located {
                for (scan, fix) in zip(track, fixes) { try emit(scan, fix) }
            }
        }
    }
}
