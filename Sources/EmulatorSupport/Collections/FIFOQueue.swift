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
///
/// Public and inlinable so it is specialised in the modules that use it: unspecialised across
/// the module boundary, queueing and taking an element cost a gRPC call about 1,600
/// instructions. (`package` with `@inlinable` was not enough with Swift 6.2: the callers still
/// called the generic code.)
public struct FIFOQueue<Element> {
    @usableFromInline var storage: [Element?] = []
    @usableFromInline var head = 0

    @inlinable public init() {}

    @inlinable public var isEmpty: Bool { head == storage.count }
    @inlinable public var count: Int { storage.count - head }

    @inlinable public mutating func append(_ element: Element) { storage.append(element) }

    /// The oldest element, removed; nil when empty.
    @inlinable public mutating func popFirst() -> Element? {
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

    @inlinable public mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}

extension FIFOQueue: Sendable where Element: Sendable {}
