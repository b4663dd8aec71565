import EmulatorModel
import EmulatorProtobuf

extension ExplainMetrics {
    /// Writes `google.firestore.v1.ExplainMetrics` (plan summary; execution stats with analyze).
    func write(to w: inout ProtoWriter) {
        w.message(1) { plan in
            for index in indexesUsed {
                plan.message(1) { s in
                    Self.writeStruct([("query_scope", .string(index.queryScope)), ("properties", .string(index.properties))], to: &s)
                }
            }
        }
        guard let stats = executionStats else { return }
        w.message(2) { e in
            e.int64(1, Int64(stats.resultsReturned))
            e.message(3) { d in
                let seconds = Int64(stats.executionNanoseconds / 1_000_000_000)
                let nanos = Int32(stats.executionNanoseconds % 1_000_000_000)
                if seconds != 0 { d.int64(1, seconds) }
                if nanos != 0 { d.int32(2, nanos) }
            }
            e.int64(4, Int64(stats.readOperations))
            e.message(5) { Self.writeStruct(debugStats, to: &$0) }
        }
    }

    /// The fields of a `google.protobuf.Struct` (map entries: key 1, `Value` 2).
    static func writeStruct(_ fields: [(String, DebugValue)], to w: inout ProtoWriter) {
        for (key, value) in fields {
            w.message(1) { entry in
                entry.string(1, key)
                entry.message(2) { v in
                    switch value {
                    case .string(let s): v.string(3, s)
                    case .object(let inner): v.message(5) { writeStruct(inner, to: &$0) }
                    }
                }
            }
        }
    }
}

extension ProtoDecoding {
    /// `ExplainOptions`: `analyze` (field 1).
    static func explainOptions(_ message: ProtoReader) throws(EmulatorError) -> ExplainOptions {
        var r = message
        var analyze = false
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .varint, f); analyze = try r.bool()
            default: try r.skip(w)
            }
        }
        return ExplainOptions(analyze: analyze)
    }
}
