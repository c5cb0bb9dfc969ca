import Foundation

/// The cells of a ``PosteriorGrid`` that lie in each of a venue's places, so that a posterior
/// over the cells is also a probability for each place: the sum of its cells' weights.
///
/// A cell belongs to the smallest place of a floor containing its centre (a desk inside a hall
/// is the desk's, as with ``PlaceContainment``), and to at most one place of each floor. Places
/// without an area (labels) hold no cell; a place smaller than a cell may hold none.
///
/// ```swift
/// let cells = PlaceCells(places: venue.places, grid: grid)
/// cells.probabilities(of: filter.weights, floor: 0)   // [PlaceEstimate("kitchen", 0.82), …]
/// ```
public struct PlaceCells: Sendable {
    /// The smallest probability a place is reported with.
    public static let minimumProbability = 1e-3

    /// One place's cells.
    struct Entry: Sendable {
        let id: String
        let floor: Int
        let cells: [Int32]
    }

    /// The places holding a cell, smallest first.
    let entries: [Entry]

    /// The cells of each of `places` on `grid`.
    public init(places: [Venue.Place], grid: PosteriorGrid) {
        let sized = places.enumerated().compactMap { index, place -> (index: Int, area: Double, place: Venue.Place)? in
            guard let area = place.shape.area, area.isFinite, area > 0 else { return nil }
            return (index, area, place)
        }.sorted { ($0.area, $0.index) < ($1.area, $1.index) }
        var claimed: [Int: [Bool]] = [:]
        var entries: [Entry] = []
        for (_, _, place) in sized {
            guard let box = SurveyArea.box(of: place.shape) else { continue }
            var taken = claimed[place.floor] ?? [Bool](repeating: false, count: grid.count)
            var cells: [Int32] = []
            // Only the cells between those holding the box's corners (the grid's nearest when outside).
            if let first = grid.cell(containing: PlanarPoint(x: box.minX, y: box.minY)),
               let last = grid.cell(containing: PlanarPoint(x: box.maxX, y: box.maxY)) {
                for row in (first / grid.columns)...(last / grid.columns) {
                    for column in (first % grid.columns)...(last % grid.columns) {
                        let cell = row * grid.columns + column
                        guard !taken[cell], place.shape.contains(grid.centre(of: cell)) else { continue }
                        taken[cell] = true
                        cells.append(Int32(cell))
                    }
                }
            }
            claimed[place.floor] = taken
            if !cells.isEmpty { entries.append(Entry(id: place.id, floor: place.floor, cells: cells)) }
        }
        self.entries = entries
    }

    /// Whether no place holds a cell.
    public var isEmpty: Bool { entries.isEmpty }

    /// The probability of each place of `floor` under `weights` (one per cell, from the
    /// collection's first index; summing to at most 1): the places holding at least
    /// ``minimumProbability``, most probable first (ties: the smaller place first).
    public func probabilities<Weights: RandomAccessCollection<Float>>(of weights: Weights, floor: Int) -> [PlaceEstimate]
        where Weights.Index == Int {
        var found: [(rank: Int, probability: Double)] = []
        let base = weights.startIndex
        for (rank, entry) in entries.enumerated() where entry.floor == floor {
            var sum = 0.0
            for cell in entry.cells where Int(cell) < weights.count { sum += Double(weights[base + Int(cell)]) }
            if sum >= Self.minimumProbability { found.append((rank, min(sum, 1))) }
        }
        found.sort { $0.probability != $1.probability ? $0.probability > $1.probability : $0.rank < $1.rank }
        return found.map { PlaceEstimate(place: entries[$0.rank].id, probability: $0.probability) }
    }
}
