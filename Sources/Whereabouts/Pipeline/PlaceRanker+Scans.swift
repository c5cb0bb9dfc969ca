/// A ranker fed by a source of scans: ranging rounds on a ``ScanTimeline`` (a pipeline stage, so
/// it is declared here rather than beside the ranker).
extension PlaceRanker {
    /// Ranks from a source of scans until it ends, Hekaerge's way: each ranging round
    /// (``BeaconRanger``, one a second by default) moves the position to its nearest beacon with
    /// a known place in `venue`, or forgets it when no such beacon is in range. When the source
    /// ends (scanning stopped, Bluetooth off) or fails, the position is forgotten, so the order is
    /// the input order again; a failure is then rethrown.
    ///
    /// With a `clock` the source is live: rounds also end on time, so a source that falls silent
    /// closes its round a second later and, a second after that, gives an empty round that forgets
    /// the position (the input order again) while the source stays open. Without one, rounds
    /// end only with the scans (a replay).
    ///
    /// ```swift
    /// let ranker = PlaceRanker(places: venue.places)
    /// try await ranker.follow(scanner, nearestBeaconIn: venue, clock: ContinuousClock())   // live
    /// try await ranker.follow(RecordingReader(url: recording), nearestBeaconIn: venue)      // a replay
    /// ```
    public nonisolated func follow<Scans: AsyncSequence>(_ scans: sending Scans, nearestBeaconIn venue: Venue,
                                                         ranger: BeaconRanger? = nil,
                                                         clock: (any Clock<Duration>)? = nil) async throws where Scans.Element == Scan {
        var rounds = RangingRounds(ranger: ranger ?? BeaconRanger(venue: venue))
        var timeline = ScanTimeline(scans: scans, pace: clock.map { .live($0) } ?? .replay)
        do {
            try await timeline.run(&rounds) { closed in
                for round in closed { _ = await update(nearestOf: round, in: venue) }
            }
        } catch {
            _ = await update(position: nil)
            throw error
        }
        _ = await update(position: nil)
    }
}

/// A ``BeaconRanger`` as a stage of a ``ScanTimeline``: it gives out each ranging round as it
/// closes, with a scan or (live) on time, and the round still open at the end.
struct RangingRounds: TimedStage {
    var ranger: BeaconRanger

    mutating func process(_ scan: Scan) -> [[RangedBeacon]] {
        ranger.add(scan)
    }

    mutating func advance(to time: Double) -> [[RangedBeacon]] {
        ranger.advance(to: time)
    }

    func nextDeadline() -> Double? {
        ranger.nextRoundEnd
    }

    mutating func finish() -> [[RangedBeacon]] {
        ranger.finish().map { [$0] } ?? []
    }
}
