import Foundation

/// Chooses the floor of each observation of one device from the beacons it hears, with hysteresis
/// so that a stray packet from another floor never moves the device there.
///
/// **Evidence.** Each floor scores the summed linear power of its
/// ``Configuration/beaconCount`` strongest beacons, each beacon's RSSI taken relative to its own
/// power at 1 m (so a loud beacon far away does not outweigh a quiet one nearby):
///
/// ```
/// score(f) = 10·log10 Σ 10^((rssi_i − txPower_i)/10)   over the strongest beacons i of floor f
/// ```
///
/// The best floor is the one with the highest score.
///
/// **Hysteresis.** The first observation with a beacon takes its best floor at once. After that,
/// another floor *wins* an observation when its score beats the current floor's by at least
/// ``Configuration/hysteresis`` dB. The selection moves to it when
/// - it has won ``Configuration/confirmations`` consecutive observations spanning at least
///   ``Configuration/confirmationTime`` seconds (both, so that the rule holds on one-second
///   ranging scans and on single-packet streams alike: a packet stays in the observations for
///   the locator's beacon timeout, so counting observations alone is not enough), or
/// - it wins by ``Configuration/switchMargin`` dB or more with at least two of its beacons heard
///   (a real change seen by several beacons at once; one beacon alone never qualifies), or
/// - the current floor is not heard at all any more (no beacon of it in the observation).
///
/// A venue whose beacons are all on one floor always gets that floor, without any work.
///
/// ```swift
/// var selector = FloorSelector(venue: venue)
/// var observation = locator.observe(scan)
/// observation.floor = selector.select(observation)
/// ```
public struct FloorSelector: Sendable {
    /// The parameters of a ``FloorSelector``.
    public struct Configuration: Hashable, Sendable {
        /// How many of each floor's strongest beacons make its score. Default 3.
        public var beaconCount: Int
        /// How many dB another floor must beat the current one by to count as winning. Default 3 dB.
        public var hysteresis: Double
        /// How many consecutive observations a new floor must win. Default 3.
        public var confirmations: Int
        /// How long, in seconds, a new floor must keep winning (from its first win of the run to
        /// the switch). Default 2 s: three one-second ranging scans, or a couple of seconds of a
        /// single-packet stream; short next to a staircase.
        public var confirmationTime: Double
        /// A lead, in dB, at which a new floor heard by two beacons or more wins at once.
        /// Default 15 dB, about the attenuation of one concrete floor slab.
        public var switchMargin: Double

        /// Creates a configuration; the defaults are documented on each property.
        public init(beaconCount: Int = 3, hysteresis: Double = 3, confirmations: Int = 3,
                    confirmationTime: Double = 2, switchMargin: Double = 15) {
            self.beaconCount = beaconCount
            self.hysteresis = hysteresis
            self.confirmations = confirmations
            self.confirmationTime = confirmationTime
            self.switchMargin = switchMargin
        }
    }

    /// One floor's evidence in an observation.
    public struct Score: Hashable, Sendable {
        /// The floor level.
        public var floor: Int
        /// The score, dB (see ``FloorSelector``).
        public var score: Double
        /// How many of the floor's beacons made the score.
        public var beaconCount: Int

        /// Creates a score.
        public init(floor: Int, score: Double, beaconCount: Int) {
            self.floor = floor
            self.score = score
            self.beaconCount = beaconCount
        }
    }

    /// The venue.
    public let venue: PositioningVenue
    /// The parameters.
    public let configuration: Configuration
    /// The only floor of a single-floor venue, `nil` when the venue has several.
    public let onlyFloor: Int?
    /// The floor chosen by the latest observation, `nil` before the first observation with a beacon.
    public private(set) var floor: Int?

    private var candidate: Int?
    private var candidateWins = 0
    private var candidateSince = 0.0

    /// Creates a selector for one device in `venue`.
    public init(venue: PositioningVenue, configuration: Configuration = Configuration()) {
        self.venue = venue
        self.configuration = configuration
        let levels = Set(venue.floors)
        onlyFloor = levels.count <= 1 ? (levels.first ?? 0) : nil
    }

    /// Takes `floor` as the current floor, known from elsewhere (a beacon at a known spot): the
    /// scans that follow switch away from it as from any chosen floor.
    public mutating func settle(on floor: Int) {
        self.floor = floor
        clearCandidate()
    }

    /// Forgets the current floor (a new track starts).
    public mutating func reset() {
        floor = nil
        clearCandidate()
    }

    /// The scores of the floors heard in `observation`, best first (ties: lower level first).
    public func scores(_ observation: Observation) -> [Score] {
        let perFloor = max(1, configuration.beaconCount)
        var sums: [Int: (power: Double, count: Int)] = [:]
        var relative: [(floor: Int, level: Double)] = []
        relative.reserveCapacity(observation.signals.count)
        for signal in observation.signals {
            let index = signal.beaconIndex
            guard index >= 0, index < venue.floors.count, signal.rssi.isFinite else { continue }
            let level = signal.rssi - venue.txPowers[index]
            guard level.isFinite else { continue }
            relative.append((venue.floors[index], level))
        }
        relative.sort { $0.level > $1.level }
        for entry in relative {
            var sum = sums[entry.floor] ?? (0, 0)
            guard sum.count < perFloor else { continue }
            // Powers in dB relative to 1 m are at most a few tens of dB above zero, so 10^(x/10) stays finite.
            sum.power += pow10(min(entry.level, 100) / 10)
            sum.count += 1
            sums[entry.floor] = sum
        }
        return sums.map { Score(floor: $0.key, score: 10 * log10(max($0.value.power, .leastNormalMagnitude)),
                                beaconCount: $0.value.count) }
            .sorted { $0.score != $1.score ? $0.score > $1.score : $0.floor < $1.floor }
    }

    /// Takes in an observation and returns the floor chosen for it (the current floor when the
    /// observation holds no venue beacon, `nil` when no floor was ever chosen).
    public mutating func select(_ observation: Observation) -> Int? {
        if let onlyFloor {
            floor = onlyFloor
            return onlyFloor
        }
        let scores = scores(observation)
        guard let best = scores.first else { return floor }
        guard let current = floor else {
            floor = best.floor
            return best.floor
        }
        guard best.floor != current else {
            clearCandidate()
            return current
        }
        guard let currentScore = scores.first(where: { $0.floor == current }) else {
            // Nothing of the current floor is heard any more.
            switchTo(best.floor)
            return best.floor
        }
        let lead = best.score - currentScore.score
        guard lead >= configuration.hysteresis else {
            clearCandidate()
            return current
        }
        if lead >= configuration.switchMargin, best.beaconCount >= 2 {
            switchTo(best.floor)
            return best.floor
        }
        if candidate == best.floor, observation.time >= candidateSince {
            candidateWins += 1
        } else {
            candidate = best.floor
            candidateWins = 1
            candidateSince = observation.time
        }
        if candidateWins >= configuration.confirmations,
           observation.time - candidateSince >= configuration.confirmationTime {
            switchTo(best.floor)
        }
        return floor
    }

    private mutating func switchTo(_ level: Int) {
        floor = level
        clearCandidate()
    }

    private mutating func clearCandidate() {
        candidate = nil
        candidateWins = 0
        candidateSince = 0
    }
}
