/// Scans labelled with places, as dense RSSI vectors over the beacons heard in them: what the
/// place classifiers learn from.
///
/// Scans without `truth.place` are left out. Each sample is one scan: its place index, its
/// RSSI per beacon (`nil` where the beacon was not heard; a beacon heard twice in one scan
/// counts with its mean), its device and track (the stream it came from), in recording order.
/// A place's floor is the venue's, else the most common `truth.floor` of its scans.
///
/// ```swift
/// let set = PlaceTrainingSet(scans: survey, venue: venue)
/// print(set.labels.map(\.id), set.samples.count)
/// ```
public struct PlaceTrainingSet: Sendable {
    /// One labelled scan.
    public struct Sample: Hashable, Sendable {
        /// The index of its place in ``PlaceTrainingSet/labels``.
        public var place: Int
        /// RSSI per beacon of ``PlaceTrainingSet/beacons`` (`nil`: not heard).
        public var rssi: [Double?]
        /// The scan's device and track, which make its stream.
        public var device: String?, track: String?
        /// The scan itself.
        public var scan: Scan
    }

    /// The places, in order of first appearance.
    public private(set) var labels: [PlaceLabel] = []
    /// The beacons, in order of first appearance.
    public private(set) var beacons = PlaceBeacons()
    /// The samples, in recording order.
    public private(set) var samples: [Sample] = []

    /// Builds the set from scans with `truth.place`; `venue` supplies beacon ids, place floors and
    /// the offsets of the devices it lists (``Venue/devices``), subtracted from their readings.
    public init(scans: [Scan], venue: Venue? = nil) {
        var placeIndex: [String: Int] = [:]
        var floorCounts: [[Int: Int]] = []
        var rows: [(place: Int, readings: [(Int, Double)], scan: Scan)] = []
        let offsets = venue?.deviceOffsets ?? [:]
        for listed in scans {
            // Read like the venue's calibration when the venue knows the device's offset.
            let offset = listed.device.flatMap { offsets[$0] } ?? 0
            let scan = offset == 0 ? listed : listed.correctedForDeviceOffset(offset)
            guard let place = scan.truth?.place else { continue }
            let index: Int
            if let known = placeIndex[place] { index = known } else {
                index = labels.count
                placeIndex[place] = index
                labels.append(PlaceLabel(id: place, floor: venue?.places.first { $0.id == place }?.floor))
                floorCounts.append([:])
            }
            if let floor = scan.truth?.floor { floorCounts[index][floor, default: 0] += 1 }
            var readings: [(Int, Double)] = []
            for reading in scan.readings where reading.isValid {
                let (key, identity) = PlaceBeacons.key(for: reading.beacon, venue: venue)
                readings.append((beacons.insert(key: key, identity: identity, reference: reading.beacon), reading.rssi))
            }
            rows.append((index, readings, scan))
        }
        for index in labels.indices where labels[index].floor == nil {
            labels[index].floor = floorCounts[index].max { ($0.value, -$0.key) < ($1.value, -$1.key) }?.key
        }
        samples = rows.map { row in
            var sums = [Double](repeating: 0, count: beacons.count), counts = [Int](repeating: 0, count: beacons.count)
            for (beacon, rssi) in row.readings { sums[beacon] += rssi; counts[beacon] += 1 }
            let rssi: [Double?] = sums.indices.map { counts[$0] > 0 ? sums[$0] / Double(counts[$0]) : nil }
            return Sample(place: row.place, rssi: rssi, device: row.scan.device, track: row.scan.track, scan: row.scan)
        }
    }

    /// The same set restricted to some samples (labels and beacons unchanged).
    public func subset(_ keep: (Int) -> Bool) -> PlaceTrainingSet {
        var copy = self
        copy.samples = samples.indices.filter(keep).map { samples[$0] }
        return copy
    }

    /// Fold numbers for grouped cross-validation: each place's samples, in recording order,
    /// are cut into `folds` contiguous blocks of near-equal size (the first ones one longer),
    /// and block *i* of every place makes fold *i*. Consecutive scans are strongly correlated,
    /// so holding out whole blocks measures how a model does on a visit it has not seen.
    ///
    /// With 7 samples of one place and 3 folds: blocks of 3, 2 and 2 → `[0, 0, 0, 1, 1, 2, 2]`.
    public func contiguousFolds(_ folds: Int) -> [Int] {
        let folds = max(1, folds)
        var byPlace = [[Int]](repeating: [], count: labels.count)
        for (index, sample) in samples.enumerated() { byPlace[sample.place].append(index) }
        var result = [Int](repeating: 0, count: samples.count)
        for members in byPlace {
            let base = members.count / folds, extra = members.count % folds
            var start = 0
            for fold in 0..<folds {
                let length = base + (fold < extra ? 1 : 0)
                for position in start..<(start + length) { result[members[position]] = fold }
                start += length
            }
        }
        return result
    }
}
