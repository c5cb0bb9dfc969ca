import Foundation

/// What the walls between a beacon and a receiver cost, measured on a survey: a loss per wall
/// crossed (``VenueWalls``: the edges of the venue's polygon places) and, per beacon, the level
/// and slope its log-distance model gains once the walls are counted.
///
/// **Fit.** The survey's readings of each placed beacon on its own floor, at the truths, leave
/// residuals y against the calibrated model, with L = log₁₀ d and w walls crossed. The
/// calibration has already bent each beacon's txPower and exponent to absorb the walls it
/// could, so the loss a wall costs is what w explains of y beyond each beacon's own line in L:
/// `a = −Σ w̃·ỹ / Σ w̃²`, w̃ and ỹ being w and y less their least-squares lines in (1, L) per beacon
/// (Frisch–Waugh), kept within 0…``maximumAttenuation``. Each beacon's line is then refitted to
/// `y + a·w` over (1, L) with a ridge worth ``ridgeReadings`` readings pulling it toward none.
/// An open plan cut into cells fits a loss near 0: its edges are not walls.
///
/// The model at a point is then `calibrated − a·w + level + slope·L`.
///
/// ```swift
/// if let loss = WallLoss(venue: venue, training: survey) { print(loss.attenuation) }   // dB per wall
/// ```
public struct WallLoss: Sendable {
    /// The walls.
    public let walls: VenueWalls
    /// The loss per wall crossed, dB.
    public let attenuation: Double
    /// Per beacon (the venue's order): the level (dB) and slope (dB per decade of distance)
    /// added to its model; zeros for a beacon the survey did not hear enough.
    public let refits: [(level: Double, slope: Double)]
    /// The largest loss per wall believed, dB.
    public static let maximumAttenuation = 12.0
    /// How many readings the ridge that keeps a beacon's refit near none is worth.
    public static let ridgeReadings = 20.0
    /// The fewest readings crossing a wall (and the fewest not) for a fit.
    public static let minimumReadings = 30

    /// A wall loss of given parts.
    public init(walls: VenueWalls, attenuation: Double, refits: [(level: Double, slope: Double)]) {
        self.walls = walls
        self.attenuation = attenuation
        self.refits = refits
    }

    /// The loss fitted to `training`'s readings with true positions, or `nil` when the venue
    /// has no polygon place or the survey crosses walls (or not) in fewer than
    /// ``minimumReadings`` readings.
    public init?(venue: PositioningVenue, training: [Scan]) {
        let walls = VenueWalls(venue.venue)
        guard !walls.isEmpty else { return nil }
        let metres = venue.venue.units.metres ?? 1
        // Per beacon: (y, L, w) of each reading.
        var rows = [[(y: Double, l: Double, w: Double)]](repeating: [], count: venue.positions.count)
        var crossing = 0, clear = 0
        RadioMap.forEachSurveyedReading(venue: venue, training: training) { beacon, position, truth, rssi in
            let model = RadioMap.modelRSSI(venue: venue, beacon: beacon, position: position, at: truth,
                                           metresPerUnit: metres, walls: nil)
            let w = Double(walls.crossings(from: position.planar, to: truth, floor: venue.floors[beacon]))
            let y = rssi - model
            guard y.isFinite else { return }
            rows[beacon].append((y, log10(RadioMap.distance(venue: venue, position: position, at: truth, metresPerUnit: metres)), w))
            if w > 0 { crossing += 1 } else { clear += 1 }
        }
        guard crossing >= Self.minimumReadings, clear >= Self.minimumReadings else { return nil }
        var numerator = 0.0, denominator = 0.0
        for beacon in rows where beacon.count >= 3 {
            let lineY = Self.line(beacon.map { ($0.l, $0.y) }, ridge: 0), lineW = Self.line(beacon.map { ($0.l, $0.w) }, ridge: 0)
            for row in beacon {
                let wt = row.w - (lineW.level + lineW.slope * row.l), yt = row.y - (lineY.level + lineY.slope * row.l)
                numerator += wt * yt
                denominator += wt * wt
            }
        }
        guard denominator > 1e-9 else { return nil }
        let attenuation = min(max(-numerator / denominator, 0), Self.maximumAttenuation)
        let refits = rows.map { beacon in
            beacon.isEmpty ? (0, 0) : Self.line(beacon.map { ($0.l, $0.y + attenuation * $0.w) }, ridge: Self.ridgeReadings)
        }
        self.init(walls: walls, attenuation: attenuation, refits: refits)
    }

    /// The least-squares line `level + slope·x` through `points`, with a ridge of `ridge` on both.
    static func line(_ points: [(x: Double, y: Double)], ridge: Double) -> (level: Double, slope: Double) {
        var n = ridge, sx = 0.0, sxx = ridge, sy = 0.0, sxy = 0.0
        for point in points {
            n += 1
            sx += point.x
            sxx += point.x * point.x
            sy += point.y
            sxy += point.x * point.y
        }
        let determinant = n * sxx - sx * sx
        guard abs(determinant) > 1e-12 else { return (points.isEmpty ? 0 : sy / n, 0) }
        return ((sxx * sy - sx * sxy) / determinant, (n * sxy - sx * sy) / determinant)
    }

    /// The dB this loss adds to beacon `beacon`'s calibrated model at a point `metres` away
    /// (3-D) across `crossings` walls.
    func adjustment(beacon: Int, metres: Double, crossings: Int) -> Double {
        let refit: (level: Double, slope: Double) = beacon < refits.count ? refits[beacon] : (0, 0)
        return refit.level + refit.slope * log10(metres) - attenuation * Double(crossings)
    }
}
