/// One scan's guess of the place a device is in, from any source — the containment of a fix
/// (``PlaceContainment/estimate(for:)``), a room classifier, a rule of your own — and the input of
/// a ``PlaceMonitor``.
///
/// ```swift
/// PlaceEstimate(place: "kitchen", probability: 0.8)   // probably in the kitchen
/// PlaceEstimate(place: nil, probability: 0.9)         // probably in no place at all
/// PlaceEstimate(place: "hall", probability: 0.7, isBelief: true)   // a tracker's posterior
/// ```
public struct PlaceEstimate: Hashable, Sendable {
    /// The place's id (a `places[].id` of the venue, or a classifier's label), or `nil` for "in
    /// no place".
    public var place: String?
    /// How sure the source is, 0…1 (values outside are clamped; NaN counts as 0). From a fix's
    /// containment it is the share of the fix's Gaussian in the place (in no place, for `nil`),
    /// so a ``PlaceMonitor`` lets only well-placed fixes vote.
    public var probability: Double
    /// Whether ``probability`` is already a belief over the device's track so far — the mass a
    /// probabilistic tracker's posterior holds in the place (a fix's
    /// ``Fix/placeProbabilities``), or a ``PlaceBelief``'s — rather than one scan's evidence. A
    /// ``PlaceMonitor`` takes a belief at once (see
    /// ``PlaceMonitor/Configuration/beliefMajority``): the belief has weighed the scans before it
    /// already, and voting again on it would lag each change of room by the votes. Default `false`.
    public var isBelief: Bool

    /// Creates an estimate.
    public init(place: String?, probability: Double = 1, isBelief: Bool = false) {
        self.place = place
        self.probability = probability.isNaN ? 0 : Swift.min(1, Swift.max(0, probability))
        self.isBelief = isBelief
    }
}
