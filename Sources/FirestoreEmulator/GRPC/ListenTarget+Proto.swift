import EmulatorModel
import EmulatorProtobuf

extension ListenTarget {
    /// Decodes a `Target` message.
    init(_ reader: ProtoReader) throws(EmulatorError) {
        var r = reader
        var kind: Kind?
        var id: Int32 = 0
        var once = false
        var resume: Resume?
        while let (f, w) = try r.next() {
            switch f {
            case 2:
                try r.expect(w, .lengthDelimited, f)
                var q = try r.message()
                var parent = ""
                var query: StructuredQuery?
                while let (qf, qw) = try q.next() {
                    switch qf {
                    case 1: try q.expect(qw, .lengthDelimited, qf); parent = try q.string()
                    case 2: try q.expect(qw, .lengthDelimited, qf); query = try ProtoDecoding.structuredQuery(q.message())
                    default: try q.skip(qw)
                    }
                }
                guard let query else { throw .invalidArgument("A query target must have a structured_query.") }
                kind = .query(parent: try DocumentName.parent(parent), query)
            case 3:
                try r.expect(w, .lengthDelimited, f)
                var d = try r.message()
                var names: [DocumentName] = []
                while let (df, dw) = try d.next() {
                    if df == 2 { try d.expect(dw, .lengthDelimited, df); names.append(try DocumentName.document(d.string())) } else { try d.skip(dw) }
                }
                kind = .documents(names)
            case 4:
                try r.expect(w, .lengthDelimited, f)
                let token = try r.bytes()
                resume = token.isEmpty ? nil : .token(token)
            case 11: try r.expect(w, .lengthDelimited, f); resume = .readTime(try ProtoValue.readMicroseconds(r.message()))
            case 5: try r.expect(w, .varint, f); id = try r.int32()
            case 6: try r.expect(w, .varint, f); once = try r.bool()
            default: try r.skip(w)
            }
        }
        guard let kind else { throw .invalidArgument("A target must set query or documents.") }
        self.init(id: id, kind: kind, once: once, resume: resume)
    }

}
