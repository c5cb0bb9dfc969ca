/// Where each scan's ``PlaceEstimate`` comes from: the containment of the scan's fix, or a room
/// classifier's smoothed answer (which needs no fix, nor beacon positions). The stage between a
/// ``FixPipeline`` and a ``MonitorPipeline``.
///
/// ```swift
/// var places = PlaceSource.containment(PlaceContainment(venue: venue))
/// if let estimate = places.estimate(for: scan, fix: fix) { await hub.process(estimate, at: scan.time) }
/// ```
public enum PlaceSource: Sendable {
    /// The place a fix is in, by the probability mass of the fix inside each place.
    case containment(PlaceContainment)
    /// The place a room classifier names, smoothed per device and track.
    case classifier(PlaceTracker)
    /// Held only while a tracker is taken out to change it in place.
    case moving

    /// Whether the estimates need the scans' fixes (containment does; a classifier does not).
    public var needsFixes: Bool {
        if case .containment = self { return true }
        return false
    }

    /// The estimate of one scan, given its fix if it got one; `nil` when the source has none
    /// (no fix to contain, or the classifier has no answer).
    public mutating func estimate(for scan: Scan, fix: Fix?) -> PlaceEstimate? {
        switch self {
        case .containment(let containment):
            return fix.map(containment.estimate(for:))
        case .classifier(var tracker):
            self = .moving
            let classification = tracker.classify(scan)
            self = .classifier(tracker)
            return classification.map { PlaceEstimate(place: $0.place, probability: $0.probability) }
        case .moving:
            return nil
        }
    }
}
