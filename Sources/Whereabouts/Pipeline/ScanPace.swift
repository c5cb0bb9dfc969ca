/// How time moves with a source of scans: with the scans alone (a replay as fast as possible) or
/// with a clock between them too (a live source: a Bluetooth adapter, a recording read from a
/// pipe, a capture replayed at its own pace).
///
/// One pace serves every part that cares: a ``ScanTimeline`` gives a live stage the passing of
/// time between scans, ``LocationEngine/fixes(from:pace:)`` gives a fixed lag's fixes on time, and
/// a capture replayed at its recorded pace sleeps on the clock between its events.
///
/// ```swift
/// let replayed: ScanPace = .replay                          // the same output every time
/// let live: ScanPace = .live(ContinuousClock())             // the wall clock between scans
/// let tested: ScanPace = .live(ManualClock())               // a test moves time by hand
/// ```
public enum ScanPace: Sendable {
    /// With the scans only (a replay as fast as possible).
    case replay
    /// With the scans, and with the clock between them (a live source).
    case live(any Clock<Duration>)

    /// Whether time also moves between scans.
    public var isLive: Bool {
        if case .live = self { return true }
        return false
    }

    /// The clock between scans of a live pace; `nil` for a replay.
    public var clock: (any Clock<Duration>)? {
        if case .live(let clock) = self { return clock }
        return nil
    }
}

/// A sequence of scans that knows how time moves with it (a live adapter, a pipe, a capture at
/// its recorded pace), so that what runs over it needs no pace of its own:
/// `LocationEngine.fixes(from:)` gives a fixed lag's fixes on time from a live
/// source, and ``ScanTimeline/init(source:)`` moves a stage on between scans.
public protocol PacedScans: AsyncSequence, Sendable where Element == Scan {
    /// How time moves with these scans.
    var pace: ScanPace { get }
}

/// Any sequence of scans with the pace its maker knows it has: a stream a delegate fills as
/// the radio hears (CoreLocation's ranging, a socket) is live, though its type cannot say so.
///
/// ```swift
/// let (stream, input) = AsyncStream.makeStream(of: Scan.self)
/// try await bluenet.startScanning(stream.paced(.live(ContinuousClock())))   // exits due on time
/// ```
public struct PacedScanSequence<Base: AsyncSequence & Sendable>: PacedScans where Base.Element == Scan {
    /// The scans.
    public let base: Base
    /// How time moves with them.
    public let pace: ScanPace

    /// The scans of `base`, at `pace`.
    public init(_ base: Base, pace: ScanPace) {
        self.base = base
        self.pace = pace
    }

    /// The scans, in order.
    public func makeAsyncIterator() -> Base.AsyncIterator { base.makeAsyncIterator() }
}

extension AsyncSequence where Self: Sendable, Element == Scan {
    /// These scans at `pace`: `.live(clock)` for a source that scans as time passes, so that what
    /// runs over it (a facade, ``ScanTimeline/init(source:)``) moves on between scans.
    public func paced(_ pace: ScanPace) -> PacedScanSequence<Self> {
        PacedScanSequence(self, pace: pace)
    }
}
