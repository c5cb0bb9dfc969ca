import Foundation

/// What each beacon's RSSI should be at every cell of a ``PosteriorGrid``: its mean and its
/// spread (dB), from the venue's calibrated log-distance model, corrected where a survey (a
/// training recording with true positions) measured otherwise.
///
/// **Model.** At a cell at distance d metres (3-D: the beacon's height against the receiver's
/// assumed one, at least ``minimumDistance``) the mean is `txPower − 10·n·log10(d)` with the
/// beacon's calibrated txPower and exponent n, less the walls crossed on the way when the
/// survey measured what they cost (``WallLoss``), the spread the configured RSSI σ.
///
/// **Survey.** Each surveyed reading leaves a residual (its RSSI less the model's at its true
/// position). The residuals are averaged per beacon and spot, then smoothed over the plan by a
/// Gaussian kernel of bandwidth h (Nadaraya–Watson), shrunk toward 0 by a prior worth
/// ``SurveyCorrection/priorReadings`` readings: `c = Σ K·n·r̄ / (Σ K·n + λ)`. The spread is the
/// residuals' local root mean square about that correction, shrunk toward the model's σ the same
/// way, never under 1 dB. Only beacons with a position count, each on its own floor.
///
/// **Other floors.** In a venue whose beacons are on several floors, each beacon also has a mean
/// on every other floor where it may be heard: the model at the 3-D distance between the floors'
/// elevations (``defaultStoreyHeight`` apart when the venue gives none), less
/// ``floorAttenuation`` per floor crossed, with a spread of `√(σ² + 3²)` dB (a slab's loss varies
/// with its material and the angle through it). A beacon is kept on a floor where its mean comes
/// within 5 spreads of the detection floor somewhere, while the maps of other floors hold at most
/// ``maximumCrossFloorValues`` values.
///
/// ```swift
/// let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: 4)
/// map.mean(beacon: 0, cell: 12)   // dBm expected at cell 12
/// ```
public struct RadioMap: Sendable {
    /// The cells.
    public let grid: PosteriorGrid
    /// Per beacon (the venue's order): the mean RSSI at each cell, dBm; empty for a beacon with
    /// no position.
    let means: [[Float]]
    /// Per beacon: the RSSI spread at each cell, dB; empty for a beacon with no position.
    let spreads: [[Float]]
    /// Per beacon: 1 / ``spreads`` and its log, the likelihood's factors (multiplied and added
    /// where it would divide and take logs scan after scan).
    let inverseSpreads: [[Float]], logInverseSpreads: [[Float]]
    /// The beacons' floors, by beacon index.
    public let floors: [Int]
    /// The loss per wall the map counts, dB; `nil` when it counts none.
    public let wallAttenuation: Double?
    /// The floors the map spans, lowest first: the levels of its placed beacons. A filter over
    /// the map holds one layer of cells per level.
    public let levels: [Int]
    /// The loss per floor crossed the map counts, dB; `nil` with one level.
    public private(set) var floorAttenuation: Double?
    /// Per beacon and layer (``levels``' order): the mean RSSI at each cell of that floor, when it
    /// is not the beacon's own and the beacon may be heard there; empty otherwise.
    private(set) var crossMeans: [[[Float]]]
    /// Per beacon and layer: the cells (whole rows) of ``crossMeans`` where the beacon comes
    /// within 2 spreads and 10 dB of the detection floor; elsewhere not hearing it is certain
    /// to within 2 % (`log P ≥ −0.02`), so an unheard beacon is weighed there only.
    private(set) var crossReach: [[Range<Int>]]
    /// The spread of every mean on another floor than its beacon's, dB, one per cell.
    let crossSpreads: [Float]
    /// 1 / ``crossSpreads`` and its log.
    let crossInverseSpreads: [Float], crossLogInverseSpreads: [Float]
    /// The loss per floor slab without a survey to measure it, dB (concrete, as the floor
    /// selection assumes).
    public static let defaultFloorAttenuation = 15.0
    /// The height between two floors when the venue gives no elevation, metres.
    public static let defaultStoreyHeight = 3.5
    /// The most values the maps of other floors hold (32 MiB).
    public static let maximumCrossFloorValues = 8_388_608
    /// The distance below which the model is not trusted to go on rising, metres.
    public static let minimumDistance = 0.5

    /// How the survey corrects the model.
    public struct SurveyCorrection: Hashable, Sendable {
        /// The kernel's bandwidth (its σ), metres.
        public var bandwidth: Double
        /// How many readings the prior (no correction, the model's spread) is worth at a cell.
        public var priorReadings: Double

