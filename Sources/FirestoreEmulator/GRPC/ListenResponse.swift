import EmulatorModel
import EmulatorProtobuf

/// Encodes `ListenResponse` messages in protobuf.
enum ListenResponse {
    static func encode(_ event: ListenEvent) -> [UInt8] {
        switch event {
        case .targetChange(let type, let targets, let readTime, let resumeToken, let cause):
            targetChange(type, targets: targets, readTime: readTime, resumeToken: resumeToken, cause: cause)
        case .documentChange(let d, let database, let targets, let removed):
            documentChange(d, database: database, targets: targets, removed: removed)
        case .documentDelete(let name, let removed, let readTime): documentDelete(name, removed: removed, readTime: readTime)
        case .documentRemove(let name, let removed, let readTime): documentRemove(name, removed: removed, readTime: readTime)
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
