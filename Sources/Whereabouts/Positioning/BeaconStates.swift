import Foundation

/// What a ``Locator`` remembers of each venue beacon, by beacon index: its latest reading and its
/// RSSI filter. Flat arrays rather than dictionaries, so that a scan costs no hashing and, once
/// every beacon has been heard, no allocation.
///
/// It keeps the rules of the dictionary of latest readings and the ``RSSIFilterBank`` it replaces:
/// a beacon unheard for longer than the locator's beacon timeout leaves the observations; its
/// filter is forgotten after the bank's timeout (the beacon timeout when positive, else the bank's
/// default), and a beacon heard again after that silence starts from a fresh filter.
///
/// Kalman filters (the default) are kept as such, in an array of plain values, rather than as
/// ``BuiltInRSSIFilter`` enums, whose copies (the other kinds hold arrays) cost more than the
/// filter's own arithmetic.
struct BeaconStates: Sendable {
    /// How long a beacon stays in the observations after its latest reading, seconds.
    let beaconTimeout: Double
    /// How long a filter is kept after its latest sample, seconds.
    let filterTimeout: Double
    /// The filter every beacon starts from (reset), or `nil` when readings are not filtered.
    let prototype: BuiltInRSSIFilter?

    /// The beacons with a latest reading or a filter, ascending.
    private(set) var tracked: [Int] = []
    private var isTracked: [Bool] = []
    private var hasLatest: [Bool] = []
    private var latestRSSI: [Double] = []
    private var latestTime: [Double] = []
    private var hasFilter: [Bool] = []
    /// The filters of the kinds other than Kalman, by beacon.
    private var filters: [BuiltInRSSIFilter] = []
    /// The Kalman filters, by beacon, when ``prototype`` is one.
    private var kalmanFilters: [KalmanRSSIFilter] = []
    private var filterLastSeen: [Double] = []
    private let count: Int
    /// Whether readings are filtered (``prototype`` is set).
    private let filtered: Bool
    /// ``prototype``'s Kalman filter, when it is one.
    private let kalmanPrototype: KalmanRSSIFilter?

    /// States for `count` beacons, none heard yet.
    init(count: Int, beaconTimeout: Double, filter: BuiltInRSSIFilter?) {
        self.count = max(count, 0)
        self.beaconTimeout = beaconTimeout
        filterTimeout = beaconTimeout > 0 ? beaconTimeout : RSSIFilterBank<Int, BuiltInRSSIFilter>.defaultTimeout
        let prototype = filter.map { filter in
            var fresh = filter
            fresh.reset()
            return fresh
        }
        self.prototype = prototype
        filtered = prototype != nil
        if case .kalman(let kalman) = prototype {
            kalmanPrototype = kalman
        } else {
            kalmanPrototype = nil
        }
    }

    /// Makes room for every beacon (on the first reading, so that an unused locator costs nothing).
    private mutating func allocate() {
        isTracked = [Bool](repeating: false, count: count)
        hasLatest = [Bool](repeating: false, count: count)
        latestRSSI = [Double](repeating: 0, count: count)
        latestTime = [Double](repeating: 0, count: count)
        if let prototype {
            hasFilter = [Bool](repeating: false, count: count)
            if let kalmanPrototype {
                kalmanFilters = [KalmanRSSIFilter](repeating: kalmanPrototype, count: count)
            } else {
                filters = [BuiltInRSSIFilter](repeating: prototype, count: count)
            }
            filterLastSeen = [Double](repeating: 0, count: count)
        }
        tracked.reserveCapacity(min(count, 64))
    }

    /// Takes in a valid reading of beacon `index` at `time`.
    mutating func add(index: Int, rssi: Double, time: Double) {
        guard index >= 0, index < count else { return }
        if isTracked.isEmpty { allocate() }
        hasLatest[index] = true
        latestRSSI[index] = rssi
        latestTime[index] = time
        track(index)
        // As RSSIFilterBank.add: a non-finite time is no sample.
        guard filtered, time.isFinite else { return }
        if !hasFilter[index] {
            hasFilter[index] = true
            resetFilter(index)
            filterLastSeen[index] = time
        } else if time - filterLastSeen[index] > filterTimeout {
            resetFilter(index)
        }
        if kalmanPrototype != nil {
            kalmanFilters[index].add(rssi: rssi, at: time)
        } else {
            filters[index].add(rssi: rssi, at: time)
        }
        filterLastSeen[index] = max(filterLastSeen[index], time)
    }

    /// Gives beacon `index` a fresh filter.
    private mutating func resetFilter(_ index: Int) {
        if let kalmanPrototype {
            kalmanFilters[index] = kalmanPrototype
        } else if let prototype {
            filters[index] = prototype
        }
    }

    /// The value of beacon `index`'s filter at `time`.
    private func filterValue(_ index: Int, at time: Double) -> Double? {
        kalmanPrototype != nil ? kalmanFilters[index].value(at: time) : filters[index].value(at: time)
    }

    private mutating func track(_ index: Int) {
        guard !isTracked[index] else { return }
        isTracked[index] = true
        var slot = tracked.count
        tracked.append(index)
        while slot > 0 && tracked[slot - 1] > index {
            tracked[slot] = tracked[slot - 1]
            slot -= 1
        }
        tracked[slot] = index
    }

    /// Calls `body` with every beacon in the observation at `time`, in beacon order, with its
    /// filtered RSSI (the latest reading when unfiltered or when its filter has no value) and its
    /// latest raw RSSI; forgets the readings older than the beacon timeout and the filters older
    /// than the filter timeout on the way.
    mutating func collect(at time: Double, _ body: (_ index: Int, _ rssi: Double, _ raw: Double) -> Void) {
        var kept = 0
        for position in tracked.indices {
            let index = tracked[position]
            if hasLatest[index] {
                if time - latestTime[index] > beaconTimeout {
                    hasLatest[index] = false
                } else {
                    let raw = latestRSSI[index]
                    var rssi = raw
                    if filtered, hasFilter[index], !(time - filterLastSeen[index] > filterTimeout),
                       let value = filterValue(index, at: time) {
                        rssi = value
                    }
                    body(index, rssi, raw)
                }
            }
            if filtered, hasFilter[index], time - filterLastSeen[index] > filterTimeout {
                hasFilter[index] = false
            }
            if hasLatest[index] || (filtered && hasFilter[index]) {
                tracked[kept] = index
                kept += 1
            } else {
                isTracked[index] = false
            }
        }
        tracked.removeLast(tracked.count - kept)
    }

    /// Forgets every beacon.
    mutating func removeAll() {
        for index in tracked {
            isTracked[index] = false
            hasLatest[index] = false
            if filtered { hasFilter[index] = false }
        }
        tracked.removeAll(keepingCapacity: true)
    }
}
