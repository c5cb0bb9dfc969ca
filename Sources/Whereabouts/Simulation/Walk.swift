/// A person's walk through a venue: waypoints visited in order at a constant speed, with an
/// optional pause (dwell) at each — the path a ``Simulator`` moves its receiver along.
///
/// The walk starts at the first waypoint at ``start``, dwells there, walks in a straight line to
/// the next waypoint, dwells there, and so on; it ends when the dwell at the last waypoint ends.
/// A floor change between two consecutive waypoints happens on arrival at the second one: the
/// segment between them is walked on the first one's floor (think of the second waypoint as the
/// top of the stairs).
///
/// ```swift
/// let walk = Walk(waypoints: [Walk.Waypoint(x: 0, y: 0, dwell: 10),
///                             Walk.Waypoint(x: 12, y: 0, floor: 1)],
///                 speed: 1.2, start: 1_700_000_000, device: "visitor")
/// walk.duration                       // 20: 10 s dwell + 12 m at 1.2 m/s
/// walk.position(atOffset: 15).x       // 6: halfway along the segment
/// ```
public struct Walk: Hashable, Sendable {
    /// A point the walk passes through.
    public struct Waypoint: Hashable, Sendable {
        /// East coordinate in venue units.
        public var x: Double
        /// North coordinate in venue units.
        public var y: Double
        /// Floor level (a `floors[].level` of the venue) from the arrival at this waypoint on.
        public var floor: Int
        /// Seconds spent standing at this waypoint before walking on (0 for none).
        public var dwell: Double

        /// Creates a waypoint.
        public init(x: Double, y: Double, floor: Int = 0, dwell: Double = 0) {
            self.x = x
            self.y = y
            self.floor = floor
            self.dwell = dwell
        }

        /// The waypoint on the plan.
        public var point: PlanarPoint { PlanarPoint(x: x, y: y) }
    }

    /// Where the walker is at some moment.
    public struct Position: Hashable, Sendable {
        /// East coordinate in venue units.
        public var x: Double
        /// North coordinate in venue units.
        public var y: Double
        /// Floor level.
        public var floor: Int

        /// Creates a position.
        public init(x: Double, y: Double, floor: Int) {
            self.x = x
            self.y = y
            self.floor = floor
        }

        /// The position on the plan.
        public var point: PlanarPoint { PlanarPoint(x: x, y: y) }
    }

    /// The waypoints in the order they are visited; a walk needs at least one.
    public var waypoints: [Waypoint]
    /// Walking speed in venue units per second (metres per second in a metric venue; default 1.2).
    public var speed: Double
    /// The time of the first scan, in seconds (since 1970 for realistic recordings).
    public var start: Double
    /// The `device` name the simulated scans carry, if any.
    public var device: String?
    /// The `track` name the simulated scans carry, if any.
    public var track: String?

    /// The usual walking speed: 1.2 m/s.
    public static let defaultSpeed = 1.2

    /// Creates a walk.
    public init(waypoints: [Waypoint], speed: Double = Walk.defaultSpeed, start: Double = 0,
                device: String? = nil, track: String? = nil) {
        self.waypoints = waypoints
        self.speed = speed
        self.start = start
        self.device = device
        self.track = track
    }

    /// Seconds from the start to the end of the last dwell.
    public var duration: Double { Schedule(self).duration }

    /// Where the walker is `offset` seconds after ``start``.
    ///
    /// Before the start the walker is at the first waypoint, after the end at the last; a walk
    /// with no waypoints stays at (0, 0) on floor 0.
    public func position(atOffset offset: Double) -> Position {
        var cursor = 0
        return Schedule(self).position(atOffset: offset, cursor: &cursor)
    }
}

extension Walk {
    /// The walk's timeline: when each waypoint is reached and left. Built once per simulation so
    /// that a long walk is followed with a moving cursor instead of a search per scan.
    struct Schedule: Sendable {
        /// Per waypoint: the offset at which the walker arrives and the offset at which it leaves.
        private var arrivals: [Double] = []
        private var departures: [Double] = []
        private let waypoints: [Waypoint]
        let duration: Double

        init(_ walk: Walk) {
            waypoints = walk.waypoints
            var time = 0.0
            for (index, waypoint) in walk.waypoints.enumerated() {
                if index > 0 {
                    let length = walk.waypoints[index - 1].point.distance(to: waypoint.point)
                    if length > 0 { time += length / walk.speed }
                }
                arrivals.append(time)
                time += max(0, waypoint.dwell)
                departures.append(time)
            }
            duration = time
        }

        /// The position at `offset`. `cursor` remembers the last waypoint reached, so that
        /// increasing offsets cost O(1) each; any value is accepted (it resets when out of date).
        func position(atOffset offset: Double, cursor: inout Int) -> Position {
            guard let first = waypoints.first else { return Position(x: 0, y: 0, floor: 0) }
            guard offset > 0 else { return Position(x: first.x, y: first.y, floor: first.floor) }
            if cursor >= waypoints.count || arrivals[cursor] > offset { cursor = 0 }
            while cursor + 1 < waypoints.count, arrivals[cursor + 1] <= offset { cursor += 1 }
            let here = waypoints[cursor]
            guard offset > departures[cursor], cursor + 1 < waypoints.count else {
                return Position(x: here.x, y: here.y, floor: here.floor)
            }
            // On the segment from `here` to the next waypoint, still on `here`'s floor.
            let next = waypoints[cursor + 1]
            let span = arrivals[cursor + 1] - departures[cursor]
            let fraction = span > 0 ? (offset - departures[cursor]) / span : 1
            return Position(x: here.x + (next.x - here.x) * fraction,
                            y: here.y + (next.y - here.y) * fraction,
                            floor: here.floor)
        }
    }
}
