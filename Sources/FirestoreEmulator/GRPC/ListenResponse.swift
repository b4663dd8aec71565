import EmulatorModel
import EmulatorProtobuf
import EmulatorStorage

/// Encodes `ListenResponse` messages in protobuf.
enum ListenResponse {
    static func encode(_ event: ListenEvent) -> [UInt8] {
        var names = DocumentNames()
        return encode(event, names: &names)
    }

    /// `names` keeps the database's name prefix from one message to the next.
    static func encode(_ event: ListenEvent, names: inout DocumentNames) -> [UInt8] {
        switch event {
        case .targetChange(let type, let targets, let readTime, let resumeToken, let cause):
            targetChange(type, targets: targets, readTime: readTime, resumeToken: resumeToken, cause: cause)
        case .documentChange(.decoded(let d), let database, let targets, let removed):
            documentChange(d, database: database, targets: targets, removed: removed)
        case .documentChange(.stored(let e), let database, let targets, let removed):
            documentChange(e, prefix: names.prefix(database), targets: targets, removed: removed)
        case .documentDelete(let name, let removed, let readTime): documentDelete(name, removed: removed, readTime: readTime)
        case .documentRemove(let name, let removed, let readTime): documentRemove(name, removed: removed, readTime: readTime)
        case .existenceFilter(let target, let count): existenceFilter(target: target, count: count)
        }
    }

    /// The UTF-8 of `projects/{p}/databases/{d}/documents` for the last database asked about.
    struct DocumentNames {
        private var database: DatabaseID?
        private var bytes: [UInt8] = []

        mutating func prefix(_ database: DatabaseID) -> [UInt8] {
            if self.database != database {
                self.database = database
                bytes = Array(database.rootName.utf8)
            }
            return bytes
        }
    }

    /// Writes the message for `event` at the end of `w` (a DocumentChange of a committed entry
    /// straight from its stored bytes).
    static func write(_ event: ListenEvent, names: inout DocumentNames, to w: inout ProtoWriter) {
        if case .documentChange(.stored(let e), let database, let targets, let removed) = event {
            write(e, prefix: names.prefix(database), targets: targets, removed: removed, to: &w)
        } else {
            w.raw(encode(event, names: &names))
        }
    }

    /// A DocumentChange of a committed entry: its name from its key, its fields copied across
    /// from the stored bytes (corrupt bytes, which a commit never stores, leave the fields out).
    static func documentChange(_ e: StoredEntry, prefix: [UInt8], targets: [Int32], removed: [Int32] = []) -> [UInt8] {
        var w = ProtoWriter(capacity: 128 + prefix.count + e.key.encoded.count + e.value.count * 2)
        write(e, prefix: prefix, targets: targets, removed: removed, to: &w)
        return w.bytes
    }

    static func write(_ e: StoredEntry, prefix: [UInt8], targets: [Int32], removed: [Int32], to w: inout ProtoWriter) {
        w.message(3) { c in
            c.message(1) { writeDocument(e, prefix: prefix, to: &$0) }
            c.packedInt32(5, targets)
            c.packedInt32(6, removed)
        }
    }

    /// ``write(_:prefix:targets:removed:to:)`` for one target and none removed, without arrays.
    static func write(_ e: StoredEntry, prefix: [UInt8], target: Int32, to w: inout ProtoWriter) {
        w.message(3) { c in
            c.message(1) { writeDocument(e, prefix: prefix, to: &$0) }
            // target_ids, packed: one varint (an int32 sign-extends to ten bytes).
            let value = UInt64(bitPattern: Int64(target))
            c.key(5, .lengthDelimited)
            c.varint(UInt64(ProtoWriter.varintSize(value)))
            c.varint(value)
        }
    }

    /// The `Document` of a committed entry: name, fields from the stored bytes, create and update time.
    private static func writeDocument(_ e: StoredEntry, prefix: [UInt8], to d: inout ProtoWriter) {
        writeName(prefix, e.key, to: &d)
        try? ProtoStoredFields.write(e.value, field: 2, to: &d)
        ProtoValue.writeTimestamp(3, microseconds: e.createTime, to: &d)
        ProtoValue.writeTimestamp(4, microseconds: e.updateTime, to: &d)
    }

