import Testing
@testable import Whereabouts

/// The queue under the mailbox, the delayed track and the relay: order kept across compactions.
@Suite struct FIFOBufferTests {
    @Test func elementsComeOutInOrderAcrossCompactions() {
        var queue = FIFOBuffer<Int>(compactingAfter: 4)
        var expected: [Int] = []
        var next = 0
        var taken: [Int] = []
        // Always one or two waiting, so that the queue never empties and only compaction bounds it.
        for round in 0..<100 {
            queue.append(next); expected.append(next); next += 1
            if round % 3 != 0 { queue.append(next); expected.append(next); next += 1 }
            if let first = queue.popFirst() { taken.append(first) }
        }
        #expect(queue.count == expected.count - taken.count)
        #expect(queue.first == expected[taken.count])
        #expect(queue[1] == expected[taken.count + 1])
        #expect(Array(queue.prefix(3)) == Array(expected[taken.count..<(taken.count + 3)]))
        queue.removeFirst(2)
        taken += expected[taken.count..<(taken.count + 2)]
        while let first = queue.popFirst() { taken.append(first) }
        #expect(taken == expected)
        #expect(queue.isEmpty && queue.first == nil && queue.count == 0)
        queue.removeFirst(5)
        #expect(queue.isEmpty)
    }
}