        /// Creates a correction.
        public init(bandwidth: Double, priorReadings: Double = 5) {
            self.bandwidth = bandwidth
            self.priorReadings = priorReadings
        }
    }

    /// The residuals of a survey, averaged per beacon and surveyed spot.
    public struct Residuals: Sendable {
        /// One beacon's residuals at one spot.
        public struct Spot: Hashable, Sendable {
            /// Where, venue units.
            public var point: PlanarPoint
            /// How many readings.
            public var count: Double
            /// Their mean residual, dB.
            public var mean: Double
            /// Their mean squared residual, dB².
            public var meanSquare: Double
        }

        /// Per beacon (the venue's order), its spots.
        public var spots: [[Spot]]

        /// The residuals of `training`'s readings against `venue`'s model, walls included when
        /// given (readings of beacons without a position, on another floor than the truth's, or
        /// of scans without a true position are left out). Spots are the truths as given, per
        /// beacon and floor.
        public init(venue: PositioningVenue, training: [Scan], walls: WallLoss? = nil) {
            let metres = venue.venue.units.metres ?? 1
            var spots = [[Spot]](repeating: [], count: venue.positions.count)
            var index: [Int: [PlanarPoint: Int]] = [:]
            RadioMap.forEachSurveyedReading(venue: venue, training: training) { beacon, position, truth, rssi in
                let residual = rssi - RadioMap.modelRSSI(venue: venue, beacon: beacon, position: position,
                                                         at: truth, metresPerUnit: metres, walls: walls)
                guard residual.isFinite else { return }
                if let slot = index[beacon]?[truth] {
                    var spot = spots[beacon][slot]
                    spot.mean += (residual - spot.mean) / (spot.count + 1)
                    spot.meanSquare += (residual * residual - spot.meanSquare) / (spot.count + 1)
                    spot.count += 1
                    spots[beacon][slot] = spot
                } else {
                    index[beacon, default: [:]][truth] = spots[beacon].count
                    spots[beacon].append(Spot(point: truth, count: 1, mean: residual, meanSquare: residual * residual))
                }
            }
            self.spots = spots
        }

        /// Residuals given per beacon.
        public init(spots: [[Spot]]) {
            self.spots = spots
        }
    }

    /// Calls `body` with each valid reading of `training` from a placed beacon on the floor of
    /// the scan's truth (any floor when the truth names none), in order: the beacon's index and
    /// position, the true point and the RSSI. Scans without a true position are skipped.
    static func forEachSurveyedReading(venue: PositioningVenue, training: [Scan],
                                       _ body: (_ beacon: Int, _ position: SpatialPoint, _ truth: PlanarPoint, _ rssi: Double) -> Void) {
        for scan in training {
            guard let truth = scan.truth?.planarPoint else { continue }
            for reading in scan.readings where reading.isValid {
                guard let beacon = venue.directory.index(for: reading.beacon), beacon < venue.positions.count,
                      let position = venue.positions[beacon],
                      scan.truth?.floor == nil || scan.truth?.floor == venue.floors[beacon] else { continue }
                body(beacon, position, truth, reading.rssi)
            }
        }
    }

    /// The 3-D distance from beacon `position` to a receiver at `point`, metres (at least
    /// ``minimumDistance``).
    static func distance(venue: PositioningVenue, position: SpatialPoint, at point: PlanarPoint, metresPerUnit: Double) -> Double {
        let dx = point.x - position.x, dy = point.y - position.y, dz = position.z - venue.receiverHeight
        return max((dx * dx + dy * dy + dz * dz).squareRoot() * metresPerUnit, minimumDistance)
    }

    /// The model's mean RSSI of beacon `beacon` (at `position`) heard at `point`, dBm, with the
    /// walls' loss when given.
    static func modelRSSI(venue: PositioningVenue, beacon: Int, position: SpatialPoint, at point: PlanarPoint,
                          metresPerUnit: Double, walls: WallLoss?) -> Double {
        let metres = distance(venue: venue, position: position, at: point, metresPerUnit: metresPerUnit)
        let model = venue.txPowers[beacon] - 10 * venue.pathLossExponents[beacon] * log10(metres)
        guard let walls else { return model }
        let crossings = walls.attenuation > 0 ? walls.walls.crossings(from: position.planar, to: point, floor: venue.floors[beacon]) : 0
        return model + walls.adjustment(beacon: beacon, metres: metres, crossings: crossings)
    }

