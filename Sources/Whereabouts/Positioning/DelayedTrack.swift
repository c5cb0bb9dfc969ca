/// One device's fixes held back by a ``FixedLagSmoother``: the fixes wait in order, and each
/// report of the smoother moves the oldest one to its smoothed position — the locator's
/// solver's own when it smooths with a lag (``PositionSolver/startLagSmoothing()``), the
/// smoother's otherwise (the smoother still says when each fix falls due).
struct DelayedTrack: Sendable {
    private var smoother: FixedLagSmoother
    /// The fixes not reported yet, oldest first.
    private var waiting = FIFOBuffer<Fix>(compactingAfter: 64)

    init(smoother: FixedLagSmoother) {
        self.smoother = smoother
    }

    /// Fixes taken in and not yet reported.
    var pendingCount: Int { waiting.count }

    /// When the oldest waiting fix falls due, or `nil` when none waits.
    var nextDueTime: Double? { smoother.nextDueTime }

    /// Takes in the fix of a scan at `time` (or the passing of time, when the scan gave none) and
    /// returns the fixes now due, smoothed by `locator` (its solver, or within its venue).
    mutating func add(_ fix: Fix?, at time: Double, locator: inout Locator) -> [Fix] {
        guard let fix else { return release(smoother.advance(to: time), locator: &locator) }
        waiting.append(fix)
        return release(smoother.add(Locator.timedEstimate(of: fix)), locator: &locator)
    }

    /// The fixes due by `time`.
    mutating func advance(to time: Double, locator: inout Locator) -> [Fix] {
        release(smoother.advance(to: time), locator: &locator)
    }

    /// Every waiting fix, smoothed with what came after it; the smoother starts afresh.
    mutating func finish(locator: inout Locator) -> [Fix] {
        release(smoother.finish(), locator: &locator)
    }

    /// The oldest waiting fixes, one per report, moved to the reported positions.
    private mutating func release(_ reports: [PositionEstimate?], locator: inout Locator) -> [Fix] {
        guard !reports.isEmpty else { return [] }
        var fixes: [Fix] = []
        fixes.reserveCapacity(reports.count)
        for report in reports {
            guard let fix = waiting.popFirst() else { break }
            fixes.append(locator.lagSmoothed(fix, by: report))
        }
        return fixes
    }
}
