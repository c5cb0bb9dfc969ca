/// A long-lived ``PlaceRanking`` that tells listeners when the order changes: Hekaerge's object,
/// with its synchronous read and its `didChangeLocation` delegate, plus an `AsyncSequence`.
///
/// Feed it fixes (or, without a positioning engine, the beacons in range); it re-sorts and
/// notifies only when the order really changes or the position becomes known or unknown.
///
/// ```swift
/// let ranker = PlaceRanker(places: venue.places)
/// await ranker.setChangeHandler { update in print(update.places.map(\.place.id)) }   // the delegate
/// Task { for await update in await ranker.updates() { print(update.places.first?.place.id ?? "-") } }
/// await ranker.update(with: fix)
/// let now = await ranker.orderedPlaces                                                 // the synchronous read
/// ```
public actor PlaceRanker {
    /// What listeners receive: the new order with distances, and the position it was measured from.
    public struct Update: Hashable, Sendable {
        /// The places in ranked order (input order, with `nil` distances, when no position is known).
        public var places: [PlaceRanking.RankedPlace]
        /// The position, or `nil` when it became unknown.
        public var position: PlaceRanking.Position?
    }

    private var ranking: PlaceRanking
    private var changeHandler: (@Sendable (Update) -> Void)?
    private var listeners = Broadcast<Update>()

    /// Creates a ranker of `places`, in their order until a position is known; `changeHandler`,
    /// when given, runs after every change (as ``setChangeHandler(_:)`` would set it). With
    /// `frame`, circles given by latitude and longitude are ranked by great-circle distance (see
    /// ``PlaceRanking/init(places:frame:)``).
    public init(places: [Venue.Place], frame: LocalFrame? = nil, changeHandler: (@Sendable (Update) -> Void)? = nil) {
        ranking = PlaceRanking(places: places, frame: frame)
        self.changeHandler = changeHandler
    }

    /// The places in ranked order, or in input order when no position is known.
    public var orderedPlaces: [Venue.Place] { ranking.orderedPlaces }

    /// The places in ranked order with their distances.
    public var rankedPlaces: [PlaceRanking.RankedPlace] { ranking.rankedPlaces }

    /// The places in the order given.
    public var defaultPlaces: [Venue.Place] { ranking.places }

    /// The current position, if known.
    public var position: PlaceRanking.Position? { ranking.position }

    /// Sets (or, with `nil`, removes) the callback that runs after every change, on the ranker.
    public func setChangeHandler(_ handler: (@Sendable (Update) -> Void)?) {
        changeHandler = handler
    }

    /// A stream of the changes from now on; it ends when the ranker is gone or the listener stops.
    public func updates() -> AsyncStream<Update> {
        listeners.subscribe(bufferingPolicy: .bufferingNewest(64)) { [weak self] id in
            Task { await self?.removeListener(id) }
        }
    }

    /// Moves the position to a fix's and notifies when the order changed.
    @discardableResult
    public func update(with fix: Fix) -> Bool {
        update(position: PlaceRanking.Position(fix: fix))
    }

    /// Moves the position to the nearest beacon in range with a known place (see
    /// ``PlaceRanking/position(nearestOf:in:)``), or forgets it when there is none.
    @discardableResult
    public func update(nearestOf sightings: [PlaceRanking.HeardBeacon], in venue: Venue) -> Bool {
        update(position: PlaceRanking.position(nearestOf: sightings, in: venue))
    }

    /// Moves the position to the nearest beacon of a ranging round that has a known place (see
    /// ``PlaceRanking/position(nearestOf:in:)``), or forgets it when there is none.
    @discardableResult
    public func update(nearestOf round: [RangedBeacon], in venue: Venue) -> Bool {
        update(nearestOf: round.map(PlaceRanking.HeardBeacon.init), in: venue)
    }

    /// Ranks from a stream of fixes (a ``LocationEngine``'s) until it ends; then, as when
    /// scanning stops, the position is forgotten and the order is the input order again.
    public func follow<Fixes: AsyncSequence>(fixes: sending Fixes) async throws where Fixes.Element == Fix {
        do {
            for try await fix in fixes { update(with: fix) }
        } catch {
            update(position: nil)
            throw error
        }
        update(position: nil)
    }

    /// Moves (or forgets) the position; notifies and returns `true` when the order or the
    /// position's state changed.
    @discardableResult
    public func update(position: PlaceRanking.Position?) -> Bool {
        guard ranking.update(position: position) else { return false }
        let update = Update(places: ranking.rankedPlaces, position: ranking.position)
        changeHandler?(update)
        listeners.yield(update)
        return true
    }

    private func removeListener(_ id: Broadcast<Update>.SubscriberID) {
        listeners.remove(id)
    }

    deinit {
        listeners.finishAll()
    }
}