    /// The elevation of a floor's receivers above the venue's reference, venue units: the floor's
    /// elevation (``defaultStoreyHeight`` a level when the venue gives none) plus the receiver's
    /// height.
    static func receiverElevation(venue: PositioningVenue, level: Int, metresPerUnit: Double) -> Double {
        let floor = venue.venue.floors.first { $0.level == level }
        return (floor?.elevation ?? Double(level) * defaultStoreyHeight / metresPerUnit) + venue.receiverHeight
    }

    /// The model's mean RSSI of beacon `beacon` (at `position`, on its own floor) heard at `point`
    /// on floor `level`: the log-distance model at the 3-D distance between the floors, less
    /// `attenuation` per floor crossed; walls are not counted.
    static func crossFloorRSSI(venue: PositioningVenue, beacon: Int, position: SpatialPoint, at point: PlanarPoint, level: Int,
                               metresPerUnit: Double, attenuation: Double) -> Double {
        let own = venue.floors[beacon]
        let height = receiverElevation(venue: venue, level: own, metresPerUnit: metresPerUnit) - venue.receiverHeight + position.z
        let dx = point.x - position.x, dy = point.y - position.y
        let dz = height - receiverElevation(venue: venue, level: level, metresPerUnit: metresPerUnit)
        let metres = max((dx * dx + dy * dy + dz * dz).squareRoot() * metresPerUnit, minimumDistance)
        return venue.txPowers[beacon] - 10 * venue.pathLossExponents[beacon] * log10(metres)
            - attenuation * Double(abs(level - own))
    }

    /// The map of `venue`'s model with spread `rssiStandardDeviation` (dB, at least 1), with
    /// the walls' loss when given, corrected by `residuals` (taken against the same model) under
    /// `correction` when both are given; on other floors than each beacon's, with
    /// `floorAttenuation` per floor crossed (``defaultFloorAttenuation`` when `nil`), kept where
    /// the beacon may be heard above `detectionFloor`.
    public init(venue: PositioningVenue, grid: PosteriorGrid, rssiStandardDeviation: Double,
                residuals: Residuals? = nil, correction: SurveyCorrection? = nil, walls: WallLoss? = nil,
                floorAttenuation: Double? = nil, detectionFloor: Double = PosteriorSolver.defaultDetectionFloor) {
        self.grid = grid
        floors = venue.floors
        wallAttenuation = walls?.attenuation
        let metres = venue.venue.units.metres ?? 1
        let sigma = rssiStandardDeviation.isFinite ? max(rssiStandardDeviation, 1) : 4
        let centres = (0..<grid.count).map { grid.centre(of: $0) }
        var means: [[Float]] = [], spreads: [[Float]] = []
        means.reserveCapacity(venue.positions.count)
        spreads.reserveCapacity(venue.positions.count)
        for beacon in venue.positions.indices {
            guard let position = venue.positions[beacon] else {
                means.append([])
                spreads.append([])
                continue
            }
            var mean = centres.map { Float(Self.modelRSSI(venue: venue, beacon: beacon, position: position, at: $0,
                                                          metresPerUnit: metres, walls: walls)) }
            var spread = [Float](repeating: Float(sigma), count: grid.count)
            if let correction, let residuals, beacon < residuals.spots.count, !residuals.spots[beacon].isEmpty,
               correction.bandwidth.isFinite, correction.bandwidth > 0 {
                let h = correction.bandwidth / metres, reach = 3 * h
                let prior = max(correction.priorReadings, 1e-6)
                let spots = residuals.spots[beacon]
                for cell in 0..<grid.count {
                    let centre = centres[cell]
                    var s0 = 0.0, s1 = 0.0, s2 = 0.0
                    for spot in spots {
                        let dx = spot.point.x - centre.x, dy = spot.point.y - centre.y
                        guard abs(dx) <= reach, abs(dy) <= reach else { continue }
                        let k = exp(-(dx * dx + dy * dy) / (2 * h * h)) * spot.count
                        s0 += k
                        s1 += k * spot.mean
                        s2 += k * spot.meanSquare
                    }
                    let shift = s1 / (s0 + prior)
                    let variance = (s2 - 2 * shift * s1 + shift * shift * s0 + prior * sigma * sigma) / (s0 + prior)
                    mean[cell] += Float(shift)
                    spread[cell] = Float(max(variance, 1).squareRoot())
                }
            }
            means.append(mean)
            spreads.append(spread)
        }
        self.means = means
        self.spreads = spreads
        inverseSpreads = spreads.map { $0.map { 1 / $0 } }
        logInverseSpreads = spreads.map { $0.map { -log($0) } }
        // Other floors.
        let levels = Set(venue.positions.indices.compactMap { venue.positions[$0] == nil ? nil : venue.floors[$0] }).sorted()
        self.levels = levels.isEmpty ? [venue.floors.first ?? 0] : levels
        crossSpreads = self.levels.count > 1 ? [Float](repeating: Float((sigma * sigma + 9).squareRoot()), count: grid.count) : []
        crossInverseSpreads = crossSpreads.map { 1 / $0 }
        crossLogInverseSpreads = crossSpreads.map { -log($0) }
        self.floorAttenuation = nil
        crossMeans = venue.positions.map { _ in [] }
        crossReach = venue.positions.map { _ in [] }
        countFloors(venue: venue, attenuation: floorAttenuation ?? Self.defaultFloorAttenuation, detectionFloor: detectionFloor)
    }

