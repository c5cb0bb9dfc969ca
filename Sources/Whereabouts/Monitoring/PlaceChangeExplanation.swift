/// Why a device's place changed: the place monitor's rule and the evidence of the scan that
/// made the change — what `whereabouts watch --why` prints beside each enterLocation and
/// exitLocation, so that a room that flaps can be traced to the votes, the fix or the beacons
/// behind it.
///
/// ```swift
/// var monitor = MonitorPipeline(venue: venue, explainsPlaceChanges: true)
/// for event in await monitor.process(scan, estimate: estimate, fix: fix) {
///     if let why = event.explanation, case .votes(let count, _) = why.change.rule {
///         print(event.event.topic, "after \(count) votes; strongest:", why.readings.first?.rssi ?? .nan)
///     }
/// }
/// ```
public struct PlaceChangeExplanation: Hashable, Sendable {
    /// The change and its rule.
    public var change: PlaceMonitor.Change
    /// The place estimate of the scan that made the change (its last vote, or the belief);
    /// `nil` for a change no estimate made (an exit by timeout).
    public var estimate: PlaceEstimate?
    /// That scan's fix, when the places come from fixes.
    public var fix: Fix?
    /// That scan's valid readings, strongest first, at most ``maximumReadings``.
    public var readings: [Reading]

    /// The most readings an explanation keeps.
    public static let maximumReadings = 8

    /// An explanation of `change`; `readings` are sorted strongest first (the order they came
    /// in among equals), invalid ones left out, and cut to ``maximumReadings``.
    public init(change: PlaceMonitor.Change, estimate: PlaceEstimate? = nil, fix: Fix? = nil, readings: [Reading] = []) {
        self.change = change
        self.estimate = estimate
        self.fix = fix
        let valid = readings.enumerated().filter { $0.element.isValid }
        self.readings = valid.sorted { $0.element.rssi != $1.element.rssi ? $0.element.rssi > $1.element.rssi : $0.offset < $1.offset }
            .prefix(Self.maximumReadings).map(\.element)
    }
}
