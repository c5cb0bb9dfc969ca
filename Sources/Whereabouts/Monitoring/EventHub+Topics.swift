import Foundation

/// The Bluenet topic API: callbacks by topic name (``MonitoringEvent/topic``) for code ported
/// from Bluenet Localization, beside the typed ``events()`` stream.
extension EventHub {
    /// Calls `callback` with the payload of every event of `topic` (see ``MonitoringEvent`` for
    /// the names and payloads) until the returned closure is called. Unsubscribing takes effect at
    /// once: no event emitted after the call reaches the callback.
    ///
    /// ```swift
    /// let unsubscribe = await hub.on("enterRegion") { data in
    ///     if case .string(let referenceId) = data { print("entered", referenceId) }
    /// }
    /// unsubscribe()
    /// ```
    public func on(_ topic: String, _ callback: @escaping @Sendable (JSONValue) -> Void) -> @Sendable () -> Void {
        let subscription = Subscription(topic: topic, callback: callback)
        subscriptions.append(subscription)
        return { subscription.cancel() }
    }

    /// Hands `event`'s payload to every live subscription of its topic, in the order subscribed.
    func deliverToTopics(_ event: MonitoringEvent) {
        let topic = event.topic
        var payload: JSONValue?
        for subscription in subscriptions where subscription.topic == topic {
            if payload == nil { payload = event.payload }
            if let payload { subscription.deliver(payload) }
        }
    }

    /// A topic callback and whether it was unsubscribed; the flag is read and set under a lock so
    /// that unsubscribing from any thread takes effect at once.
    final class Subscription: @unchecked Sendable {
        let topic: String
        private let callback: @Sendable (JSONValue) -> Void
        private let lock = NSLock()
        private var cancelled = false

        init(topic: String, callback: @escaping @Sendable (JSONValue) -> Void) {
            self.topic = topic
            self.callback = callback
        }

        var isCancelled: Bool { lock.withLock { cancelled } }

        func cancel() { lock.withLock { cancelled = true } }

        func deliver(_ payload: JSONValue) {
            guard !isCancelled else { return }
            callback(payload)
        }
    }
}
