import Foundation

/// A source of scans: a receiver carried along a ``Walk`` through a ``Venue``, hearing its beacons
/// through a ``RadioModel``. The same seed always gives the same scans.
///
/// The simulator is a lazy `Sequence` of ``Scan``: one scan every ``RadioModel/scanInterval``
/// seconds from the walk's start to its end (both included), each made when it is asked for, so a
/// walk of any length costs constant memory. Each scan carries the walk's `device` and `track`, a
/// ``Reading`` (by venue id, with the beacon's `txPower` unless the model says otherwise) for
/// every beacon heard, in venue order, and the ground truth: `x`, `y`, `z` (the receiver's height
/// above its floor), `floor`, and `place` — the smallest circle or polygon place on that floor
/// that contains the position, if any.
///
/// Beacons without a position are never heard.
///
/// ```swift
/// let preset = SimulationPreset.espresenseRoom
/// let simulator = Simulator(venue: preset.venue, walk: preset.walk, radio: preset.radio, seed: 42)
/// for scan in simulator.prefix(3) {
///     print(scan.time, scan.readings.count, scan.truth?.place ?? "-")
/// }
/// ```
public struct Simulator: Sequence, Sendable {
    /// The venue whose beacons are heard and whose places label the truth.
    public var venue: Venue
    /// The path the receiver follows.
    public var walk: Walk
    /// How beacons are heard.
    public var radio: RadioModel
    /// The seed of the random numbers (noise, fades, losses).
    public var seed: UInt64
    /// Round the truth's `x`, `y` and `z` to this many decimal places, or keep them exact when
    /// `nil` (the default). Readings are always computed from the exact position.
    public var truthDecimalPlaces: Int?

    /// Creates a simulator.
    public init(venue: Venue, walk: Walk, radio: RadioModel = RadioModel(), seed: UInt64 = 0,
                truthDecimalPlaces: Int? = nil) {
        self.venue = venue
        self.walk = walk
        self.radio = radio
        self.seed = seed
        self.truthDecimalPlaces = truthDecimalPlaces
    }

    /// How many scans the sequence holds: one per scan interval over the walk's duration, plus
    /// the one at the start (0 when the scan interval is not positive).
    public var scanCount: Int {
        guard radio.scanInterval > 0, radio.scanInterval.isFinite else { return 0 }
        let duration = walk.duration
        guard duration.isFinite else { return 0 }
        // A hair of tolerance so that 600 s at 0.1 s gives 6001 scans despite rounding.
        return Int((duration / radio.scanInterval * (1 + 1e-12)).rounded(.down)) + 1
    }

    /// Makes an iterator that produces the scans one by one.
    public func makeIterator() -> Iterator {
        Iterator(self)
    }

    /// The scans as an `AsyncSequence`, for pipelines that consume asynchronous sources. It does
    /// not wait between scans: pace it yourself if you need real time.
    public var scans: AsyncScans { AsyncScans(simulator: self) }

    /// Produces the scans of a ``Simulator``.
    public struct Iterator: IteratorProtocol, Sendable {
        private let world: World
        private let walk: Walk
        private let radio: RadioModel
        private let schedule: Walk.Schedule
        private let count: Int
        private let truthScale: Double?
        private var random: SeededRandom
        private var index = 0
        private var cursor = 0

        init(_ simulator: Simulator) {
            world = World(venue: simulator.venue, radio: simulator.radio, seed: simulator.radio.shadowingFieldSeed ?? simulator.seed)
            walk = simulator.walk
            radio = simulator.radio
            schedule = Walk.Schedule(simulator.walk)
            count = simulator.scanCount
            truthScale = simulator.truthDecimalPlaces.map { pow(10, Double(Swift.max(0, Swift.min($0, 15)))) }
            random = SeededRandom(seed: simulator.seed)
        }

        /// The next scan, or `nil` after the end of the walk.
        public mutating func next() -> Scan? {
            guard index < count else { return nil }
            let offset = Double(index) * radio.scanInterval
            index += 1
            let position = schedule.position(atOffset: offset, cursor: &cursor)
            var readings: [Reading] = []
            for beacon in world.beacons {
                let mean = world.meanRSSI(of: beacon, at: position)
                guard let rssi = radio.sample(mean: mean, using: &random) else { continue }
                readings.append(Reading(beacon: .id(beacon.id), rssi: rssi,
                                        txPower: radio.reportsTxPower ? beacon.txPower : nil))
            }
            let truth = GroundTruth(x: rounded(position.x), y: rounded(position.y), z: rounded(radio.receiverHeight),
                                    floor: position.floor, place: world.place(containing: position))
            return Scan(time: walk.start + offset, device: walk.device, track: walk.track,
                        readings: readings, truth: truth)
        }

        private func rounded(_ value: Double) -> Double {
            guard let truthScale else { return value }
            return (value * truthScale).rounded() / truthScale
        }
    }

    /// The scans of a ``Simulator`` as an `AsyncSequence`.
    public struct AsyncScans: AsyncSequence, Sendable {
        /// The simulator whose scans this sequence yields.
        public var simulator: Simulator

        /// Produces the scans asynchronously.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: Simulator.Iterator

            /// The next scan, or `nil` after the end of the walk.
            public mutating func next() async -> Scan? { base.next() }
        }

        /// Makes an iterator.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: simulator.makeIterator()) }
    }
}

extension Simulator {
    /// The venue prepared for simulation: beacon positions and calibrations, walls and places by floor.
    struct World: Sendable {
        struct Beacon: Sendable {
            let id: String
            let point: PlanarPoint
            let height: Double
            let floor: Int
            let txPower: Double
            let pathLossExponent: Double
            /// The persistent shadowing field's hash state after the seed and the beacon's id.
            let fieldKey: UInt64
        }

