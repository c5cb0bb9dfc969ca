import Foundation
import Whereabouts

/// One change the outbox keeps until the server has it.
public enum OutboxChange: Sendable {
    /// A new event. `attachment` is a file to send with it (a picture): the outbox copies it into
    /// its own folder before it acknowledges the change.
    case create(TrackedEvent, attachment: URL? = nil)
    /// An event's new duration. When the event itself is still in the outbox, the duration is
    /// folded into it: the server receives one create with the final duration.
    case updateDuration(eventId: String, duration: Double)
}

/// What a source of fixes had reached when the outbox last changed: kept in the same
/// transaction as the changes, so that a restarted ``Tracker`` carries on exactly where the
/// durable state stops.
public struct OutboxCheckpoint: Hashable, Sendable {
    /// Names the source (e.g. `recording:/path/walk.jsonl`).
    public var source: String
    /// The tracker's state, opaque to the outbox.
    public var state: [UInt8]
    /// Whether the source has ended (a replay that ran to its end).
    public var finished: Bool

    /// Creates a checkpoint.
    public init(source: String, state: [UInt8], finished: Bool = false) {
        self.source = source
        self.state = state
        self.finished = finished
    }
}

/// One item waiting in the outbox, as the sender reads it.
public struct OutboxItem: Hashable, Sendable {
    /// Whether the item creates an event or updates one.
    public enum Kind: String, Hashable, Sendable {
        /// `events.create`.
        case create
        /// `events.update` of the duration.
        case update
    }

    /// The item's place in the queue: items are delivered in this order.
    public var sequence: Int64
    /// Create or update.
    public var kind: Kind
    /// The event's id.
    public var eventId: String
    /// For a create: the event's JSON without its `duration` member.
    public var body: [UInt8]
    /// The event's duration (the create's, or the update's new one).
    public var duration: Double
    /// A file sent with a create (the server lists it among the event's attachments).
    public struct File: Hashable, Sendable {
        /// Where the outbox keeps the file.
        public var path: String
        /// The file's name, as the server will list it.
        public var fileName: String
    }

    /// For a create with a file: where the outbox keeps it.
    public var attachment: File?
    /// Changes whenever a later update is folded into the item.
    public var revision: Int64
    /// How many times delivery of this item has been tried.
    public var attempts: Int
    /// When the item was queued, seconds since 1970 (local clock).
    public var queuedAt: Double

    /// The item's call in the server's batch form (`{"method", "params"}`).
    public var batchCall: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count + 64)
        switch kind {
        case .create:
            out += Array(#"{"method":"events.create","params":{"duration":"#.utf8)
            JSONWriter.appendNumber(duration, to: &out)
            if body.count > 2 {
                out.append(UInt8(ascii: ","))
                out += body.dropFirst()
            } else {
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "}"))
        case .update:
            out += Array(#"{"method":"events.update","params":{"id":"#.utf8)
            JSONWriter.appendString(eventId, to: &out)
            out += Array(#","update":{"duration":"#.utf8)
            JSONWriter.appendNumber(duration, to: &out)
            out += Array("}}}".utf8)
        }
        return out
    }
}

/// Why the server refused an item for good: kept in the outbox with the item, which waits there
/// (not delivered, not dropped) until `whereabouts sync --retry-failed` or `--discard-failed`.
public struct OutboxFailure: Hashable, Sendable {
    /// The item.
    public var sequence: Int64
    /// The event's id.
    public var eventId: String
    /// Create or update.
    public var kind: OutboxItem.Kind
    /// The server's error id (`invalid-parameters-format`, `forbidden`, …).
    public var errorId: String
    /// The server's message.
    public var message: String
    /// When the server refused it, seconds since 1970.
    public var failedAt: Double
}

/// What the outbox holds.
public struct OutboxStatus: Hashable, Sendable {
    /// Creates waiting to be delivered.
    public var pendingCreates: Int
    /// Duration updates waiting to be delivered.
    public var pendingUpdates: Int
    /// Items the server refused for good.
    public var failed: Int
    /// When the oldest waiting item was queued (seconds since 1970), if any waits.
    public var oldestQueuedAt: Double?
    /// The first refused items (at most 20), oldest first.
    public var failures: [OutboxFailure]
    /// Items that wait (or were refused) for other servers or users than the status's own.
    public var elsewhere: Int

    /// Items waiting to be delivered.
    public var pending: Int { pendingCreates + pendingUpdates }
    /// Whether nothing waits and nothing failed.
    public var isEmpty: Bool { pending == 0 && failed == 0 }
}
