import Hummingbird
import Prometheus
import Whereabouts

/// The server's Prometheus metrics, served at `/metrics`: requests by method, route and status,
/// request latency, and events stored.
///
/// Each server owns its registry (no global metrics system), so several servers in one process
/// (as in tests) keep separate counts.
public struct ServerMetrics: Sendable {
    /// The registry the metrics live in.
    public let registry: PrometheusCollectorRegistry
    private let eventsStored: Counter
    private let eventsPurged: Counter
    /// The request counters and latency histograms already made, by their labels, so that a
    /// request does not build its labels' names and look them up in the registry again.
    private let requestInstruments = LockedValue(RequestInstruments())
    /// The most label sets kept in ``requestInstruments`` (the methods, routes and statuses a
    /// server answers make far fewer); past it, a request's instruments come from the registry.
    static let requestInstrumentLimit = 4_096

    /// The counters and histograms of requests, by labels.
    private struct RequestInstruments {
        struct CounterKey: Hashable { var method: String, route: String, status: Int }
        struct HistogramKey: Hashable { var method: String, route: String }
        var counters: [CounterKey: Counter] = [:]
        var histograms: [HistogramKey: DurationHistogram] = [:]
    }
    private static let latencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(5),
    ]

    /// Creates the metrics in a new registry.
    public init() {
        registry = PrometheusCollectorRegistry()
        eventsStored = registry.makeCounter(
            descriptor: .init(namespace: "whereabouts", metricName: "events_stored", unitName: "total",
                              helpText: "Events written to the store by this process."))
        eventsPurged = registry.makeCounter(
            descriptor: .init(namespace: "whereabouts", metricName: "events_purged", unitName: "total",
                              helpText: "Events this process deleted as older than their user's retention."))
    }

    /// Counts events deleted by the retention purge.
    public func recordEventsPurged(_ count: Int) {
        eventsPurged.increment(by: Int64(count))
    }

    /// Counts events newly written to the store.
    public func recordEventsStored(_ count: Int) {
        eventsStored.increment(by: Int64(count))
    }

    /// Counts a finished request and records its latency.
    public func recordRequest(method: String, route: String, status: Int, duration: Duration) {
        let counterKey = RequestInstruments.CounterKey(method: method, route: route, status: status)
        let histogramKey = RequestInstruments.HistogramKey(method: method, route: route)
        let (known, knownHistogram) = requestInstruments.withValue { ($0.counters[counterKey], $0.histograms[histogramKey]) }
        let counter = known ?? registry.makeCounter(
            descriptor: .init(namespace: "whereabouts", subsystem: "http", metricName: "requests", unitName: "total",
                              helpText: "HTTP requests answered, by method, route and status."),
            labels: [("method", method), ("route", route), ("status", String(status))])
        let histogram = knownHistogram ?? registry.makeDurationHistogram(
            descriptor: .init(namespace: "whereabouts", subsystem: "http", metricName: "request_duration",
                              unitName: "seconds", helpText: "Time from request to response, by method and route."),
            labels: [("method", method), ("route", route)],
            buckets: Self.latencyBuckets)
        if known == nil || knownHistogram == nil {
            requestInstruments.withValue { instruments in
                guard instruments.counters.count + instruments.histograms.count < Self.requestInstrumentLimit else { return }
                instruments.counters[counterKey] = counter
                instruments.histograms[histogramKey] = histogram
            }
        }
        counter.increment()
        histogram.record(duration)
    }

    /// The metrics in Prometheus' text exposition format.
    public func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }
}
