/// A path of collection and document ids below a database's `documents` root: `users/ada/posts/p1`.
///
/// An odd number of segments names a collection, an even (non-zero) number a document; the empty
/// path is the root. Segments are compared by ``compareSegments(_:_:)`` and never by `String ==`.
package struct ResourcePath: Sendable, Hashable, CustomStringConvertible {
    package private(set) var segments: [String]

    /// Maximum UTF-8 bytes of one collection or document id.
    package static let maxSegmentBytes = 1500

    /// A path of already validated segments.
    package init(segments: [String] = []) { self.segments = segments }

    /// Parses `c/d/e` (no leading or trailing slash; the empty string is the root) and validates
    /// every segment with ``validateSegment(_:)``.
    package init(parsing text: String) throws(EmulatorError) {
        segments = []
        if text.utf8.isEmpty { return }
        for part in text.utf8.split(separator: 0x2F, omittingEmptySubsequences: false) {
            let segment = String(decoding: part, as: UTF8.self)
            try ResourcePath.validateSegment(segment)
            segments.append(segment)
        }
    }

    /// Checks one collection or document id: non-empty, at most 1,500 UTF-8 bytes, no `/`, not `.`
    /// or `..`, and not `__…__` unless it is a numeric id `__id<int64>__`.
    package static func validateSegment(_ id: String) throws(EmulatorError) {
        let bytes = id.utf8
        let count = bytes.count
        if count == 0 {
            throw .invalidArgument("Resource id must not be empty.")
        }
        if count > maxSegmentBytes {
            throw .invalidArgument(
                "Resource id \"\(id)\" is invalid because it is longer than \(maxSegmentBytes) bytes.")
        }
        // Over the contiguous bytes (every native string has them): every request path's ids pass
        // here, and a generic walk of the view costs tens of instructions a byte.
        if bytes.withContiguousStorageIfAvailable({ $0.contains(0x2F) }) ?? bytes.contains(0x2F) {
            throw .invalidArgument("Resource id \"\(id)\" is invalid because it contains \"/\".")
        }
        if count <= 2, bytes.allSatisfy({ $0 == 0x2E }) {  // "." or ".."
            throw .invalidArgument("Resource id \"\(id)\" is invalid because it is \".\" or \"..\".")
        }
        if isReservedName(id) && numericID(id) == nil {
            throw .invalidArgument("Resource id \"\(id)\" is invalid because it is reserved.")
        }
    }

    /// True for names of the form `__…__` (at least 4 bytes), which Firestore reserves.
    package static func isReservedName(_ name: String) -> Bool {
        let b = name.utf8
        guard b.count >= 4, b.first == 0x5F, b.last == 0x5F else { return false }
        return b[b.index(after: b.startIndex)] == 0x5F && b[b.index(b.endIndex, offsetBy: -2)] == 0x5F
    }

    /// The integer of a numeric id `__id<int64>__` (ids exposed from Datastore), else nil.
    package static func numericID(_ segment: String) -> Int64? {
        let b = segment.utf8
        // Cheap rejection first: this runs for every segment comparison of `__name__` orderings.
        guard b.count > 6, b.first == 0x5F, b.last == 0x5F else { return nil }
        let bytes = Array(b)
        guard bytes[1] == 0x5F, bytes[2] == 0x69, bytes[3] == 0x64, bytes[4] != 0x2B, bytes[bytes.count - 2] == 0x5F
        else { return nil }
        return Int64(String(decoding: bytes[4..<(bytes.count - 2)], as: UTF8.self))
    }

    package var isEmpty: Bool { segments.isEmpty }
    package var count: Int { segments.count }
    /// An even, non-zero number of segments.
    package var isDocument: Bool { !segments.isEmpty && segments.count % 2 == 0 }
    /// An odd number of segments.
    package var isCollection: Bool { segments.count % 2 == 1 }
    /// The last segment (document id or collection id), nil for the root.
    package var lastSegment: String? { segments.last }
    /// The path without its last segment; nil for the root.
    package var parent: ResourcePath? {
        segments.isEmpty ? nil : ResourcePath(segments: Array(segments.dropLast()))
    }
    /// For a document: the id of the collection that contains it; for a collection: its own id.
    package var collectionID: String? {
        isDocument ? segments[segments.count - 2] : segments.last
    }

    /// This path with `segment` added at the end (not validated).
    package func appending(_ segment: String) -> ResourcePath {
        ResourcePath(segments: segments + [segment])
    }

    /// True when `self` is a (non-strict) prefix of `other`, comparing segments by bytes.
    package func isPrefix(of other: ResourcePath) -> Bool {
        guard segments.count <= other.segments.count else { return false }
        for i in segments.indices where !UTF8Order.equal(segments[i], other.segments[i]) { return false }
        return true
    }

    /// Segments joined by `/`.
    package var description: String { segments.joined(separator: "/") }

    /// Equal exactly when every segment has the same bytes (``compare(_:_:)`` is 0 only then),
    /// without the numeric-id parsing an ordering needs.
    package static func == (a: ResourcePath, b: ResourcePath) -> Bool {
        guard a.segments.count == b.segments.count else { return false }
        for i in a.segments.indices where !UTF8Order.equal(a.segments[i], b.segments[i]) { return false }
        return true
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(segments.count)
        for s in segments { Value.hashUTF8(s, into: &hasher) }
    }
}

extension ResourcePath {
    /// Firestore's id order: numeric ids `__id<n>__` first, by their integer; then all other ids
    /// by UTF-8 bytes. Returns negative, 0 or positive.
    package static func compareSegments(_ a: String, _ b: String) -> Int {
        switch (numericID(a), numericID(b)) {
        case (let x?, let y?):
            if x != y { return x < y ? -1 : 1 }
            return UTF8Order.compare(a, b)  // "__id01__" vs "__id1__": still distinct ids
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return UTF8Order.compare(a, b)
        }
    }

    /// Segment by segment, then by segment count (a prefix sorts first).
    package static func compare(_ a: ResourcePath, _ b: ResourcePath) -> Int {
        let n = min(a.segments.count, b.segments.count)
        for i in 0..<n {
            let c = compareSegments(a.segments[i], b.segments[i])
            if c != 0 { return c }
        }
        return a.segments.count == b.segments.count ? 0 : (a.segments.count < b.segments.count ? -1 : 1)
    }

    /// Compares two full resource names (as carried by reference values) segment by segment.
    package static func compareNames(_ a: String, _ b: String) -> Int {
        var ia = a.utf8.split(separator: 0x2F, omittingEmptySubsequences: false).makeIterator()
        var ib = b.utf8.split(separator: 0x2F, omittingEmptySubsequences: false).makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?):
                let c = compareSegments(String(decoding: x, as: UTF8.self), String(decoding: y, as: UTF8.self))
                if c != 0 { return c }
            }
        }
    }
}