    /// Field 1 (`name`): `prefix` then `/segment` per segment of `key`, unescaped.
    static func writeName(_ prefix: [UInt8], _ key: StorageKey, to w: inout ProtoWriter) {
        let encoded = key.encoded
        if !encoded.contains(1) {
            // No escaped byte (the usual key): every segment ends with a 0, which stands for the
            // `/` before the next one, so the name is the prefix, `/` and the bytes copied whole.
            w.key(1, .lengthDelimited)
            w.varint(UInt64(prefix.count + encoded.count))
            w.bytes.append(contentsOf: prefix)
            guard !encoded.isEmpty else { return }
            w.bytes.append(UInt8(ascii: "/"))
            let start = w.bytes.count
            w.bytes.append(contentsOf: encoded[..<(encoded.count - 1)])
            w.bytes.withUnsafeMutableBufferPointer { b in
                for i in start..<b.count where b[i] == 0 { b[i] = UInt8(ascii: "/") }
            }
            return
        }
        var length = prefix.count
        var i = 0
        while i < encoded.count {
            i += encoded[i] == 1 ? 2 : 1
            length += 1
        }
        w.key(1, .lengthDelimited)
        w.varint(UInt64(length))
        w.bytes.append(contentsOf: prefix)
        var start = true
        i = 0
        while i < encoded.count {
            if start {
                w.bytes.append(UInt8(ascii: "/"))
                start = false
            }
            let b = encoded[i]
            if b == 0 {
                start = true
                i += 1
            } else if b == 1 {
                w.bytes.append(i + 1 < encoded.count ? encoded[i + 1] &- 1 : 0)
                i += 2
            } else {
                w.bytes.append(b)
                i += 1
            }
        }
    }

    static func targetChange(
        _ type: ListenEvent.ChangeType, targets: [Int32], readTime: Int64? = nil, resumeToken: [UInt8]? = nil, cause: EmulatorError? = nil
    ) -> [UInt8] {
        var w = ProtoWriter()
        w.message(2) { t in
            if type != .noChange { t.int32(1, type.rawValue) }
            t.packedInt32(2, targets)
            if let cause {
                t.message(3) { s in
                    s.int32(1, cause.code.rawValue)
                    s.string(2, cause.message)
                }
            }
            if let resumeToken { t.bytes(4, resumeToken) }
            if let readTime { ProtoValue.writeTimestamp(6, microseconds: readTime, to: &t) }
        }
        return w.bytes
    }

    static func documentChange(_ d: StoredDocument, database: DatabaseID, targets: [Int32], removed: [Int32] = []) -> [UInt8] {
        var w = ProtoWriter(capacity: 256)
        w.message(3) { c in
            c.message(1) { FirestoreGRPC.write(d, database: database, to: &$0) }
            c.packedInt32(5, targets)
            c.packedInt32(6, removed)
        }
        return w.bytes
    }

    static func documentDelete(_ name: String, removed: [Int32], readTime: Int64) -> [UInt8] {
        var w = ProtoWriter()
        w.message(4) { c in
            c.string(1, name)
            c.packedInt32(6, removed)
            ProtoValue.writeTimestamp(4, microseconds: readTime, to: &c)
        }
        return w.bytes
    }

    /// `filter` (field 5): `ExistenceFilter` with `target_id` and `count` (zero left out, as proto3 does).
    static func existenceFilter(target: Int32, count: Int32) -> [UInt8] {
        var w = ProtoWriter()
        w.message(5) { f in
            if target != 0 { f.int32(1, target) }
            if count != 0 { f.int32(2, count) }
        }
        return w.bytes
    }

    static func documentRemove(_ name: String, removed: [Int32], readTime: Int64) -> [UInt8] {
        var w = ProtoWriter()
        w.message(6) { c in
            c.string(1, name)
            c.packedInt32(2, removed)
            ProtoValue.writeTimestamp(4, microseconds: readTime, to: &c)
        }
        return w.bytes
    }
}
