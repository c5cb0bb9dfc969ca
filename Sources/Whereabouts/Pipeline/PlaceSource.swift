/// Where each scan's ``PlaceEstimate`` comes from: the containment of the scan's fix, or a room
/// classifier's smoothed answer (which needs no fix, nor beacon positions). The stage between a
/// ``FixPipeline`` and a ``MonitorPipeline``.
///
/// ```swift
/// var places = PlaceSource.containment(PlaceContainment(venue: venue))
/// if let estimate = places.estimate(for: scan, fix: fix) { await hub.process(estimate, at: scan.time) }
/// ```
public struct PlaceSource: Sendable {
    /// The source, with the classifier's per-device beliefs.
    private enum Backing: Sendable {
        case containment(PlaceContainment)
        case belief(PlaceContainment, [String: Set<String>], PlaceBelief.Configuration, DeviceSlots<PlaceBelief>)
        case classifier(PlaceTracker)
        /// Held only while the tracker is taken out to change it in place.
        case moving
    }

    private var backing: Backing

    /// The place a fix is in, by the probability mass of the fix inside each place (by default the
    /// place holding the most of it; see ``PlaceContainment/Rule``).
    public static func containment(_ containment: PlaceContainment) -> PlaceSource {
        PlaceSource(backing: .containment(containment))
    }

    /// The room a ``PlaceBelief`` per device and track holds most probable, fed with the
    /// containment of each fix: for rooms not much bigger than the fixes' accuracy radius, where
    /// each fix alone spreads over several rooms. Feed it to a monitor that switches on a belief's
    /// majority (``PlaceMonitor/Configuration/followingBelief``).
    public static func containment(_ containment: PlaceContainment, belief: PlaceBelief.Configuration, venue: Venue) -> PlaceSource {
        PlaceSource(backing: .belief(containment, PlaceBelief.neighbours(of: venue.places, within: belief.adjacency), belief, DeviceSlots()))
    }

    /// The place a room classifier names, smoothed per device and track.
    public static func classifier(_ tracker: PlaceTracker) -> PlaceSource {
        PlaceSource(backing: .classifier(tracker))
    }

    /// Whether the estimates need the scans' fixes (containment does; a classifier does not).
    public var needsFixes: Bool {
        switch backing {
        case .containment, .belief: true
        case .classifier, .moving: false
        }
    }

    /// The estimate of one scan, given its fix if it got one; `nil` when the source has none
    /// (no fix to contain, or the classifier has no answer).
    public mutating func estimate(for scan: Scan, fix: Fix?) -> PlaceEstimate? {
        switch backing {
        case .containment(let containment):
            return fix.map(containment.estimate(for:))
        case .belief(let containment, let neighbours, let configuration, var beliefs):
            backing = .moving
            let slot = beliefs.slot(device: scan.device, track: scan.track) { PlaceBelief(neighbours: neighbours, configuration: configuration) }
            let estimate = beliefs.update(slot) { belief -> PlaceEstimate? in
                guard let fix else { belief.advance(to: scan.time); return nil }
                return belief.update(with: containment.placement(of: fix).distribution, at: scan.time)
            }
            backing = .belief(containment, neighbours, configuration, beliefs)
            return estimate
        case .classifier(var tracker):
            backing = .moving
            let classification = tracker.classify(scan)
            backing = .classifier(tracker)
            return classification.map { PlaceEstimate(place: $0.place, probability: $0.probability) }
        case .moving:
            return nil
        }
    }
}
