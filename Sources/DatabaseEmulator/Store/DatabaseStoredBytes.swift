import EmulatorModel
package import EmulatorSupport

/// The stored bytes of a write value, encoded straight from its JSON for the values a bulk
/// `PATCH` mostly carries: a leaf, or a small object of leaves (or of such objects) that
/// `DatabasePackedCodec` packs into one entry. The bytes are exactly what building the node
/// (`DatabaseNode.build`) and storing it (`DatabaseStorageMapping`) would give, without the node.
///
/// Anything else answers nil and takes the general way: null and empty values (deletions and
/// dropped children), arrays, `.sv`/`.value`/`.priority` and every other key that is not a valid
/// plain key, too long a key or string, a non-finite number, too deep a path, and objects the
/// packed layout does not take (too high, too many leaves or bytes). So a value encoded here is
/// one `DatabaseInputValidator` accepts, and the general way reports every error as before.
package enum DatabaseStoredBytes {
    /// The entry bytes of `json` written `depth` keys below the root, or nil (see the type).
    package static func encode(_ json: JSONValue, depth: Int) -> [UInt8]? {
        switch json {
        case .bool(let v): return [UInt8(ascii: "b"), v ? 1 : 0]
        case .int, .double, .string:
            guard isValidLeaf(json), let content = leafContent(json) else { return nil }
            return DatabaseLeafCodec.encode(content)
        case .object(let members):
            // The deepest leaf of a packed object lies `maxHeight` keys below it.
            guard depth + DatabasePackedCodec.maxHeight <= DatabasePath.maxDepth else { return nil }
            var out: [UInt8] = [DatabasePackedCodec.tag, 0]
            out.reserveCapacity(96)
            var leaves = 0
            guard appendObject(members, height: 1, leaves: &leaves, into: &out),
                leaves > 0, leaves <= DatabasePackedCodec.maxLeaves, out.count <= DatabasePackedCodec.maxBytes
            else { return nil }
            out[1] = UInt8(leaves)
            return out
        case .null, .array: return nil
        }
    }

    private static func isValidLeaf(_ json: JSONValue) -> Bool {
        switch json {
        case .double(let d): d.isFinite
        case .string(let s): s.utf8.count <= DatabaseNode.maxStringBytes
        default: true
        }
    }

    private static func leafContent(_ json: JSONValue) -> DatabaseNode.Content? {
        switch json {
        case .bool(let v): .bool(v)
        case .int(let v): .int(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        default: nil
        }
    }

    /// Appends an object's members in key order (`DatabaseOrder.compareKeys`), as the packed
    /// layout stores them; false for anything the type leaves to the general way.
    private static func appendObject(
        _ members: [JSONMember], height: Int, leaves: inout Int, into out: inout [UInt8]
    ) -> Bool {
        // Every member holds a leaf at least, so more members than leaves can never pack.
        if members.isEmpty || members.count > DatabasePackedCodec.maxLeaves { return false }
        for member in members {
            guard DatabaseInputValidator.isValidKey(member.name), member.name.utf8.count <= DatabasePath.maxKeyBytes else {
                return false
            }
        }
        // Members arrive in body order; the parser refused duplicate names. An insertion sort of
        // their indices in a stack buffer: objects here have at most `maxLeaves` members.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: members.count) { order in
            for index in members.indices {
                var slot = index
                while slot > 0, DatabaseOrder.compareKeys(members[order[slot - 1]].name, members[index].name) > 0 {
                    order[slot] = order[slot - 1]
                    slot -= 1
                }
                order[slot] = index
            }
            return appendMembers(members, in: order, height: height, leaves: &leaves, into: &out)
        }
    }

    private static func appendMembers(
        _ members: [JSONMember], in order: UnsafeMutableBufferPointer<Int>, height: Int, leaves: inout Int,
        into out: inout [UInt8]
    ) -> Bool {
        DatabasePackedCodec.appendVarint(UInt64(members.count), to: &out)
        for index in order {
            let member = members[index]
            var name = member.name
            name.withUTF8 { bytes in
                DatabasePackedCodec.appendVarint(UInt64(bytes.count), to: &out)
                out.append(contentsOf: bytes)
            }
            switch member.value {
            case .null, .array: return false
            case .bool(let v): out.append(v ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            case .int(let v):
                out.append(UInt8(ascii: "i"))
                DatabasePackedCodec.appendVarint(UInt64(bitPattern: (v << 1) ^ (v >> 63)), to: &out)
            case .double(let v):
                guard v.isFinite else { return false }
                out.append(UInt8(ascii: "d"))
                let bits = v.bitPattern
                for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
            case .string(let v):
                guard v.utf8.count <= DatabaseNode.maxStringBytes else { return false }
                out.append(UInt8(ascii: "s"))
                var text = v
                text.withUTF8 { bytes in
                    DatabasePackedCodec.appendVarint(UInt64(bytes.count), to: &out)
                    out.append(contentsOf: bytes)
                }
            case .object(let inner):
                guard height < DatabasePackedCodec.maxHeight else { return false }
                out.append(DatabasePackedCodec.tag)
                guard appendObject(inner, height: height + 1, leaves: &leaves, into: &out) else { return false }
            }
            if case .object = member.value {} else { leaves += 1 }
            if leaves > DatabasePackedCodec.maxLeaves || out.count > DatabasePackedCodec.maxBytes { return false }
        }
        return true
    }
}
