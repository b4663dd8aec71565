import EmulatorProtobuf
package import EmulatorStorage

/// One journaled commit, value-agnostic: the commit time and, per changed key, its namespace,
/// encoded key and new bytes with the entry's create and update times (or a tombstone), or a
/// subtree clear.
///
/// Encoding (inside one LevelDB log record): varint commit time, varint op count, then per op a
/// kind byte (4 put with times, 2 delete, 3 clear; 1 is a put without times, from journals
/// written before times were kept) and varint-length-prefixed namespace, key and (puts only)
/// value, then (kind 4) varint create time and varint update time.
package struct JournalRecord: Sendable, Equatable {
    package enum Operation: Sendable, Equatable {
        /// A put without times (older journals): replayed as a commit at the record's time would
        /// stamp it (update time = commit time; create time kept if the key was live).
        case put(NamespaceID, StorageKey, [UInt8])
        /// A put with the entry's times.
        case entry(NamespaceID, StoredEntry)
        case delete(NamespaceID, StorageKey)
        case clear(NamespaceID, StorageKey)
    }

    package var commitTime: CommitTime
    package var operations: [Operation]

    package init(commitTime: CommitTime, operations: [Operation]) {
        self.commitTime = commitTime
        self.operations = operations
    }

    package init(changes: [StorageChange], commitTime: CommitTime) {
        self.commitTime = commitTime
        operations = changes.map { change in
            if let new = change.new { return .entry(change.namespace, new) }
            return .delete(change.namespace, change.key)
        }
    }

    /// The encoding of a commit (subtrees it deleted whole as clears, first; then its per-key
    /// changes), without building the operation list first.
    package static func encode(cleared: [ClearedSubtree] = [], changes: [StorageChange], commitTime: CommitTime) -> [UInt8] {
        var w = ProtoWriter()
        w.bytes.reserveCapacity(32 + changes.count * 64)
        w.varint(UInt64(bitPattern: commitTime))
        w.varint(UInt64(cleared.count + changes.count))
        for subtree in cleared {
            w.bytes.append(3)
            appendBytes(Array(subtree.namespace.name.utf8), &w)
            appendBytes(subtree.key.encoded, &w)
        }
        for change in changes {
            w.bytes.append(change.new == nil ? 2 : 4)
            w.varint(UInt64(change.namespace.name.utf8.count))
            w.bytes.append(contentsOf: change.namespace.name.utf8)
            appendBytes(change.key.encoded, &w)
            if let new = change.new {
                appendBytes(new.value, &w)
                w.varint(UInt64(bitPattern: new.createTime))
                w.varint(UInt64(bitPattern: new.updateTime))
            }
        }
        return w.bytes
    }

    package func encoded() -> [UInt8] {
        var w = ProtoWriter()
        w.varint(UInt64(bitPattern: commitTime))
        w.varint(UInt64(operations.count))
        for operation in operations {
            switch operation {
            case .put(let ns, let key, let value):
                w.bytes.append(1)
                Self.appendBytes(Array(ns.name.utf8), &w)
                Self.appendBytes(key.encoded, &w)
                Self.appendBytes(value, &w)
            case .entry(let ns, let entry):
                w.bytes.append(4)
                Self.appendBytes(Array(ns.name.utf8), &w)
                Self.appendBytes(entry.key.encoded, &w)
                Self.appendBytes(entry.value, &w)
                w.varint(UInt64(bitPattern: entry.createTime))
                w.varint(UInt64(bitPattern: entry.updateTime))
            case .delete(let ns, let key):
                w.bytes.append(2)
                Self.appendBytes(Array(ns.name.utf8), &w)
                Self.appendBytes(key.encoded, &w)
            case .clear(let ns, let key):
                w.bytes.append(3)
                Self.appendBytes(Array(ns.name.utf8), &w)
                Self.appendBytes(key.encoded, &w)
            }
        }
        return w.bytes
    }

    private static func appendBytes(_ bytes: [UInt8], _ w: inout ProtoWriter) {
        w.varint(UInt64(bytes.count))
        w.bytes.append(contentsOf: bytes)
    }

    /// Decodes a record; offsets in failures are relative to the record.
    static func decode(_ bytes: [UInt8]) throws(ProtoFailure) -> JournalRecord {
        var r = ProtoRecordReader(bytes)
        let time = CommitTime(bitPattern: try r.varint())
        let count = try r.varint()
        guard count <= UInt64(bytes.count) else { throw ProtoFailure(offset: 0, message: "operation count too large") }
        var operations: [Operation] = []
        operations.reserveCapacity(Int(count))
        for _ in 0..<count {
            let at = r.position
            let kind = try r.varint()
            let ns = try namespace(&r)
            let key = try storageKey(&r)
            switch kind {
            case 1: operations.append(.put(ns, key, try r.bytes()))
            case 4:
                let value = try r.bytes()
                let created = CommitTime(bitPattern: try r.varint())
                let updated = CommitTime(bitPattern: try r.varint())
                operations.append(.entry(ns, StoredEntry(key: key, value: value, createTime: created, updateTime: updated)))
            case 2: operations.append(.delete(ns, key))
            case 3: operations.append(.clear(ns, key))
            default: throw ProtoFailure(offset: at, message: "unknown operation \(kind)")
            }
        }
        guard r.isAtEnd else { throw ProtoFailure(offset: r.position, message: "trailing bytes") }
        return JournalRecord(commitTime: time, operations: operations)
    }

    static func namespace(_ r: inout ProtoRecordReader) throws(ProtoFailure) -> NamespaceID {
        NamespaceID(try r.string())
    }

    static func storageKey(_ r: inout ProtoRecordReader) throws(ProtoFailure) -> StorageKey {
        let range = try r.lengthDelimited()
        do throws(StorageError) {
            return try StorageKey(validatingEncoding: Array(r.buffer[range]))
        } catch {
            throw ProtoFailure(offset: range.lowerBound, message: "invalid key: \(error.message)")
        }
    }
}
