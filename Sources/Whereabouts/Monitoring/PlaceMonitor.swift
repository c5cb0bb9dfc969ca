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
/// A scan *votes* for the place its estimate names (or for "no place") when the estimate's
/// probability is at least ``Configuration/minimumProbability``; less sure scans are neutral.
/// A place other than the current one takes over when it wins ``Configuration/requiredScans``
/// consecutive votes, or at least two consecutive votes spanning
/// ``Configuration/requiredDuration`` seconds (for slow scanners); a vote for the current place
/// starts the count again. ``Configuration/firstAnswer`` turns the hysteresis off: every estimate
/// votes and the first vote switches, as Bluenet Localization switched on its classifier's answer.
/// An estimate that is a belief over the track already (``PlaceEstimate/isBelief``: the
/// posterior's mass in each room that `--algorithm posterior`'s fixes carry, or a
/// ``PlaceBelief``'s) is not voted on again: its place takes over as soon as it holds
/// ``Configuration/beliefMajority`` (half) of it, and a belief holding no room by half leaves the
/// current one as it is. Time is the scans' clock, so replays are deterministic. On a change
/// the exit of the old place comes before the enter of the new one; while in a place, every
/// observation also reports it as current.
///
/// With the defaults (3 votes, 3 s, probability 0.6) a device scanning once a second is reported
/// in a new place 2 s after its estimates turn; on the package's simulated two-room walk (see
/// the tests), that is about 4 s after the device really crossed the wall, while ten minutes
/// standing by that wall give no flip.
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
        /// Consecutive votes a new place must win; default 3; 1 switches on the first vote.
        public var requiredScans: Int
        /// Seconds over which two or more consecutive votes also suffice, for slow scanners; default 3.
        public var requiredDuration: Double
        /// The probability an estimate needs to vote; default 0.6.
        public var minimumProbability: Double
        /// Seconds without any observation after which ``PlaceMonitor/advance(to:)`` leaves the
        /// current place; default 30.
        public var exitTimeout: Double
        /// The probability a belief (``PlaceEstimate/isBelief``: a probabilistic tracker's mass
        /// in the place, a ``PlaceBelief``'s) needs to switch to its place at once, without
        /// votes; default 0.5, the majority. A belief votes from the lower of this and
        /// ``minimumProbability``. Measured on the three-room fixture (Fixtures/three-rooms,
        /// seeds 1–5) with `--algorithm posterior`: following its majority at once, the monitor
        /// is right for 89–92 % of the scans with the walk's 6 changes; with the votes (3 at 0.6)
        /// 77–79 % with 3–4, 2 votes at 0.5 84–86 %, 1 at 0.6 85–88 %.
        public var beliefMajority: Double

        /// Creates settings.
        public init(requiredScans: Int = 3, requiredDuration: Double = 3, minimumProbability: Double = 0.6,
                    exitTimeout: Double = 30, beliefMajority: Double = 0.5) {
            self.requiredScans = requiredScans
            self.requiredDuration = requiredDuration
            self.minimumProbability = minimumProbability
            self.exitTimeout = exitTimeout
            self.beliefMajority = beliefMajority
        }

        /// The probability `estimate` needs to vote: ``minimumProbability``, or for a belief
        /// the lower of it and ``beliefMajority``.
        public func votingProbability(for estimate: PlaceEstimate) -> Double {
            estimate.isBelief ? Swift.min(minimumProbability, beliefMajority) : minimumProbability
        }

        /// For estimates from a ``PlaceBelief``, which carries its own hysteresis: the room a
        /// belief's majority holds (probability 0.5) takes over at once — as every configuration
        /// takes an estimate marked ``PlaceEstimate/isBelief``; this one takes any estimate so.
        public static var followingBelief: Configuration {
            Configuration(requiredScans: 1, requiredDuration: 0, minimumProbability: 0.5)
        }

        /// No hysteresis: every estimate votes, whatever its probability, and the first vote for
        /// another place switches to it (Bluenet Localization's rooms, which followed the
        /// classifier's answer of each second); exits after 30 s without an observation.
        public static let firstAnswer = Configuration(requiredScans: 1, requiredDuration: 0, minimumProbability: 0)
    }

    /// A change of place and the rule that made it: what `whereabouts watch --why` tells.
    public struct Change: Hashable, Sendable {
        /// The rule that made a change.
        public enum Rule: Hashable, Sendable {
            /// The new place (or no place) won `count` consecutive votes, the first at
            /// `firstVote` (seconds on the scans' clock), each from an estimate at least
            /// ``Configuration/minimumProbability`` sure.
            case votes(count: Int, firstVote: Double)
            /// A belief (``PlaceEstimate/isBelief``) held `probability` of the new place, at
            /// least ``Configuration/beliefMajority``.
            case belief(probability: Double)
            /// Nothing was observed for ``Configuration/exitTimeout`` seconds after
            /// `lastObservation`.
            case timeout(lastObservation: Double)
        }

        /// When, seconds on the scans' clock.
        public var time: Double
        /// The place left, or `nil` when the device was in none.
        public var from: String?
        /// The place entered, or `nil` for none.
        public var to: String?
        /// Why.
        public var rule: Rule

        /// Creates a change.
        public init(time: Double, from: String?, to: String?, rule: Rule) {
            self.time = time
            self.from = from
            self.to = to
            self.rule = rule
        }
    }

    /// The settings.
    public var configuration: Configuration
    /// The place the device is in, or `nil` for none (or not yet known).
    public private(set) var currentPlace: String?
    /// The latest change of place, with its rule; `nil` before the first.
    public private(set) var lastChange: Change?
    /// The place winning votes against the current one (`.some(nil)`: no place), if any.
    public private(set) var candidate: String??
    /// How many consecutive votes ``candidate`` has won.
    public private(set) var candidateVotes = 0

    private var candidateSince = 0.0
    private var lastTime: Double?

    /// Creates a monitor in no place.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Takes in one scan's estimate and returns the events it causes: an exit and/or an enter on
    /// a change, then `current` while in a place.
    public mutating func observe(_ estimate: PlaceEstimate, at time: Double) -> [PlaceEvent] {
        lastTime = Swift.max(lastTime ?? time, time)
        var events: [PlaceEvent] = []
        if estimate.probability >= configuration.votingProbability(for: estimate) {
            if estimate.place == currentPlace {
                candidate = nil
                candidateVotes = 0
            } else if candidate == .some(estimate.place) {
                candidateVotes += 1
            } else {
                candidate = .some(estimate.place)
                candidateVotes = 1
                candidateSince = time
            }
            if let next = candidate, estimate.isBelief || candidateVotes >= Swift.max(1, configuration.requiredScans)
                || (candidateVotes >= 2 && time - candidateSince >= configuration.requiredDuration) {
                let rule: Change.Rule = estimate.isBelief ? .belief(probability: estimate.probability)
                    : .votes(count: candidateVotes, firstVote: candidateSince)
                events += switchPlace(to: next, at: time, rule: rule)
            }
        }
        if let currentPlace { events.append(PlaceEvent(.current, place: currentPlace, time: time)) }
        return events
    }

    /// When the current place is left without another observation (the last one plus
    /// ``Configuration/exitTimeout``), or `nil` when the device is in no place.
    public var nextExitTime: Double? {
        guard currentPlace != nil, let lastTime else { return nil }
        return lastTime + configuration.exitTimeout
    }

    /// Leaves the current place when nothing was observed for ``Configuration/exitTimeout``
    /// seconds before `time`; the exit is dated when it fell due.
    public mutating func advance(to time: Double) -> [PlaceEvent] {
        guard let lastTime, let currentPlace, time >= lastTime + configuration.exitTimeout else { return [] }
        reset()
        let exit = lastTime + configuration.exitTimeout
        lastChange = Change(time: exit, from: currentPlace, to: nil, rule: .timeout(lastObservation: lastTime))
        return [PlaceEvent(.exit, place: currentPlace, time: exit)]
    }

    /// Forgets the place and the votes without reporting anything, so that the next place is
    /// entered afresh.
    public mutating func reset() {
        currentPlace = nil
        candidate = nil
        candidateVotes = 0
        lastTime = nil
    }

    private mutating func switchPlace(to place: String?, at time: Double, rule: Change.Rule) -> [PlaceEvent] {
        lastChange = Change(time: time, from: currentPlace, to: place, rule: rule)
        var events: [PlaceEvent] = []
        if let old = currentPlace { events.append(PlaceEvent(.exit, place: old, time: time)) }
        if let place { events.append(PlaceEvent(.enter, place: place, time: time)) }
        currentPlace = place
        candidate = nil
        candidateVotes = 0
        return events
    }
}
