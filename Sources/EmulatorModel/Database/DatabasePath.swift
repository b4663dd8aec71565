import EmulatorSupport

/// A Realtime Database location: `/users/ada/name`, stored as its keys.
///
/// Keys are compared by bytes (never `String ==`). Parsing percent-decodes each segment and
/// validates it as a key; `.priority`, `.value`, `.sv` and `.json` suffixes are for callers.
///
/// ```swift
/// let p = try DatabasePath(parsing: "/users/ada%20l")
/// p.keys            // ["users", "ada l"]
/// p.parent          // /users
/// ```
package struct DatabasePath: Sendable, Hashable, CustomStringConvertible {
    package private(set) var keys: [String]

    /// Maximum UTF-8 bytes of one key.
    package static let maxKeyBytes = 768
    /// Maximum number of keys in a path.
    package static let maxDepth = 32

    package static let root = DatabasePath(keys: [])

    /// A path of already validated keys.
    package init(keys: [String]) { self.keys = keys }

    /// Parses `/a/b/c` (leading, trailing and doubled slashes ignored). With `percentDecoded`
    /// each segment is percent-decoded first (URL paths). Every key is validated, and paths deeper
    /// than 32 keys are rejected; errors are `INVALID_ARGUMENT` (HTTP 400), an invalid key with
    /// the production text `Invalid path: Invalid token in path`.
    package init(parsing text: String, percentDecoded: Bool = false) throws(EmulatorError) {
        var keys: [String] = []
        for part in text.utf8.split(separator: 0x2F) {
            let key: String
            if percentDecoded {
                guard let decoded = DatabasePath.percentDecode(part) else {
                    throw .invalidArgument("Invalid path: \"\(text)\" is not valid percent-encoded UTF-8.")
                }
                key = decoded
            } else {
                key = String(decoding: part, as: UTF8.self)
            }
            do {
                try DatabasePath.validateKey(key)
            } catch {
                // The wording of the production REST server for a bad path segment.
                throw .invalidArgument("Invalid path: Invalid token in path")
            }
            keys.append(key)
        }
        if keys.count > Self.maxDepth {
            throw .invalidArgument(
                "Path \"\(text)\" specified exceeds the maximum depth that can be written (\(Self.maxDepth)).")
        }
        self.keys = keys
    }

    /// Checks one key: non-empty, at most 768 UTF-8 bytes, none of `. $ # [ ] /`, no ASCII control
    /// character (0x00–0x1F, 0x7F).
    package static func validateKey(_ key: String) throws(EmulatorError) {
        let bytes = key.utf8
        if bytes.isEmpty { throw .invalidArgument("Invalid key \"\". Key value can't be empty or contain $ # [ ] / or .") }
        for c in bytes {
            switch c {
            case 0x2E, 0x24, 0x23, 0x5B, 0x5D, 0x2F, 0x00...0x1F, 0x7F:
                throw .invalidArgument(
                    "Invalid key \"\(key)\". Key value can't be empty or contain $ # [ ] / or . or ASCII control characters.")
            default: continue
            }
        }
        if bytes.count > Self.maxKeyBytes {
            throw .invalidArgument("Invalid key: \"\(key.prefix(50))…\" has a key path longer than \(Self.maxKeyBytes) bytes.")
        }
    }

    package var isRoot: Bool { keys.isEmpty }
    package var count: Int { keys.count }
    package var lastKey: String? { keys.last }
    /// The path one level up; nil for the root.
    package var parent: DatabasePath? { keys.isEmpty ? nil : DatabasePath(keys: Array(keys.dropLast())) }

    /// This path extended by one key (not validated).
    package func child(_ key: String) -> DatabasePath { DatabasePath(keys: keys + [key]) }

    /// This path extended by another path.
    package func appending(_ other: DatabasePath) -> DatabasePath { DatabasePath(keys: keys + other.keys) }

    /// True when `self` is `other` or one of its ancestors.
    package func isAncestor(of other: DatabasePath) -> Bool {
        guard keys.count <= other.keys.count else { return false }
        for i in keys.indices where !UTF8Order.equal(keys[i], other.keys[i]) { return false }
        return true
    }

    /// The keys of `other` below `self`, if `self` is an ancestor of `other`.
    package func relative(to ancestor: DatabasePath) -> DatabasePath? {
        ancestor.isAncestor(of: self) ? DatabasePath(keys: Array(keys.dropFirst(ancestor.keys.count))) : nil
    }

    /// `/a/b`; the root is `/`.
    package var description: String { keys.isEmpty ? "/" : "/" + keys.joined(separator: "/") }

    package static func == (a: DatabasePath, b: DatabasePath) -> Bool {
        a.keys.count == b.keys.count && a.isAncestor(of: b)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(keys.count)
        for k in keys { Value.hashUTF8(k, into: &hasher) }
    }

    /// Decodes `%XX` escapes; nil on a malformed escape or invalid UTF-8.
    package static func percentDecode<C: Collection<UInt8>>(_ bytes: C) -> String? {
        // A path's bytes are contiguous: scan them as a buffer, not index by index.
        if let decoded = bytes.withContiguousStorageIfAvailable({ percentDecodeBuffer($0) }) { return decoded }
        return percentDecodeBuffer(bytes)
    }

    private static func percentDecodeBuffer<C: Collection<UInt8>>(_ bytes: C) -> String? {
        if !bytes.contains(0x25) { return String(validating: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var it = bytes.makeIterator()
        while let c = it.next() {
            if c == 0x25 {
                guard let h = it.next(), let l = it.next(), let hv = HexDigit.value(h), let lv = HexDigit.value(l) else { return nil }
                out.append(hv << 4 | lv)
            } else {
                out.append(c)
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}
