/// The rules that decide which fixes become events on the server: Pryv's position tracker's rules,
/// each a setting.
///
/// A fix passes the rules in this order:
/// 1. a fix at latitude 0 / longitude 0 (or x 0 / y 0 on a venue without an origin) is ignored
///    when ``ignoresNullPosition`` is on: it is what a receiver reports when it knows nothing;
/// 2. a fix whose accuracy is negative, or above ``maximumAccuracy``, is ignored;
/// 3. a fix within its own accuracy plus ``minimumDistance`` of the last accepted event, on the
///    same floor, extends that event's `duration` up to the fix's time instead of creating one;
/// 4. otherwise a new event is accepted if at least ``minimumInterval`` seconds of fix time have
///    passed since the last accepted event began; else the fix is ignored.
///
/// Every distance and accuracy is in metres (a venue measured in grid cells is taken as 1 m a
/// cell). Intervals are judged on the fixes' own timestamps, never on a timer, so that a tracker
/// woken in the background decides exactly as one running in the foreground, and a replay decides
/// as the live run did.
///
/// ```swift
/// var policy = AcceptancePolicy()
/// policy.maximumAccuracy = 30      // indoor fixes carry their accuracy radius
/// policy.minimumInterval = 60      // at most one new event a minute
/// ```
public struct AcceptancePolicy: Hashable, Sendable {
    /// Whether fixes at 0/0 are ignored (default on).
    public var ignoresNullPosition: Bool
    /// The largest accuracy a fix may have and still count, metres (default 100). A fix exactly
    /// at the threshold counts.
    public var maximumAccuracy: Double
    /// Added to a fix's accuracy to decide whether it is still at the last event, metres
    /// (default 5). A fix exactly at that distance extends the event.
    public var minimumDistance: Double
    /// The least time between the starts of two accepted events, seconds of fix time (default 0).
    /// A fix exactly that long after the last event begins counts.
    public var minimumInterval: Double

    /// Creates a policy; the defaults are the seed's.
    public init(ignoresNullPosition: Bool = true, maximumAccuracy: Double = 100, minimumDistance: Double = 5,
                minimumInterval: Double = 0) {
        self.ignoresNullPosition = ignoresNullPosition
        self.maximumAccuracy = maximumAccuracy
        self.minimumDistance = minimumDistance
        self.minimumInterval = minimumInterval
    }

    /// What is wrong with the settings, if anything: every threshold must be a finite number, not
    /// negative.
    public var problem: String? {
        for (name, value) in [("maximum accuracy", maximumAccuracy), ("minimum distance", minimumDistance),
                              ("minimum interval", minimumInterval)] where !(value.isFinite && value >= 0) {
            return "The \(name) must be a finite number of at least 0, found \(value)."
        }
        return nil
    }
}
