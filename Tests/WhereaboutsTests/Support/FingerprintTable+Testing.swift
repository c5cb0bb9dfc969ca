import Testing
@testable import Whereabouts

extension FingerprintTable {
    /// Expects the pruned search (``nearest(to:beacons:floor:metric:fill:into:)``) to find exactly
    /// the `k` neighbours of the plain row-by-row one, in the same order and bit for bit.
    func expectSameNeighbours(of query: [Double], beacons: ContiguousArray<Int>, floor: Int?,
                              metric: FingerprintSolver.Metric, fill: Double, k: Int,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        var fast = [Neighbour](repeating: .init(distance: -1, row: -1), count: k)
        var plain = fast
        let found = query.withUnsafeBufferPointer { query in
            fast.withUnsafeMutableBufferPointer {
                nearest(to: query, beacons: beacons, floor: floor, metric: metric, fill: fill, into: $0)
            }
        }
        let expected = query.withUnsafeBufferPointer { query in
            plain.withUnsafeMutableBufferPointer {
                nearestRowByRow(to: query, beacons: beacons, floor: floor, metric: metric, fill: fill, into: $0)
            }
        }
        #expect(found == expected, sourceLocation: sourceLocation)
        #expect(fast.prefix(found).map(\.row) == plain.prefix(expected).map(\.row), sourceLocation: sourceLocation)
        #expect(fast.prefix(found).map(\.distance.bitPattern) == plain.prefix(expected).map(\.distance.bitPattern),
                sourceLocation: sourceLocation)
    }
}
