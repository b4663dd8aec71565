import EmulatorSupport

/// A path-shaped key inside one namespace: a sequence of non-empty UTF-8 segments.
///
/// Keys are stored in an order-preserving byte encoding: each segment's bytes followed by a
/// 0x00 terminator, with 0x00 and 0x01 inside a segment escaped as 0x01 0x01 and 0x01 0x02.
/// Comparing encodings bytewise orders keys parent first, then children by segment bytes, and
/// every subtree is one contiguous range:
///
/// ```swift
/// let doc = StorageKey("users/alice")              // ["users", "alice"]
/// doc.isAncestor(of: StorageKey("users/alice/posts/1"))  // true
/// StorageKey("a") < StorageKey("a/z") && StorageKey("a/z") < StorageKey("ab")  // true
/// ```
package struct StorageKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The order-preserving encoding (see the type's documentation).
    package let encoded: [UInt8]

    /// The root key (no segments); the ancestor of every key.
    package static let root = StorageKey(trustedEncoding: [])

    package init(trustedEncoding: [UInt8]) { self.encoded = trustedEncoding }

    package static func == (a: StorageKey, b: StorageKey) -> Bool { a.encoded == b.encoded }

    /// The encoding's bytes in one go (an array of bytes hashes each byte on its own).
    package func hash(into hasher: inout Hasher) {
        encoded.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// A key from segments. Empty segments are not representable: they are dropped.
    package init(segments: some Sequence<String>) {
        var bytes: [UInt8] = []
        for segment in segments where !segment.isEmpty {
            // Native strings hand over their UTF-8 bytes directly (no per-byte view iteration).
            if segment.utf8.withContiguousStorageIfAvailable({ StorageKey.appendEscaped($0, to: &bytes) }) == nil {
                StorageKey.appendEscaped(segment.utf8, to: &bytes)
            }
        }
        self.encoded = bytes
    }

    /// ``init(segments:)`` for an array (what document paths hold): not generic, so callers in
    /// other modules do not go through the protocol witnesses of an unspecialized generic, and
    /// the key is allocated once.
    package init(segments: [String]) {
        var count = 0
        for segment in segments { count += segment.utf8.count + 1 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for segment in segments where !segment.isEmpty {
            let copied: Void? = segment.utf8.withContiguousStorageIfAvailable { utf8 in
                // Bytes 0 and 1 (escaped) are rare in names: copy the segment whole without them.
                if utf8.contains(where: { $0 <= 1 }) {
                    StorageKey.appendEscaped(utf8, to: &bytes)
                } else {
                    bytes.append(contentsOf: utf8)
                    bytes.append(0)
                }
            }
            if copied == nil { StorageKey.appendEscaped(segment.utf8, to: &bytes) }
        }
        self.encoded = bytes
    }

    /// A key from a `/`-separated path; empty segments (`//`, leading or trailing `/`) are skipped.
    package init(_ path: String) {
        self.init(segments: path.split(separator: "/", omittingEmptySubsequences: true).map(String.init))
    }

    /// A key from raw segment bytes, validated: each segment must be non-empty, valid UTF-8.
    package init(validatingSegments segments: [[UInt8]]) throws(StorageError) {
        var bytes: [UInt8] = []
        for segment in segments {
            guard !segment.isEmpty else { throw StorageError(.invalidKey, "empty key segment") }
            guard UTF8Validation.isValid(segment) else {
                throw StorageError(.invalidUTF8, "key segment is not valid UTF-8")
            }
            StorageKey.appendEscaped(segment, to: &bytes)
        }
        self.encoded = bytes
    }

    /// A key from an encoding produced by `encoded` (e.g. read back from an export), validated.
    package init(validatingEncoding bytes: [UInt8]) throws(StorageError) {
        var segments: [[UInt8]] = []
        var current: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0 {
                segments.append(current)
                current = []
            } else if byte == 1 {
                index += 1
                guard index < bytes.count, bytes[index] == 1 || bytes[index] == 2 else {
                    throw StorageError(.invalidKey, "bad escape in key encoding")
                }
                current.append(bytes[index] - 1)
            } else {
                current.append(byte)
            }
            index += 1
        }
        guard current.isEmpty else { throw StorageError(.invalidKey, "unterminated key encoding") }
        try self.init(validatingSegments: segments)
    }

    /// `bytes` escaped and terminated like one key segment (order-preserving, prefix-free).
    static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 1)
        appendEscaped(bytes, to: &out)
        return out
    }

    static func appendEscaped(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        for byte in bytes {
            if byte <= 1 {
                out.append(1)
                out.append(byte + 1)
            } else {
                out.append(byte)
            }
        }
        out.append(0)
    }

    /// Number of segments.
    package var depth: Int {
        var count = 0
        for byte in encoded where byte == 0 { count += 1 }
        return count
    }

    package var isRoot: Bool { encoded.isEmpty }

    /// The segments' raw UTF-8 bytes.
    package var segmentBytes: [[UInt8]] {
        var segments: [[UInt8]] = []
        var current: [UInt8] = []
        var escaped = false
        for byte in encoded {
            if escaped {
                current.append(byte - 1)
                escaped = false
            } else if byte == 1 {
                escaped = true
            } else if byte == 0 {
                segments.append(current)
                current = []
            } else {
                current.append(byte)
            }
        }
        return segments
    }

    /// The segments as strings.
    package var segments: [String] { segmentBytes.map { String(decoding: $0, as: UTF8.self) } }

    /// The last segment, or nil for the root.
    package var lastSegment: String? { segments.last }

    /// The parent key, or nil for the root.
    package var parent: StorageKey? {
        guard !encoded.isEmpty else { return nil }
        var end = encoded.count - 1  // index of the final terminator
        while end > 0 && encoded[end - 1] != 0 { end -= 1 }
        return StorageKey(trustedEncoding: Array(encoded[0..<end]))
    }

    /// This key with more segments appended.
    package func appending(_ segment: String) -> StorageKey {
        guard !segment.isEmpty else { return self }
        var bytes = encoded
        StorageKey.appendEscaped(segment.utf8, to: &bytes)
        return StorageKey(trustedEncoding: bytes)
    }

    package func appending(path: String) -> StorageKey {
        var key = self
        for part in path.split(separator: "/", omittingEmptySubsequences: true) { key = key.appending(String(part)) }
        return key
    }

    /// True if `other` is a strict descendant of this key.
    package func isAncestor(of other: StorageKey) -> Bool {
        other.encoded.count > encoded.count && other.encoded.starts(with: encoded)
    }

    /// True if `other` equals this key or is one of its descendants.
    package func contains(_ other: StorageKey) -> Bool {
        other.encoded.count >= encoded.count && other.encoded.starts(with: encoded)
    }

    /// The exclusive upper bound of this key's subtree in encoded order (nil for the root: unbounded).
    var subtreeEnd: [UInt8]? {
        guard var bytes = Optional(encoded), !bytes.isEmpty else { return nil }
        bytes[bytes.count - 1] = 1
        return bytes
    }

    package static func < (lhs: StorageKey, rhs: StorageKey) -> Bool {
        ByteOrder.less(lhs.encoded, rhs.encoded)
    }

    package var description: String { "/" + segments.joined(separator: "/") }
}
