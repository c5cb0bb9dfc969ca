/// A regular grid of square cells over a venue's plan: the positions a ``PosteriorSolver``
/// weighs. Cell `i` lies in column `i % columns` and row `i / columns`; its centre is
/// `(minX + (column + ½)·cellSize, minY + (row + ½)·cellSize)`.
///
/// ```swift
/// let grid = PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 10, maxY: 4),
///                          cellSize: 0.5, maximumCells: 8192)
/// grid?.count        // 20 × 8 = 160
/// grid?.centre(of: 0) // (0.25, 0.25)
/// ```
public struct PosteriorGrid: Hashable, Sendable {
    /// The west edge of the grid, venue units.
    public let minX: Double
    /// The south edge of the grid, venue units.
    public let minY: Double
    /// The side of a cell, venue units.
    public let cellSize: Double
    /// Cells from west to east.
    public let columns: Int
    /// Cells from south to north.
    public let rows: Int

    /// The number of cells.
    public var count: Int { columns * rows }

    /// A grid covering `extent` with cells of `cellSize` (venue units), the cells made larger when
    /// more than `maximumCells` would be needed; `nil` when the extent or the size is not finite
    /// and positive or `maximumCells` is less than 1.
    public init?(extent: PositioningVenue.Extent, cellSize: Double, maximumCells: Int) {
        let width = extent.maxX - extent.minX, height = extent.maxY - extent.minY
        guard width.isFinite, height.isFinite, width >= 0, height >= 0, cellSize.isFinite, cellSize > 0,
              maximumCells >= 1 else { return nil }
        var size = cellSize
        // At most 64 enlargements by 5 %: ×22 on the side, ×480 in cells.
        var columns = 1, rows = 1
        for _ in 0..<64 {
            columns = max(1, Int((width / size).rounded(.up)))
            rows = max(1, Int((height / size).rounded(.up)))
            if columns <= maximumCells, rows <= maximumCells, columns * rows <= maximumCells { break }
            size *= 1.05
        }
        guard columns * rows <= maximumCells else { return nil }
        self.cellSize = size
        self.columns = columns
        self.rows = rows
        // Centred on the extent.
        minX = (extent.minX + extent.maxX) / 2 - Double(columns) * size / 2
        minY = (extent.minY + extent.maxY) / 2 - Double(rows) * size / 2
    }

    /// The grid of blocks of `factor` × `factor` of this grid's cells (the last row and column of
    /// blocks cut short where the cells run out): the same west and south edges, cells `factor`
    /// times as large. Its cell `b` stands for the block whose centre cell is
    /// ``sampledCell(of:factor:)``.
    func sampled(every factor: Int) -> PosteriorGrid {
        let factor = max(factor, 1)
        return PosteriorGrid(minX: minX, minY: minY, cellSize: cellSize * Double(factor),
                             columns: (columns + factor - 1) / factor, rows: (rows + factor - 1) / factor)
    }

    /// The cell of this grid that stands for block `block` of ``sampled(every:)``'s grid: the
    /// block's centre cell (`factor` odd), or the cell after it, within the grid.
    func sampledCell(of block: Int, factor: Int) -> Int {
        let factor = max(factor, 1), blockColumns = (columns + factor - 1) / factor
        let column = min((block % blockColumns) * factor + factor / 2, columns - 1)
        let row = min((block / blockColumns) * factor + factor / 2, rows - 1)
        return row * columns + column
    }

    private init(minX: Double, minY: Double, cellSize: Double, columns: Int, rows: Int) {
        self.minX = minX
        self.minY = minY
        self.cellSize = cellSize
        self.columns = columns
        self.rows = rows
    }

    /// The centre of a cell.
    public func centre(of cell: Int) -> PlanarPoint {
        PlanarPoint(x: minX + (Double(cell % columns) + 0.5) * cellSize, y: minY + (Double(cell / columns) + 0.5) * cellSize)
    }

    /// The cell holding a point (the nearest cell for a point outside the grid), or `nil` when the
    /// point is not finite.
    public func cell(containing point: PlanarPoint) -> Int? {
        guard point.x.isFinite, point.y.isFinite else { return nil }
        let column = min(max(Int(max(min((point.x - minX) / cellSize, 1e9), -1)), 0), columns - 1)
        let row = min(max(Int(max(min((point.y - minY) / cellSize, 1e9), -1)), 0), rows - 1)
        return row * columns + column
    }
}
