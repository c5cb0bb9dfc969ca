import Foundation

/// The subscriptions of an ``EventHub``: Bluenet's topic callbacks (``on(_:_:)``, by topic name,
/// with JSON payloads) and typed ones (``subscribe(_:)``), both synchronous calls that any
/// thread may make, beside the ``events()`` stream.
extension EventHub {
    /// Calls `callback` with the payload of every event of `topic` (see ``MonitoringEvent`` for
    /// the names and payloads) until the returned closure is called. Subscribing and
    /// unsubscribing take effect at once: no event emitted after the call is missed, and none
    /// emitted after unsubscribing reaches the callback. Callbacks run on the hub, in the order
    /// of the events; they must not block.
    ///
    /// ```swift
    /// let unsubscribe = hub.on("enterRegion") { data in
    ///     if case .string(let referenceId) = data { print("entered", referenceId) }
    /// }
    /// unsubscribe()
    /// ```
    public nonisolated func on(_ topic: String, _ callback: @escaping @Sendable (JSONValue) -> Void) -> @Sendable () -> Void {
        subscriptions.add(Subscription(topic: topic) { event in callback(event.payload) })
    }

    /// Calls `handler` with every event, typed, until the returned closure is called; see
    /// ``on(_:_:)`` for when it takes effect.
    ///
    /// ```swift
    /// let stop = hub.subscribe { event in
    ///     if case .enterLocation(_, let location) = event.kind { print("in", location) }
    /// }
    /// ```
    public nonisolated func subscribe(_ handler: @escaping @Sendable (MonitoringEvent) -> Void) -> @Sendable () -> Void {
        subscriptions.add(Subscription(topic: nil, callback: handler))
    }

    /// One callback, for one topic or every event, and whether it was unsubscribed.
    final class Subscription: @unchecked Sendable {
        let topic: String?
        private let callback: @Sendable (MonitoringEvent) -> Void
        private let lock = NSLock()
        private var cancelled = false

        init(topic: String?, callback: @escaping @Sendable (MonitoringEvent) -> Void) {
            self.topic = topic
            self.callback = callback
        }

        var isCancelled: Bool { lock.withLock { cancelled } }

        func cancel() { lock.withLock { cancelled = true } }

        func deliver(_ event: MonitoringEvent) {
            guard !isCancelled else { return }
            callback(event)
        }
    }

    /// The live subscriptions, in the order subscribed, under a lock (subscribing is synchronous
    /// and may happen on any thread; delivering happens on the hub).
    final class Subscriptions: @unchecked Sendable {
        /// The most subscriptions kept; beyond it the oldest are dropped (a bound against a
        /// caller that subscribes in a loop and never unsubscribes).
        static let maximumCount = 10_000
        private let lock = NSLock()
        private var list: [Subscription] = []

        func add(_ subscription: Subscription) -> @Sendable () -> Void {
            lock.withLock {
                list.removeAll { $0.isCancelled }
                if list.count >= Self.maximumCount { list.removeFirst(list.count - Self.maximumCount + 1) }
                list.append(subscription)
            }
            return { subscription.cancel() }
        }

        /// Hands `event` to every live subscription of its topic and every typed one, in order.
        func deliver(_ event: MonitoringEvent) {
            let current = lock.withLock { list }
            guard !current.isEmpty else { return }
            let topic = event.topic
            for subscription in current where subscription.topic == nil || subscription.topic == topic {
                subscription.deliver(event)
            }
        }
    }
}
