import Synchronization

/// The superseded versions of one entry, oldest first: a window (`start`, `count`) of a buffer
/// that copies of the history share.
///
/// A history is shared between the tree a commit copies and the published tree it copied, so the
/// commit's append finds it shared. Copying it then would cost a retain per version kept (and a
/// release when the old tree goes), so a document written n times would cost O(n) per write for
/// as long as its history is kept. Instead the buffer only ever grows at its end: an append
/// whose window ends where the buffer's filled part ends writes the next element in place, past
/// what any other copy's window covers, so it copies nothing whoever shares the buffer. Only an
/// append behind the end (a copy that was appended to already) or into a full buffer copies the
/// window into a new buffer, with room to double. Dropping versions moves the window; once most
/// of a buffer is dropped the window moves to a buffer of its own, so dropped versions are freed
/// (the memory bound on history counts on that).
///
/// A leaf stores a history once and does not store it again when a write only appended in
/// place: the versions a leaf's entry has are those of its stored window plus the buffer's later
/// ones older than the entry's update time (`extended(before:)`): a later append is always a
/// version at or after that time.
struct VersionHistory: Sendable, RandomAccessCollection, ExpressibleByArrayLiteral {
    private var buffer: HistoryBuffer?
    private var start = 0
    private(set) var count = 0

    init() {}

    init(arrayLiteral versions: EntryVersion...) {
        for version in versions { append(version) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(index: Int) -> EntryVersion {
        precondition(index >= 0 && index < count, "history index out of range")
        return buffer.unsafelyUnwrapped[start + index]
    }

    mutating func append(_ version: EntryVersion) {
        if let buffer, buffer.append(version, at: start + count) {
            count += 1
            return
        }
        moveToNewBuffer(capacity: Swift.max(4, 2 * (count + 1)))
        _ = buffer.unsafelyUnwrapped.append(version, at: count)
        count += 1
    }

    /// Removes the newest version (the history must not be empty). The buffer keeps it (another
    /// copy may hold it); the next append copies the window.
    mutating func removeLast() {
        precondition(count > 0, "removeLast of an empty history")
        count -= 1
        if count == 0 { self = VersionHistory() }
    }

    /// Removes the `k` oldest versions (at most `count`).
    mutating func removeFirst(_ k: Int) {
        let k = Swift.min(Swift.max(k, 0), count)
        guard k > 0 else { return }
        start += k
        count -= k
        if count == 0 {
            self = VersionHistory()
        } else if start > 2 * count + 4 {
            // Most of the buffer is versions no window of this history needs any more.
            moveToNewBuffer(capacity: 2 * count)
        }
    }

    /// This history as stored for an entry whose update time is `time`, with the versions
    /// appended to the buffer in place since it was stored (see the type's notes).
    @inline(__always)
    func extended(before time: CommitTime) -> VersionHistory {
        guard let buffer else { return self }
        var end = start + count
        let filled = buffer.filled
        guard end < filled else { return self }
        while end < filled && buffer.time(at: end) < time { end += 1 }
        var extended = self
        extended.count = end - start
        return extended
    }

    /// Whether `other` is this history's window, or that window extended by appends in place:
    /// then a leaf storing this history need not store `other` (`extended(before:)` finds it).
    func isPrefix(of other: VersionHistory) -> Bool {
        buffer === other.buffer && start == other.start && count <= other.count
    }

    /// Whether two histories share one buffer (for tests of what an append copies).
    func sharesBuffer(with other: VersionHistory) -> Bool { buffer != nil && buffer === other.buffer }

    private mutating func moveToNewBuffer(capacity: Int) {
        let moved = HistoryBuffer(capacity: Swift.max(capacity, count))
        for index in 0..<count { _ = moved.append(self[index], at: index) }
        buffer = moved
        start = 0
    }
}

/// The storage of histories: elements `0..<filled` are set and never change again; one appender
/// at a time claims the next place (`append`), so copies of a history sharing the buffer never
/// see each other's appends inside their windows.
///
/// Safety of `@unchecked Sendable`: an element is written once, by the thread that claimed its
/// place (`claimed`, compare-and-exchange), before `filled` (released) moves past it; readers
/// read only below `filled` (acquired) or below the end of a window they were handed through
/// something that ordered them after the write (a published tree, a lock). Nothing else is
/// mutable.
final class HistoryBuffer: @unchecked Sendable {
    private let capacity: Int
    private let elements: UnsafeMutablePointer<EntryVersion>
    /// Places claimed by appenders (≥ `filled`).
    private let claimed = Atomic<Int>(0)
    /// Places set: readable.
    private let filledCount = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
        elements = UnsafeMutablePointer<EntryVersion>.allocate(capacity: capacity)
    }

    deinit {
        elements.deinitialize(count: filledCount.load(ordering: .acquiring))
        elements.deallocate()
    }

    var filled: Int { filledCount.load(ordering: .acquiring) }

    subscript(index: Int) -> EntryVersion { elements[index] }

    /// The time of element `index` (read without copying the element's value).
    @inline(__always)
    func time(at index: Int) -> CommitTime { elements[index].time }

    /// Sets element `index` to `version` if `index` is the first free place and there is room;
    /// false otherwise (nothing changed).
    func append(_ version: EntryVersion, at index: Int) -> Bool {
        guard index < capacity, claimed.compareExchange(expected: index, desired: index + 1, ordering: .relaxed).exchanged else {
            return false
        }
        (elements + index).initialize(to: version)
        filledCount.store(index + 1, ordering: .releasing)
        return true
    }
}
