/// A leaf's side array (its large values, its histories): an array of elements kept in chunks
/// of ``chunkSize``.
///
/// A commit copies every leaf it writes to that the published tree shares, and the copy's first
/// change of an element finds the side array shared. A flat array would then be copied whole (a
/// retain of each of up to 64 elements), and freed whole with the old leaf (a release of each);
/// here the change copies the list of chunks and the one chunk it lands in. Element `i` is at
/// `chunks[i / chunkSize][i % chunkSize]`; every chunk but the last is full.
struct LeafSideArray<Element>: Sendable where Element: Sendable {
    static var chunkSize: Int { 16 }

    private var chunks: [[Element]] = []
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    subscript(index: Int) -> Element {
        @inline(__always) get { chunks[index / Self.chunkSize][index % Self.chunkSize] }
        @inline(__always) set { chunks[index / Self.chunkSize][index % Self.chunkSize] = newValue }
    }

    mutating func append(_ element: Element) {
        if count % Self.chunkSize == 0 {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }

    /// Whether chunk `chunk` of this array and of `other` is one and the same buffer (for tests
    /// of what a copy shares).
    func sharesChunk(_ chunk: Int, with other: LeafSideArray) -> Bool {
        chunks[chunk].withUnsafeBufferPointer { mine in
            other.chunks[chunk].withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
        }
    }
}