    /// The map at the centre cells of blocks of `factor` × `factor` cells
    /// (``PosteriorGrid/sampled(every:)``): every beacon's mean and spread there, on its floor
    /// and the others; a beacon reaches a block row of another floor where its centre row is in
    /// its reach. What a filter weighs where it holds little mass, at a 25th of the cost with a
    /// factor of 5.
    func sampled(every factor: Int) -> RadioMap {
        let coarse = grid.sampled(every: factor)
        let picks = (0..<coarse.count).map { grid.sampledCell(of: $0, factor: factor) }
        func pick(_ values: [Float]) -> [Float] { values.isEmpty ? [] : picks.map { values[$0] } }
        let rows = (0..<coarse.rows).map { picks[$0 * coarse.columns] / grid.columns }
        return RadioMap(grid: coarse, means: means.map(pick), spreads: spreads.map(pick),
                        inverseSpreads: inverseSpreads.map(pick), logInverseSpreads: logInverseSpreads.map(pick),
                        floors: floors, wallAttenuation: wallAttenuation, levels: levels, floorAttenuation: floorAttenuation,
                        crossMeans: crossMeans.map { $0.map(pick) },
                        crossReach: crossReach.map { layers in
                            layers.map { reach in
                                let inside = rows.indices.filter { reach.contains(rows[$0] * grid.columns) }
                                guard let first = inside.first, let last = inside.last else { return 0..<0 }
                                return (first * coarse.columns)..<((last + 1) * coarse.columns)
                            }
                        },
                        crossSpreads: pick(crossSpreads), crossInverseSpreads: pick(crossInverseSpreads),
                        crossLogInverseSpreads: pick(crossLogInverseSpreads))
    }

    private init(grid: PosteriorGrid, means: [[Float]], spreads: [[Float]], inverseSpreads: [[Float]],
                 logInverseSpreads: [[Float]], floors: [Int], wallAttenuation: Double?, levels: [Int],
                 floorAttenuation: Double?, crossMeans: [[[Float]]], crossReach: [[Range<Int>]], crossSpreads: [Float],
                 crossInverseSpreads: [Float], crossLogInverseSpreads: [Float]) {
        self.grid = grid
        self.means = means
        self.spreads = spreads
        self.inverseSpreads = inverseSpreads
        self.logInverseSpreads = logInverseSpreads
        self.floors = floors
        self.wallAttenuation = wallAttenuation
        self.levels = levels
        self.floorAttenuation = floorAttenuation
        self.crossMeans = crossMeans
        self.crossReach = crossReach
        self.crossSpreads = crossSpreads
        self.crossInverseSpreads = crossInverseSpreads
        self.crossLogInverseSpreads = crossLogInverseSpreads
    }

    /// The same map with the means of each beacon on the other floors taken with `attenuation`
    /// dB per floor crossed, kept where the beacon may be heard above `detectionFloor` (see
    /// ``RadioMap``); unchanged with one level.
    func countingFloors(venue: PositioningVenue, attenuation: Double, detectionFloor: Double) -> RadioMap {
        var map = self
        map.countFloors(venue: venue, attenuation: attenuation, detectionFloor: detectionFloor)
        return map
    }

