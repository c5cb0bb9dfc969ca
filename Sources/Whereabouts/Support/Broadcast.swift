/// The listeners of a stream of values: each subscriber gets an `AsyncStream` of every value
/// yielded from the moment it subscribed. An actor holds one and calls it from its own isolation;
/// the stream's end (its listener stopped, or the stream was dropped) removes the subscriber
/// through the closure given to ``subscribe(bufferingPolicy:onTermination:)``, which hops back
/// onto the actor.
///
/// ```swift
/// actor Clock {
///     private var ticks = Broadcast<Int>()
///     func updates() -> AsyncStream<Int> {
///         ticks.subscribe { [weak self] id in Task { await self?.unsubscribe(id) } }
///     }
///     func tick(_ n: Int) { ticks.yield(n) }
///     private func unsubscribe(_ id: Broadcast<Int>.SubscriberID) { ticks.remove(id) }
///     deinit { ticks.finishAll() }
/// }
/// ```
public struct Broadcast<Element: Sendable>: Sendable {
    /// Names one subscriber, for ``remove(_:)``.
    public typealias SubscriberID = Int

    private var continuations: [SubscriberID: AsyncStream<Element>.Continuation] = [:]
    private var nextID: SubscriberID = 0

    /// No subscribers.
    public init() {}

    /// How many subscribers there are.
    public var count: Int { continuations.count }

    /// Whether there is no subscriber (a value yielded now reaches no one).
    public var isEmpty: Bool { continuations.isEmpty }

    /// A new subscriber's stream. `onTermination` runs with its id when the stream ends (its
    /// listener stopped or dropped it); it should call ``remove(_:)`` on the owner's isolation.
    public mutating func subscribe(
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded,
        onTermination: @escaping @Sendable (SubscriberID) -> Void
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: bufferingPolicy)
        let id = nextID
        nextID += 1
        continuations[id] = continuation
        continuation.onTermination = { _ in onTermination(id) }
        return stream
    }

    /// Forgets a subscriber (its stream is not finished: it ended already, or ends on its own).
    public mutating func remove(_ id: SubscriberID) {
        continuations[id] = nil
    }

    /// Hands `element` to every subscriber; returns how many subscribers' buffers were full, so
    /// that their oldest (or the new) value was dropped, by their buffering policy.
    @discardableResult
    public func yield(_ element: Element) -> Int {
        var dropped = 0
        for continuation in continuations.values {
            if case .dropped = continuation.yield(element) { dropped += 1 }
        }
        return dropped
    }

    /// Ends every subscriber's stream and forgets them all.
    public mutating func finishAll() {
        for continuation in continuations.values { continuation.finish() }
        continuations = [:]
    }
}
