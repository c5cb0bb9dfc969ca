import Whereabouts

/// Applies an ``AcceptancePolicy`` to a stream of fixes, device by device, and makes the events
/// the accepted fixes become.
///
/// It holds, for each device, the last accepted event (``LastEvent``): where it is, when it
/// began and how long it has lasted. It is a value: a ``Tracker`` keeps it, and writes its
/// ``lastEvents`` to the outbox with every change so that a restart carries on where it stopped.
///
/// ```swift
/// var acceptor = FixAcceptor(policy: AcceptancePolicy(), streamIds: ["position"])
/// switch acceptor.decide(fix) {
/// case .accepted(let event): print("new event", event.id)
/// case .extended(let id, let duration): print(id, "now lasts", duration, "s")
/// case .ignored(let reason): print("ignored:", reason)
/// }
/// ```
public struct FixAcceptor: Sendable {
    /// The last accepted event of one device, as the policy needs it.
    public struct LastEvent: Hashable, Sendable, Codable {
        /// The event's id.
        public var id: String
        /// The time of the fix that began it (fix time, not server time).
        public var start: Double
        /// Its duration so far, seconds.
        public var duration: Double
        /// Where it is: latitude and longitude when the fix had them.
        public var latitude: Double?
        /// See ``latitude``.
        public var longitude: Double?
        /// Where it is in venue units.
        public var x: Double
        /// See ``x``.
        public var y: Double
        /// Its floor, when known.
        public var floor: Int?

        /// The end of the time it covers.
        public var end: Double { start + duration }
    }

    /// The rules.
    public var policy: AcceptancePolicy
    /// How many metres a venue unit measures (1 for metres; the venue's units otherwise).
    public var metresPerUnit: Double
    /// The streams new position events go to.
    public var streamIds: [String]
    /// Added to a fix's time to give its event's time (the offset from the fixes' clock to the
    /// server's).
    public var timeShift: Double
    /// Makes the new events' ids.
    public var identifiers: EventIdentifiers
    /// The most devices whose last event is kept; beyond, the device whose event ended longest
    /// ago is forgotten (its next fix starts a new event).
    public var maximumDevices: Int
    /// Each device's last accepted event (the key is the device, `""` for fixes without one).
    public var lastEvents: [String: LastEvent]

    /// Creates an acceptor with no events yet.
    public init(policy: AcceptancePolicy = AcceptancePolicy(), metresPerUnit: Double = 1, streamIds: [String] = ["position"],
                timeShift: Double = 0, identifiers: EventIdentifiers = .random, maximumDevices: Int = 10_000,
                lastEvents: [String: LastEvent] = [:]) {
        self.policy = policy
        self.metresPerUnit = metresPerUnit
        self.streamIds = streamIds
        self.timeShift = timeShift
        self.identifiers = identifiers
        self.maximumDevices = max(1, maximumDevices)
        self.lastEvents = lastEvents
    }

    /// Decides what `fix` becomes, and remembers it.
    ///
    /// - Parameters:
    ///   - fix: The fix to decide.
    ///   - eventId: The id of the event the fix begins, if it is accepted (by default one of
    ///     ``identifiers``): the id a caller already promised, such as a Pryv client's event id.
    public mutating func decide(_ fix: Fix, eventId: String? = nil) -> AcceptanceDecision {
        let key = fix.device ?? ""
        if policy.ignoresNullPosition {
            let isNull = fix.coordinate.map { $0.latitude == 0 && $0.longitude == 0 } ?? (fix.point.x == 0 && fix.point.y == 0)
            if isNull { return .ignored(.nullPosition) }
        }
        let accuracy = fix.accuracy * metresPerUnit
        guard accuracy >= 0 else { return .ignored(.invalidAccuracy(fix.accuracy)) }
        guard accuracy <= policy.maximumAccuracy else {
            return .ignored(.inaccurate(accuracy: accuracy, maximum: policy.maximumAccuracy))
        }
        if var last = lastEvents[key] {
            guard fix.time > last.end else { return .ignored(.notLater(time: fix.time, covered: last.end)) }
            if isAtEvent(fix, last, accuracy: accuracy) {
                last.duration = fix.time - last.start
                lastEvents[key] = last
                return .extended(eventId: last.id, duration: last.duration)
            }
            let elapsed = fix.time - last.start
            guard elapsed >= policy.minimumInterval else {
                return .ignored(.tooSoon(elapsed: elapsed, minimum: policy.minimumInterval))
            }
        }
        let event = makeEvent(for: fix, id: eventId)
        if lastEvents[key] == nil, lastEvents.count >= maximumDevices, let oldest = lastEvents.min(by: { $0.value.end < $1.value.end }) {
            lastEvents[oldest.key] = nil
        }
        lastEvents[key] = LastEvent(id: event.id, start: fix.time, duration: 0, latitude: fix.coordinate?.latitude,
                                    longitude: fix.coordinate?.longitude, x: fix.point.x, y: fix.point.y, floor: fix.floor)
        return .accepted(event)
    }

    /// Whether `fix` lies within its accuracy plus the minimum distance of `last`, on its floor.
    private func isAtEvent(_ fix: Fix, _ last: LastEvent, accuracy: Double) -> Bool {
        if let floor = fix.floor, let lastFloor = last.floor, floor != lastFloor { return false }
        let distance: Double
        if let coordinate = fix.coordinate, let latitude = last.latitude, let longitude = last.longitude {
            distance = coordinate.distance(to: GeoCoordinate(latitude: latitude, longitude: longitude))
        } else {
            let dx = fix.point.x - last.x, dy = fix.point.y - last.y
            distance = (dx * dx + dy * dy).squareRoot() * metresPerUnit
        }
        return distance <= accuracy + policy.minimumDistance
    }

    /// The event a newly accepted fix becomes: `position/wgs84` when it has latitude and
    /// longitude, `position/local` (x, y in venue units) otherwise.
    private mutating func makeEvent(for fix: Fix, id given: String?) -> TrackedEvent {
        let time = fix.time + timeShift
        let id = given ?? identifiers.next(now: time)
        return TrackedEvent(position: fix, id: id, streamIds: streamIds, time: time, metresPerUnit: metresPerUnit)
    }
}