    private mutating func countFloors(venue: PositioningVenue, attenuation: Double, detectionFloor: Double) {
        guard levels.count > 1, let spread = crossSpreads.first else { return }
        let metres = venue.venue.units.metres ?? 1
        let attenuation = attenuation.isFinite ? max(attenuation, 0) : Self.defaultFloorAttenuation
        floorAttenuation = attenuation
        let reach = Float(detectionFloor.isFinite ? detectionFloor : PosteriorSolver.defaultDetectionFloor) - 5 * spread
        let levels = self.levels, grid = self.grid
        let centres = (0..<grid.count).map { grid.centre(of: $0) }
        var budget = Self.maximumCrossFloorValues
        crossMeans = venue.positions.indices.map { beacon in
            guard let position = venue.positions[beacon] else { return [] }
            return levels.map { level in
                guard level != venue.floors[beacon], budget >= grid.count else { return [] }
                let mean = centres.map { Float(Self.crossFloorRSSI(venue: venue, beacon: beacon, position: position, at: $0,
                                                                  level: level, metresPerUnit: metres,
                                                                  attenuation: attenuation)) }
                guard (mean.max() ?? -.infinity) >= reach else { return [] }
                budget -= grid.count
                return mean
            }
        }
        let audible = reach + 3 * spread - 10
        crossReach = crossMeans.map { layers in
            layers.map { mean in
                guard !mean.isEmpty else { return 0..<0 }
                var first = grid.rows, last = -1
                for row in 0..<grid.rows where mean[(row * grid.columns)..<((row + 1) * grid.columns)].contains(where: { $0 >= audible }) {
                    first = min(first, row)
                    last = row
                }
                return last < first ? 0..<0 : (first * grid.columns)..<((last + 1) * grid.columns)
            }
        }
    }

    /// The layer (index in ``levels``) of a floor, `nil` when the map has none there.
    public func layer(of level: Int) -> Int? { levels.firstIndex(of: level) }

    /// Whether beacon `beacon` has a map (a position).
    public func hasMap(beacon: Int) -> Bool {
        beacon >= 0 && beacon < means.count && !means[beacon].isEmpty
    }

    /// The mean RSSI of a beacon expected at a cell, dBm; `nil` without a map or outside the grid.
    public func mean(beacon: Int, cell: Int) -> Double? {
        guard hasMap(beacon: beacon), cell >= 0, cell < grid.count else { return nil }
        return Double(means[beacon][cell])
    }

    /// The RSSI spread of a beacon expected at a cell, dB; `nil` without a map or outside the grid.
    public func spread(beacon: Int, cell: Int) -> Double? {
        guard hasMap(beacon: beacon), cell >= 0, cell < grid.count else { return nil }
        return Double(spreads[beacon][cell])
    }

    /// For each correction, the mean absolute error with which it predicts the residuals of
    /// each held-out fold's spots from the other folds' (a spot's error weighted by its
    /// readings): how a survey chooses its kernel. `nil` for no correction at all. Every beacon's
    /// spots are dealt into `folds` by the spots' spatial blocks, on the beacon's floor (`floors`,
    /// by beacon index; its spots are that floor's truths, or truths without a floor).
    static func heldOutErrors(residuals: Residuals, corrections: [SurveyCorrection?], folds: SpatialFolds, floors: [Int],
                              metresPerUnit: Double) -> [Double] {
        var errors = [Double](repeating: 0, count: corrections.count)
        var weight = 0.0
        for (beacon, spots) in residuals.spots.enumerated() where !spots.isEmpty {
            let floor = beacon < floors.count ? floors[beacon] : nil
            let foldOf = spots.map { folds.fold(of: $0.point, floor: floor) ?? folds.fold(of: $0.point, floor: nil) }
            for (index, spot) in spots.enumerated() {
                guard let fold = foldOf[index] else { continue }
                weight += spot.count
                for (which, correction) in corrections.enumerated() {
                    var shift = 0.0
                    if let correction {
                        let h = correction.bandwidth / metresPerUnit, reach = 3 * h
                        var s0 = 0.0, s1 = 0.0
                        for (other, neighbour) in spots.enumerated() where foldOf[other] != fold {
                            let dx = neighbour.point.x - spot.point.x, dy = neighbour.point.y - spot.point.y
                            guard abs(dx) <= reach, abs(dy) <= reach else { continue }
                            let k = exp(-(dx * dx + dy * dy) / (2 * h * h)) * neighbour.count
                            s0 += k
                            s1 += k * neighbour.mean
                        }
                        shift = s1 / (s0 + max(correction.priorReadings, 1e-6))
                    }
                    errors[which] += spot.count * abs(spot.mean - shift)
                }
            }
        }
        return weight > 0 ? errors.map { $0 / weight } : errors.map { _ in .nan }
    }
}
