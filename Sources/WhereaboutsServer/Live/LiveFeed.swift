import Whereabouts

/// Hands each user's new and changed events to whoever is watching that user live (the `/live`
/// WebSocket, the map page), as they are stored.
///
/// The event routes call ``publish(_:for:)`` after every successful create or update; a watcher
/// calls ``subscribe(to:)`` and iterates the stream it gets. Ending the iteration (or cancelling
/// the task that iterates) unsubscribes.
///
/// Buffering is bounded: each subscriber has room for ``bufferSize`` events that it has not read
/// yet. When a subscriber falls further behind (a slow WebSocket client), the **oldest** unread
/// events are dropped to make room for new ones, so a slow client costs a fixed amount of memory
/// and always sees the newest positions; ``droppedEventCount`` counts what was dropped.
///
/// ```swift
/// let feed = LiveFeed()
/// let events = await feed.subscribe(to: "alice")
/// Task { for await event in events { print(event.id) } }
/// await feed.publish([event], for: "alice")
/// ```
public actor LiveFeed {
    /// How many unread events each subscriber may have before the oldest are dropped.
    public nonisolated let bufferSize: Int
    private var subscribers: [String: Broadcast<Event>] = [:]
    /// How many events were dropped, over all subscribers, because a subscriber was too slow.
    public private(set) var droppedEventCount = 0

    /// Creates a feed with no subscribers; each subscriber buffers up to `bufferSize` unread
    /// events (at least 1).
    public init(bufferSize: Int = 256) {
        self.bufferSize = max(1, bufferSize)
    }

    /// Hands `events` to every current subscriber of `userName`, in order. Never waits for a
    /// subscriber: a full buffer drops its oldest event instead.
    public func publish(_ events: [Event], for userName: String) {
        guard let listeners = subscribers[userName], !events.isEmpty else { return }
        for event in events { droppedEventCount += listeners.yield(event) }
    }

    /// A stream of the events published for `userName` from now on. The subscription ends when
    /// the iterating task is cancelled or the stream is discarded.
    public func subscribe(to userName: String) -> AsyncStream<Event> {
        subscribers[userName, default: Broadcast()].subscribe(bufferingPolicy: .bufferingNewest(bufferSize)) { [weak self] id in
            guard let self else { return }
            Task { await self.unsubscribe(id, from: userName) }
        }
    }

    /// How many subscribers are watching `userName`.
    public func subscriberCount(for userName: String) -> Int {
        subscribers[userName]?.count ?? 0
    }

    private func unsubscribe(_ id: Broadcast<Event>.SubscriberID, from userName: String) {
        subscribers[userName]?.remove(id)
        if subscribers[userName]?.isEmpty == true { subscribers[userName] = nil }
    }
}
