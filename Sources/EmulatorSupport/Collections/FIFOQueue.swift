/// A first-in, first-out queue whose `popFirst()` is O(1) amortised: taken elements leave a
/// hole at the front that is closed once it is at least half the storage, instead of shifting
/// every remaining element on each take as `Array.removeFirst()` does.
///
/// ```swift
/// var q = FIFOQueue<Int>()
/// q.append(1); q.append(2)
/// q.popFirst()  // 1
/// q.count       // 1
/// ```
package struct FIFOQueue<Element> {
    private var storage: [Element?] = []
    private var head = 0

    package init() {}

    package var isEmpty: Bool { head == storage.count }
    package var count: Int { storage.count - head }

    package mutating func append(_ element: Element) { storage.append(element) }

    /// The oldest element, removed; nil when empty.
    package mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        storage[head] = nil
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.count <= 1024)
            head = 0
        } else if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    package mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}

extension FIFOQueue: Sendable where Element: Sendable {}