        let beacons: [Beacon]
        let radio: RadioModel
        private let elevations: [Int: Double]
        private let walls: VenueWalls
        private let places: PlaceLocator

        /// Prepares `venue`; `seed` fixes the persistent shadowing field (``RadioModel/shadowingFieldSeed``, else the simulator's seed).
        init(venue: Venue, radio: RadioModel, seed: UInt64 = 0) {
            self.radio = radio
            var elevations: [Int: Double] = [:]
            for floor in venue.floors {
                if let elevation = floor.elevation { elevations[floor.level] = elevation }
            }
            self.elevations = elevations
            beacons = venue.beacons.compactMap { beacon in
                guard let x = beacon.x, let y = beacon.y else { return nil }
                let floor = beacon.floor ?? 0
                return Beacon(id: beacon.id, point: PlanarPoint(x: x, y: y),
                              height: (elevations[floor] ?? 0) + (beacon.z ?? venue.defaults.z), floor: floor,
                              txPower: radio.txPower(of: beacon, defaults: venue.defaults),
                              pathLossExponent: radio.pathLossExponent(of: beacon, defaults: venue.defaults),
                              fieldKey: beacon.id.utf8.reduce(seed ^ 0x5EED_F1E1_D000_0000) { Self.mixed($0, UInt64($1)) })
            }
            walls = VenueWalls(venue)
            places = PlaceLocator(venue)
        }

        /// The mean RSSI of a beacon at a receiver's position, walls, floors and the receiver's
        /// own offset included.
        func meanRSSI(of beacon: Beacon, at position: Walk.Position) -> Double {
            let receiverHeight = (elevations[position.floor] ?? 0) + radio.receiverHeight
            let dx = beacon.point.x - position.x, dy = beacon.point.y - position.y, dz = beacon.height - receiverHeight
            let distance = (dx * dx + dy * dy + dz * dz).squareRoot()
            var mean = radio.meanRSSI(distance: distance, txPower: beacon.txPower, pathLossExponent: beacon.pathLossExponent)
            if radio.wallAttenuation != 0 {
                mean -= radio.wallAttenuation * Double(wallsCrossed(from: beacon.point, to: position.point, floor: position.floor))
            }
            mean -= radio.floorAttenuation * Double(abs(beacon.floor - position.floor))
            if radio.persistentShadowing != 0, radio.persistentShadowing.isFinite {
                mean += radio.persistentShadowing * persistentShadowing(of: beacon, at: position)
            }
            if radio.receiverGain != 1, radio.receiverGain.isFinite, radio.receiverGain > 0 {
                mean = beacon.txPower + radio.receiverGain * (mean - beacon.txPower)
            }
            if radio.receiverOffset.isFinite { mean += radio.receiverOffset }
            return mean
        }

        /// The persistent shadowing field of a beacon at a position, a standard normal value: the
        /// independent normal values at the four corners of the grid cell (spacing
        /// ``RadioModel/shadowingCorrelationDistance``) around the position, weighted bilinearly
        /// and divided by the root of the weights' squares, so that its variance is 1 everywhere.
        func persistentShadowing(of beacon: Beacon, at position: Walk.Position) -> Double {
            let spacing = radio.shadowingCorrelationDistance
            guard spacing > 0, spacing.isFinite else { return 0 }
            let gx = position.x / spacing, gy = position.y / spacing
            guard gx.isFinite, gy.isFinite, abs(gx) < 1e15, abs(gy) < 1e15 else { return 0 }
            let fx = gx.rounded(.down), fy = gy.rounded(.down)
            let u = gx - fx, v = gy - fy
            let ix = Int64(fx), iy = Int64(fy)
            let w00 = (1 - u) * (1 - v), w10 = u * (1 - v), w01 = (1 - u) * v, w11 = u * v
            func corner(_ dx: Int64, _ dy: Int64) -> Double {
                cornerValue(key: beacon.fieldKey, floor: position.floor, x: ix &+ dx, y: iy &+ dy)
            }
            let sum = w00 * corner(0, 0) + w10 * corner(1, 0) + w01 * corner(0, 1) + w11 * corner(1, 1)
            let squares = w00 * w00 + w10 * w10 + w01 * w01 + w11 * w11
            return squares > 0 ? sum / squares.squareRoot() : 0
        }

        /// The field's independent standard normal value at a grid corner, from the beacon's
        /// ``Beacon/fieldKey`` (the seed and its id), the floor and the corner alone.
        private func cornerValue(key: UInt64, floor: Int, x: Int64, y: Int64) -> Double {
            let hash = Self.mixed(Self.mixed(Self.mixed(key, UInt64(bitPattern: Int64(floor))), UInt64(bitPattern: x)),
                                  UInt64(bitPattern: y))
            var random = SeededRandom(seed: hash)
            return random.nextGaussian()
        }

        /// One step of the field's hash: `value` mixed into `hash`.
        private static func mixed(_ hash: UInt64, _ value: UInt64) -> UInt64 {
            let product = (hash ^ value) &* 0x100_0000_01B3
            return product ^ (product >> 29)
        }

        /// How many walls of `floor` the segment from `p` to `q` crosses properly (touching an
        /// end of a wall, or running along one, does not count).
        func wallsCrossed(from p: PlanarPoint, to q: PlanarPoint, floor: Int) -> Int {
            walls.crossings(from: p, to: q, floor: floor)
        }

        /// The id of the smallest place on the position's floor that contains it.
        func place(containing position: Walk.Position) -> String? {
            places.place(containing: position.point, floor: position.floor)?.id
        }
    }
}
