/// One scan's guess of the place a device is in, from any source — the containment of a fix
/// (``PlaceContainment/estimate(for:)``), a room classifier, a rule of your own — and the input of
/// a ``PlaceMonitor``.
///
/// ```swift
/// PlaceEstimate(place: "kitchen", probability: 0.8)   // probably in the kitchen
/// PlaceEstimate(place: nil, probability: 0.9)         // probably in no place at all
/// ```
public struct PlaceEstimate: Hashable, Sendable {
    /// The place's id (a `places[].id` of the venue, or a classifier's label), or `nil` for "in
    /// no place".
    public var place: String?
    /// How sure the source is, 0…1 (values outside are clamped; NaN counts as 0). From a fix's
    /// containment it is the share of the fix's Gaussian in the place (in no place, for `nil`),
    /// so a ``PlaceMonitor`` lets only well-placed fixes vote.
    public var probability: Double

    /// Creates an estimate.
    public init(place: String?, probability: Double = 1) {
        self.place = place
        self.probability = probability.isNaN ? 0 : Swift.min(1, Swift.max(0, probability))
    }
}
