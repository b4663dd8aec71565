package import EmulatorModel

/// A small object stored whole in one engine entry (a *packed* node), so a typical child such as
/// `{"age":36,"city":"Lima","name":"Ada","score":12}` costs the engine one entry instead of one per
/// leaf.
///
/// A node is packed when it is an object (never the root) with no priority anywhere inside, at
/// most `maxHeight` levels of objects (a flat object has height 1), at most `maxLeaves` leaves and
/// at most `maxBytes` encoded bytes. Layout, all integers unsigned LEB128 varints unless said:
///
/// ```
/// entry  := 'o' leafCount:u8 object          leafCount = 1…64, the leaves inside
/// object := count { keyLength key value }    children in database key order (DatabaseOrder)
/// value  := 'f' | 't'                        false, true
///         | 'i' zigzag(Int64)                an integer
///         | 'd' 8 bytes                      a double's IEEE-754 bits, big-endian
///         | 's' length bytes                 a UTF-8 string
///         | 'o' object                       a nested object
/// ```
///
/// The tag `o` keeps a packed entry apart from a single leaf (`DatabaseLeafCodec`: `b`, `i`, `d`,
/// `s`), so one read of a key tells which it holds, and data written before packing existed (one
/// entry per leaf) reads as it always did.
package enum DatabasePackedCodec {
    static let tag = UInt8(ascii: "o")
    /// Levels of objects a packed node may have (`{"a":{"b":1}}` has 2).
    package static let maxHeight = 2
    /// Leaves a packed node may hold (one byte in the header; at most the engine's cut threshold,
    /// so the count of leaves below a location stays cheap to take).
    package static let maxLeaves = 64
    /// Encoded bytes a packed node may take (rewriting one leaf re-encodes the whole node).
    package static let maxBytes = 2048

    /// Whether `bytes` is a packed entry.
    static func isPacked(_ bytes: [UInt8]) -> Bool { bytes.first == tag }

    /// How many leaves the stored entry `bytes` stands for: a packed entry's leaf count, else 1.
    package static func leafCount(_ bytes: [UInt8]) -> Int {
        bytes.count > 1 && bytes[0] == tag ? Int(bytes[1]) : 1
    }

    /// The packed bytes of `node`, or nil when it cannot be packed (see the type's rules).
    package static func encode(_ node: DatabaseNode) -> [UInt8]? {
        guard node.priority == nil, case .children(let kids) = node.content else { return nil }
        var out: [UInt8] = [tag, 0]
        out.reserveCapacity(96)
        var leaves = 0
        guard appendObject(kids, height: 1, leaves: &leaves, into: &out), leaves > 0 else { return nil }
        out[1] = UInt8(leaves)
        return out
    }

    private static func appendObject(
        _ kids: DatabaseChildren, height: Int, leaves: inout Int, into out: inout [UInt8]
    ) -> Bool {
        appendVarint(UInt64(kids.count), to: &out)
        for index in kids.indices {
            let key = kids.keys[index]
            let node = kids.nodes[index]
            guard node.priority == nil else { return false }
            var key2 = key
            key2.withUTF8 { bytes in
                appendVarint(UInt64(bytes.count), to: &out)
                out.append(contentsOf: bytes)
            }
            switch node.content {
            case .empty: return false
            case .bool(let v): out.append(v ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            case .int(let v):
                out.append(UInt8(ascii: "i"))
                appendVarint(UInt64(bitPattern: (v << 1) ^ (v >> 63)), to: &out)
            case .double(let v):
                out.append(UInt8(ascii: "d"))
                let bits = v.bitPattern
                for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
            case .string(let v):
                out.append(UInt8(ascii: "s"))
                var text = v
                text.withUTF8 { bytes in
                    appendVarint(UInt64(bytes.count), to: &out)
                    out.append(contentsOf: bytes)
                }
            case .children(let grandchildren):
                guard height < maxHeight else { return false }
                out.append(tag)
                guard appendObject(grandchildren, height: height + 1, leaves: &leaves, into: &out) else { return false }
            }
            if case .children = node.content {} else { leaves += 1 }
            if leaves > maxLeaves || out.count > maxBytes { return false }
        }
        return true
    }

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// The object a packed entry holds; nil for bytes that are not a well-formed packed entry.
    package static func decode(_ bytes: [UInt8]) -> DatabaseNode? {
        guard bytes.count > 2, bytes[0] == tag else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> DatabaseNode? in
            var reader = Reader(bytes: buffer, position: 2)
            guard let kids = reader.object(height: 1), reader.position == buffer.count, !kids.isEmpty else { return nil }
            return DatabaseNode(.children(kids))
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int

        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let b = byte() {
                guard shift < 64 else { return nil }
                value |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return value }
                shift += 7
            }
            return nil
        }

        mutating func text() -> String? {
            guard let length = varint(), length <= UInt64(bytes.count - position) else { return nil }
            let start = position
            position += Int(length)
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        }

        mutating func object(height: Int) -> DatabaseChildren? {
            guard let count = varint(), count > 0, count <= UInt64(bytes.count - position) else { return nil }
            var keys: [String] = []
            var nodes: [DatabaseNode] = []
            keys.reserveCapacity(Int(count))
            nodes.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let key = text(), let tag = byte() else { return nil }
                let content: DatabaseNode.Content
                switch tag {
                case UInt8(ascii: "f"): content = .bool(false)
                case UInt8(ascii: "t"): content = .bool(true)
                case UInt8(ascii: "i"):
                    guard let raw = varint() else { return nil }
                    content = .int(Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1))
                case UInt8(ascii: "d"):
                    guard bytes.count - position >= 8 else { return nil }
                    var bits: UInt64 = 0
                    for _ in 0..<8 { bits = bits << 8 | UInt64(bytes[position]); position += 1 }
                    content = .double(Double(bitPattern: bits))
                case UInt8(ascii: "s"):
                    guard let s = text() else { return nil }
                    content = .string(s)
                case DatabasePackedCodec.tag:
                    guard height < DatabasePackedCodec.maxHeight, let inner = object(height: height + 1) else { return nil }
                    content = .children(inner)
                default: return nil
                }
                keys.append(key)
                nodes.append(DatabaseNode(content))
            }
            return DatabaseChildren(sortedKeys: keys, nodes: nodes)
        }
    }
}
