import Whereabouts
import WhereaboutsBluetooth

extension ScanSource {
    /// A line about what a capture held, for standard error (`nil` for other sources).
    var summary: String? {
        guard let statistics = captureStatistics else { return nil }
        return "\(name): \(statistics.records.counted("record")), \(statistics.events.counted("event")), \(statistics.reports.counted("advertising report"))"
            + (statistics.malformedEvents > 0 ? ", \(statistics.malformedEvents) malformed events skipped" : "")
    }
}
