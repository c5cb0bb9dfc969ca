/// A first-in, first-out queue over an array with a moving head: taking the oldest element is
/// O(1), and the room of the elements taken is given back in bulk — at once when the queue empties,
/// else once they are at least `compactingAfter` and half of the array — so that a queue that never
/// quite empties does not grow without end.
///
/// ```swift
/// var queue = FIFOBuffer<Int>(compactingAfter: 64)
/// queue.append(1); queue.append(2)
/// queue.popFirst()   // 1
/// queue.count        // 1
/// ```
package struct FIFOBuffer<Element> {
    private var storage: [Element] = []
    private var head = 0
    private let compactionThreshold: Int

    /// An empty queue that gives back the room of taken elements once at least `threshold` of them
    /// are half of its array.
    package init(compactingAfter threshold: Int = 64) {
        compactionThreshold = max(1, threshold)
    }

    /// The elements waiting.
    package var count: Int { storage.count - head }

    /// Whether none waits.
    package var isEmpty: Bool { head == storage.count }

    /// The oldest element, if any.
    package var first: Element? { isEmpty ? nil : storage[head] }

    /// The element `offset` places after the oldest (`0` is the oldest).
    package subscript(offset: Int) -> Element { storage[head + offset] }

    /// The oldest `length` elements (fewer when fewer wait), oldest first.
    package func prefix(_ length: Int) -> ArraySlice<Element> {
        storage[head..<min(storage.count, head + max(0, length))]
    }

    /// Adds an element after the others.
    package mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Takes the oldest element, if any.
    package mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        head += 1
        compact()
        return element
    }

    /// Drops the oldest `length` elements (all of them when fewer wait).
    package mutating func removeFirst(_ length: Int) {
        head = min(storage.count, head + max(0, length))
        compact()
    }

    private mutating func compact() {
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= compactionThreshold, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}

extension FIFOBuffer: Sendable where Element: Sendable {}
