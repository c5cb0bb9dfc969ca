/// Gathers a stream of scans into whole tracks, one device's run of scans with the same `track`,
/// and hands each over once it has ended: when its device's next scan starts another track, or at
/// the end of the stream. What an offline pass over a recording needs, such as
/// `DeviceLocators.smoothedFixes(forTrack:lag:)`, which must see a track's later scans too.
///
/// Scans of several devices may interleave; only the open track of each device is kept in memory.
///
/// ```swift
/// var collector = TrackCollector()
/// while let scan = try reader.next() {
///     if let track = collector.add(scan) { process(track) }
/// }
/// for track in collector.finish() { process(track) }
/// ```
struct TrackCollector: Sendable {
    private var open: [String?: (track: String?, scans: [Scan])] = [:]
    /// Devices in the order their open track started.
    private var order: [String?] = []

    /// An empty collector.
    init() {}

    /// The scans held in open tracks.
    var pendingScans: Int { open.values.reduce(0) { $0 + $1.scans.count } }

    /// Takes in the next scan; returns its device's previous track, in order, when this scan
    /// starts another one, else `nil`.
    mutating func add(_ scan: Scan) -> [Scan]? {
        guard let current = open[scan.device] else {
            open[scan.device] = (scan.track, [scan])
            order.append(scan.device)
            return nil
        }
        guard current.track != scan.track else {
            open[scan.device]?.scans.append(scan)
            return nil
        }
        open[scan.device] = (scan.track, [scan])
        if let position = order.firstIndex(of: scan.device) { order.remove(at: position) }
        order.append(scan.device)
        return current.scans
    }

    /// The tracks still open, in the order they started, and the collector emptied.
    mutating func finish() -> [[Scan]] {
        let tracks = order.compactMap { open[$0]?.scans }
        open = [:]
        order = []
        return tracks
    }
}
