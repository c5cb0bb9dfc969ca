/// A filter over the samples of the last ``window`` seconds: it keeps them in ``samples`` and
/// reduces those that count at a time, sorted, to one RSSI with ``filteredValue(ofSorted:)``.
/// Adding, reading and resetting are the same for every such filter and live here.
///
/// A sample counts while it is younger than the window (`now − t < window`).
protocol WindowedRSSIFilter: RSSIFilter {
    /// How long a sample counts, in seconds.
    var window: Double { get }
    /// The samples of the last ``window`` seconds.
    var samples: TimedSamples { get set }
    /// The filtered RSSI (dBm) of the samples that count at some time, sorted, or `nil` when
    /// they give none.
    func filteredValue(ofSorted sorted: [Double]) -> Double?
}

extension WindowedRSSIFilter {
    /// Adds a sample heard at `time`; unusable samples are ignored (see ``RSSIFilter``).
    public mutating func add(rssi: Double, at time: Double) {
        guard isUsableSample(rssi: rssi, time: time) else { return }
        samples.add(rssi, at: time, window: window)
    }

    /// The filtered RSSI (dBm) after the samples so far, or `nil` before the first.
    public var value: Double? {
        guard let newest = samples.newest else { return nil }
        return value(at: newest)
    }

    /// The filtered RSSI (dBm) as of `time`, or `nil` when no sample counts then.
    public func value(at time: Double) -> Double? {
        filteredValue(ofSorted: samples.sortedValues(at: time, window: window))
    }

    /// Forgets every sample; the parameters stay.
    public mutating func reset() {
        samples.removeAll()
    }
}

/// The samples of the last `window` seconds, in arrival order: the state of the window-based filters.
struct TimedSamples: Hashable, Sendable {
    private(set) var times: [Double] = []
    private(set) var values: [Double] = []
    /// The newest sample time seen.
    private(set) var newest: Double?

    var isEmpty: Bool { values.isEmpty }

    /// Adds a sample and drops every sample that is `window` seconds or more older than the
    /// newest one. A sample already outside the window is not kept.
    mutating func add(_ value: Double, at time: Double, window: Double) {
        let latest = max(newest ?? time, time)
        newest = latest
        if latest - time < window {
            times.append(time)
            values.append(value)
        }
        prune(before: latest - window)
    }

    /// Keeps the samples whose time is after `limit`.
    private mutating func prune(before limit: Double) {
        guard times.contains(where: { $0 <= limit }) else { return }
        var kept = 0
        for index in times.indices where times[index] > limit {
            times[kept] = times[index]
            values[kept] = values[index]
            kept += 1
        }
        times.removeLast(times.count - kept)
        values.removeLast(values.count - kept)
    }

    /// The values of the samples younger than `window` at `time` (`time − t < window`), sorted.
    func sortedValues(at time: Double, window: Double) -> [Double] {
        var result: [Double] = []
        result.reserveCapacity(values.count)
        for index in times.indices where time - times[index] < window {
            result.append(values[index])
        }
        result.sort()
        return result
    }

    mutating func removeAll() {
        times.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        newest = nil
    }
}
