/// The most recent `capacity` elements, each numbered 1, 2, 3, … on arrival (numbers are never
/// reused, also after `removeAll()`), so a reader polling with the last number it saw gets only
/// what is new. The UI's log book and the rules request log keep one each, under their own lock.
///
/// ```swift
/// var ring = NumberedRing<String>(capacity: 2)
/// ring.append { "line \($0)" }; ring.append { "line \($0)" }; ring.append { "line \($0)" }
/// ring.newer(than: 0)  // [(2, "line 2"), (3, "line 3")]
/// ```
package struct NumberedRing<Element: Sendable>: Sendable {
    package let capacity: Int
    private var ring: [(number: Int, element: Element)] = []
    /// Index of the oldest element once the ring is full.
    private var head = 0
    /// The newest number given out (0 before the first).
    package private(set) var last = 0

    package init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Numbers the next element, builds it with its number and keeps it, dropping the oldest
    /// when full.
    package mutating func append(_ make: (Int) -> Element) {
        last += 1
        let item = (last, make(last))
        if ring.count < capacity {
            ring.append(item)
        } else {
            ring[head] = item
            head = (head + 1) % capacity
        }
    }

    /// The kept elements numbered above `after`, oldest first.
    package func newer(than after: Int) -> [(number: Int, element: Element)] {
        var out: [(number: Int, element: Element)] = []
        for k in 0..<ring.count {
            let item = ring[(head + k) % ring.count]
            if item.number > after { out.append(item) }
        }
        return out
    }

    /// The kept element numbered `number`.
    package func element(_ number: Int) -> Element? { ring.first { $0.number == number }?.element }

    /// Forgets every element; numbering goes on.
    package mutating func removeAll() {
        ring.removeAll(keepingCapacity: true)
        head = 0
    }
}
