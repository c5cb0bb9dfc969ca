import Hummingbird
import Prometheus

/// The server's Prometheus metrics, served at `/metrics`: requests by method, route and status,
/// request latency, and events stored.
///
/// Each server owns its registry (no global metrics system), so several servers in one process
/// (as in tests) keep separate counts.
public struct ServerMetrics: Sendable {
    /// The registry the metrics live in.
    public let registry: PrometheusCollectorRegistry
    private let eventsStored: Counter
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
    }

    /// Counts events newly written to the store.
    public func recordEventsStored(_ count: Int) {
        eventsStored.increment(by: Int64(count))
    }

    /// Counts a finished request and records its latency.
    public func recordRequest(method: String, route: String, status: Int, duration: Duration) {
        let labels = [("method", method), ("route", route), ("status", String(status))]
        registry.makeCounter(
            descriptor: .init(namespace: "whereabouts", subsystem: "http", metricName: "requests", unitName: "total",
                              helpText: "HTTP requests answered, by method, route and status."),
            labels: labels
        ).increment()
        registry.makeDurationHistogram(
            descriptor: .init(namespace: "whereabouts", subsystem: "http", metricName: "request_duration",
                              unitName: "seconds", helpText: "Time from request to response, by method and route."),
            labels: [("method", method), ("route", route)],
            buckets: Self.latencyBuckets
        ).record(duration)
    }

    /// The metrics in Prometheus' text exposition format.
    public func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }
}
