package import EmulatorModel

/// `google.firestore.v1.Document`: a name, fields and the two times (microseconds).
package struct ProtoDocument: Sendable, Equatable {
    package var name: String
    package var fields: ValueMap
    package var createTime: Int64?
    package var updateTime: Int64?

    package init(name: String, fields: ValueMap, createTime: Int64? = nil, updateTime: Int64? = nil) {
        self.name = name
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    package func write(to w: inout ProtoWriter) {
        if !name.isEmpty { w.string(1, name) }
        ProtoValue.writeFields(fields, field: 2, to: &w)
        if let createTime { ProtoValue.writeTimestamp(3, microseconds: createTime, to: &w) }
        if let updateTime { ProtoValue.writeTimestamp(4, microseconds: updateTime, to: &w) }
    }

    package var encoded: [UInt8] {
        var w = ProtoWriter()
        write(to: &w)
        return w.bytes
    }

    package init(_ reader: ProtoReader) throws(EmulatorError) {
        var r = reader
        name = ""
        var entries: [ValueMap.Field] = []
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); name = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); entries.append(try ProtoValue.readEntry(r.message()))
            case 3: try r.expect(w, .lengthDelimited, f); createTime = try ProtoValue.readMicroseconds(r.message())
            case 4: try r.expect(w, .lengthDelimited, f); updateTime = try ProtoValue.readMicroseconds(r.message())
            default: try r.skip(w)
            }
        }
        fields = ValueMap(unsortedFields: entries)
    }
}
