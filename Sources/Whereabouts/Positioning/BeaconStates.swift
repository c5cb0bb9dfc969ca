import Foundation

/// What a ``Locator`` remembers of each venue beacon, by beacon index: its latest reading and its
/// RSSI filter. Flat arrays rather than dictionaries, so that a scan costs no hashing and, once
/// every beacon has been heard, no allocation.
///
/// It keeps the rules of the dictionary of latest readings and the ``RSSIFilterBank`` it replaces:
/// a beacon unheard for longer than the locator's beacon timeout leaves the observations; its
/// filter is forgotten after the bank's timeout (the beacon timeout when positive, else the bank's
/// default), and a beacon heard again after that silence starts from a fresh filter.
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
    private var filters: [BuiltInRSSIFilter] = []
    private var filterLastSeen: [Double] = []
    private let count: Int

    /// States for `count` beacons, none heard yet.
    init(count: Int, beaconTimeout: Double, filter: BuiltInRSSIFilter?) {
        self.count = max(count, 0)
        self.beaconTimeout = beaconTimeout
        filterTimeout = beaconTimeout > 0 ? beaconTimeout : RSSIFilterBank<Int, BuiltInRSSIFilter>.defaultTimeout
        prototype = filter.map { filter in
            var fresh = filter
            fresh.reset()
            return fresh
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
            filters = [BuiltInRSSIFilter](repeating: prototype, count: count)
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
        guard let prototype, time.isFinite else { return }
        if !hasFilter[index] {
            hasFilter[index] = true
            filters[index] = prototype
            filterLastSeen[index] = time
        } else if time - filterLastSeen[index] > filterTimeout {
            filters[index] = prototype
        }
        filters[index].add(rssi: rssi, at: time)
        filterLastSeen[index] = max(filterLastSeen[index], time)
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
                    if prototype != nil, hasFilter[index], !(time - filterLastSeen[index] > filterTimeout),
                       let value = filters[index].value(at: time) {
                        rssi = value
                    }
                    body(index, rssi, raw)
                }
            }
            if prototype != nil, hasFilter[index], time - filterLastSeen[index] > filterTimeout {
                hasFilter[index] = false
            }
            if hasLatest[index] || (prototype != nil && hasFilter[index]) {
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
            if prototype != nil { hasFilter[index] = false }
        }
        tracked.removeAll(keepingCapacity: true)
    }
}
