import Foundation

/// What a ``PlaceMonitor`` reports: a device entered, left or is in a place.
public struct PlaceEvent: Hashable, Sendable {
    /// The kinds of place events.
    public enum Kind: String, Hashable, Sendable {
        /// The device entered the place.
        case enter
        /// The device left the place.
        case exit
        /// The device is in the place (after every observation while it is in one).
        case current
    }

    /// What happened.
    public var kind: Kind
    /// The place's id.
    public var place: String
    /// When, seconds on the scans' clock.
    public var time: Double

    /// Creates an event.
    public init(_ kind: Kind, place: String, time: Double) {
        self.kind = kind
        self.place = place
        self.time = time
    }
}

/// Turns noisy per-scan place estimates into steady enter / exit / current events, with
/// hysteresis: one stray scan never flips the place.
///
/// Each estimate is a vote of weight `probability` for its place (or for "no place"). The monitor
/// keeps for every place an evidence that follows the votes with the time constant
/// ``Configuration/timeConstant`` (an exponential moving average on the scans' clock, so replays
/// are deterministic whatever the wall clock). A place other than the current one takes over when
/// it leads the evidence with at least ``Configuration/threshold`` for
/// ``Configuration/requiredScans`` consecutive observations, or (after at least two) for
/// ``Configuration/requiredDuration`` seconds. On a change the exit of the old place comes before
/// the enter of the new one; while in a place, every observation also reports it as current.
///
/// With the defaults (2 s, 0.6, 3 scans, 2 s), a device scanning once a second that really moves
/// to a new place is reported there about 3–4 s after the estimates turn, while a device
/// standing by a wall, whose estimates hesitate between the two rooms, stays put.
///
/// ```swift
/// var monitor = PlaceMonitor()
/// for scan in scans {
///     let estimate = containment.estimate(for: fix)      // or a room classifier's answer
///     for event in monitor.observe(estimate, at: scan.time) where event.kind != .current {
///         print(event.kind, event.place)                 // exit hall, enter kitchen
///     }
/// }
/// ```
public struct PlaceMonitor: Sendable {
    /// The hysteresis settings.
    public struct Configuration: Hashable, Sendable {
        /// Seconds over which the evidence follows the votes (the moving average's time constant); default 2.
        public var timeConstant: Double
        /// The evidence (0…1) a new place needs to take over; default 0.6.
        public var threshold: Double
        /// Consecutive observations a new place must lead for; default 3 (at least 2 are always needed).
        public var requiredScans: Int
        /// Seconds a new place must lead for, as an alternative to ``requiredScans`` for slow
        /// scanners; default 2.
        public var requiredDuration: Double
        /// Seconds without any observation after which ``PlaceMonitor/advance(to:)`` leaves the
        /// current place; default 30.
        public var exitTimeout: Double

        /// Creates settings.
        public init(timeConstant: Double = 2, threshold: Double = 0.6, requiredScans: Int = 3,
                    requiredDuration: Double = 2, exitTimeout: Double = 30) {
            self.timeConstant = timeConstant
            self.threshold = threshold
            self.requiredScans = requiredScans
            self.requiredDuration = requiredDuration
            self.exitTimeout = exitTimeout
        }
    }

    /// The settings.
    public var configuration: Configuration
    /// The place the device is in, or `nil` for none (or not yet known).
    public private(set) var currentPlace: String?
    /// The evidence of each place (`nil` key: no place), 0…1.
    public private(set) var evidence: [String?: Double] = [:]

    private var lastTime: Double?
    private var candidate: String??
    private var candidateScans = 0
    private var candidateSince = 0.0

    /// Creates a monitor in no place.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Takes in one scan's estimate and returns the events it causes: an exit and/or an enter on
    /// a change, then `current` while in a place.
    public mutating func observe(_ estimate: PlaceEstimate, at time: Double) -> [PlaceEvent] {
        let elapsed = lastTime.map { Swift.max(0, time - $0) } ?? 1
        if let lastTime, time < lastTime {
            // A clock that goes back: count the observation at the last time.
        } else {
            lastTime = time
        }
        let tau = Swift.max(configuration.timeConstant, 1e-9)
        let alpha = -expm1(-elapsed / tau)
        for key in Array(evidence.keys) {
            let decayed = (evidence[key] ?? 0) * (1 - alpha)
            evidence[key] = decayed < 1e-9 && key != currentPlace ? nil : decayed
        }
        evidence[estimate.place, default: 0] += alpha * estimate.probability

        var events: [PlaceEvent] = []
        let leader = leadingPlace()
        if leader != currentPlace, (evidence[leader] ?? 0) >= configuration.threshold {
            if candidate == .some(leader) {
                candidateScans += 1
            } else {
                candidate = .some(leader)
                candidateScans = 1
                candidateSince = time
            }
            let needed = Swift.max(2, configuration.requiredScans)
            if candidateScans >= needed || (candidateScans >= 2 && time - candidateSince >= configuration.requiredDuration) {
                events += switchPlace(to: leader, at: time)
            }
        } else {
            candidate = nil
            candidateScans = 0
        }
        if let currentPlace { events.append(PlaceEvent(.current, place: currentPlace, time: time)) }
        return events
    }

    /// Leaves the current place when nothing was observed for ``Configuration/exitTimeout``
    /// seconds before `time`; the exit is dated when it fell due.
    public mutating func advance(to time: Double) -> [PlaceEvent] {
        guard let lastTime, let currentPlace, time - lastTime >= configuration.exitTimeout else { return [] }
        let due = lastTime + configuration.exitTimeout
        reset()
        self.lastTime = lastTime
        return [PlaceEvent(.exit, place: currentPlace, time: due)]
    }

    /// Forgets the place and the evidence without reporting anything, so that the next place is
    /// entered afresh.
    public mutating func reset() {
        currentPlace = nil
        evidence = [:]
        lastTime = nil
        candidate = nil
        candidateScans = 0
    }

    private func leadingPlace() -> String? {
        var best: (place: String?, value: Double) = (currentPlace, evidence[currentPlace] ?? 0)
        for (place, value) in evidence where value > best.value
            || (value == best.value && place != currentPlace && best.place != currentPlace && (place ?? "") < (best.place ?? "")) {
            best = (place, value)
        }
        return best.place
    }

    private mutating func switchPlace(to place: String?, at time: Double) -> [PlaceEvent] {
        var events: [PlaceEvent] = []
        if let old = currentPlace { events.append(PlaceEvent(.exit, place: old, time: time)) }
        if let place { events.append(PlaceEvent(.enter, place: place, time: time)) }
        currentPlace = place
        candidate = nil
        candidateScans = 0
        return events
    }
}
