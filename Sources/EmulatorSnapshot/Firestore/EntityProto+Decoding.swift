import EmulatorModel
import EmulatorProtobuf
import EmulatorSupport

extension EntityProto {
    typealias Failure = ProtoFailure

    /// Decodes one entity record into a document. Offsets in errors are relative to `bytes`.
    static func decode(_ bytes: [UInt8]) throws(Failure) -> FirestoreExportDocument {
        var r = ProtoRecordReader(bytes)
        var properties = PropertyCollector()
        let key = try readEntity(&r) { (p: inout ProtoRecordReader) throws(Failure) in try properties.add(&p) }
        return FirestoreExportDocument(projectID: key.project, databaseID: key.database, path: key.path, fields: properties.finish())
    }

    /// Reads an entity record: returns its key and hands each property (fields 14 and 15) to
    /// `property`, in record order. Shared by `decode` and `transcode`.
    static func readEntity(
        _ r: inout ProtoRecordReader, _ property: (inout ProtoRecordReader) throws(Failure) -> Void
    ) throws(Failure) -> (project: String, database: String, path: ResourcePath) {
        var project = ""
        var database = defaultDatabase
        var segments: [String] = []
        var sawKey = false
        while let (field, wire) = try r.next() {
            switch field {
            case 13:
                sawKey = true
                try r.expect(wire, .lengthDelimited, field)
                var key = try r.message()
                try readKey(&key, project: &project, database: &database, segments: &segments)
            case 14, 15:
                try r.expect(wire, .lengthDelimited, field)
                var p = try r.message()
                try property(&p)
            default:
                try r.skip(wire)
            }
        }
        guard sawKey, !segments.isEmpty else { throw Failure(offset: 0, message: "entity has no key path") }
        if database.isEmpty { database = defaultDatabase }
        return (project, database, ResourcePath(segments: segments))
    }

    /// Reads an entity key (field 13): the app id (project), the path elements (collection and
    /// document ids, appended to `segments`) and the database id.
    static func readKey(
        _ key: inout ProtoRecordReader, project: inout String, database: inout String, segments: inout [String]
    ) throws(Failure) {
        while let (kf, kw) = try key.next() {
            switch kf {
            case 13:
                try key.expect(kw, .lengthDelimited, kf)
                project = stripAppPrefix(try key.string())
            case 14:
                try key.expect(kw, .lengthDelimited, kf)
                var path = try key.message()
                while let (pf, pw) = try path.next() {
                    guard pf == 1 else { try path.skip(pw); continue }
                    try path.expect(pw, .startGroup, pf)
                    try path.group(1) { (e: inout ProtoRecordReader) throws(Failure) in
                        let (kind, id) = try readPathElement(&e, typeField: 2, idField: 3, nameField: 4)
                        segments.append(kind)
                        segments.append(id)
                    }
                }
            case 23:
                try key.expect(kw, .lengthDelimited, kf)
                database = try key.string()
            default: try key.skip(kw)
            }
        }
    }

    /// `dev~demo` → `demo`; `s~prod` → `prod`; `demo` → `demo`.
    private static func stripAppPrefix(_ app: String) -> String {
        // On the UTF-8 view: a Character search would run grapheme breaking for every document.
        guard let tilde = app.utf8.firstIndex(of: UInt8(ascii: "~")) else { return app }
        return String(app[app.utf8.index(after: tilde)...])
    }

    private static func readPathElement(
        _ e: inout ProtoRecordReader, typeField: Int, idField: Int, nameField: Int
    ) throws(Failure) -> (String, String) {
        var kind: String?
        var id: String?
        let start = e.position
        while let (f, w) = try e.next() {
            switch f {
            case typeField:
                try e.expect(w, .lengthDelimited, f)
                kind = try e.string()
            case idField:
                try e.expect(w, .varint, f)
                id = "__id\(try e.int64())__"
            case nameField:
                try e.expect(w, .lengthDelimited, f)
                id = try e.string()
            default: try e.skip(w)
            }
        }
        guard let kind, let id, !kind.isEmpty, !id.isEmpty else {
            throw Failure(offset: start, message: "path element without a kind and an id or name")
        }
        return (kind, id)
    }

    /// Reads a property's fields: its meaning, the range of its name (checked to be UTF-8), whether
    /// it is one element of an array (`multiple`) and the range of its value, if any. Shared by
    /// `PropertyCollector` and `EncodedFields`.
    static func readProperty(
        _ p: inout ProtoRecordReader
    ) throws(Failure) -> (meaning: UInt64, name: Range<Int>, multiple: Bool, value: Range<Int>?) {
        var meaning: UInt64 = 0
        var name: Range<Int>?
        var multiple = false
        var value: Range<Int>?
        let start = p.position
        while let (f, w) = try p.next() {
            switch f {
            case 1:
                try p.expect(w, .varint, f)
                meaning = try p.varint()
            case 3:
                try p.expect(w, .lengthDelimited, f)
                let range = try p.lengthDelimited()
                let valid = p.buffer.withUnsafeBufferPointer { UTF8Validation.isValid(UnsafeBufferPointer(rebasing: $0[range])) }
                guard valid else { throw Failure(offset: range.lowerBound, message: "string field is not valid UTF-8") }
                name = range
            case 4:
                try p.expect(w, .varint, f)
                multiple = try p.bool()
            case 5:
                try p.expect(w, .lengthDelimited, f)
                value = try p.lengthDelimited()
            default: try p.skip(w)
            }
        }
        guard let name else { throw Failure(offset: start, message: "property without a name") }
        return (meaning, name, multiple, value)
    }

    /// Gathers properties in record order; repeated names with `multiple` form arrays (the
    /// elements of one array are consecutive in practice, so the search starts at the end).
    struct PropertyCollector {
        var fields: [ValueMap.Field] = []

        mutating func add(_ p: inout ProtoRecordReader) throws(Failure) {
            let (meaning, nameRange, multiple, valueRange) = try EntityProto.readProperty(&p)
            let name = p.buffer.withUnsafeBufferPointer { UTF8Validation.string(UnsafeBufferPointer(rebasing: $0[nameRange])) } ?? ""
            if meaning == Meaning.emptyList {
                if index(of: name) == nil { fields.append(ValueMap.Field(name, .array([]))) }
                return
            }
            var value = Value.null
            if let valueRange {
                var v = try p.message(at: valueRange)
                value = try EntityProto.decodeValue(&v, meaning: meaning)
            }
            guard multiple else {
                if let i = index(of: name) { fields[i].value = value } else { fields.append(ValueMap.Field(name, value)) }
                return
            }
            if let i = index(of: name), case .array(var elements) = fields[i].value {
                fields[i].value = .null  // keep `elements` uniquely referenced while appending
                elements.append(value)
                fields[i].value = .array(elements)
            } else if let i = index(of: name) {
                fields[i].value = .array([value])
            } else {
                fields.append(ValueMap.Field(name, .array([value])))
            }
        }

        private func index(of name: String) -> Int? {
            fields.lastIndex { UTF8Order.equal($0.name, name) }
        }

        func finish() -> ValueMap { ValueMap(unsortedFields: fields) }
    }

    static func decodeValue(_ v: inout ProtoRecordReader, meaning: UInt64) throws(Failure) -> Value {
        var result: Value = .null
        while let (f, w) = try v.next() {
            switch f {
            case 1:
                try v.expect(w, .varint, f)
                let raw = try v.int64()
                result = meaning == Meaning.timestamp ? .timestamp(Timestamp(microseconds: raw)) : .integer(raw)
            case 2:
                try v.expect(w, .varint, f)
                result = .boolean(try v.bool())
            case 3:
                try v.expect(w, .lengthDelimited, f)
                let range = try v.lengthDelimited()
                result = try decodeStringValue(v, range, meaning: meaning)
            case 4:
                try v.expect(w, .fixed64, f)
                result = .double(try v.double())
            case 5:
                try v.expect(w, .startGroup, f)
                let (lat, lng) = try readPoint(&v)
                result = .geoPoint(latitude: Double(bitPattern: lat), longitude: Double(bitPattern: lng))
            case 12:
                try v.expect(w, .startGroup, f)
                result = try decodeReference(&v)
            default:
                try v.skip(w)
            }
        }
        return result
    }

    /// Reads the point group (field 5) the reader is positioned in (its start tag was read): the
    /// latitude and longitude bits.
    static func readPoint(_ v: inout ProtoRecordReader) throws(Failure) -> (UInt64, UInt64) {
        try v.group(5) { (g: inout ProtoRecordReader) throws(Failure) in
            var lat: UInt64 = 0, lng: UInt64 = 0
            while let (gf, gw) = try g.next() {
                switch gf {
                case 6:
                    try g.expect(gw, .fixed64, gf)
                    lat = try g.fixed64()
                case 7:
                    try g.expect(gw, .fixed64, gf)
                    lng = try g.fixed64()
                default: try g.skip(gw)
                }
            }
            return (lat, lng)
        }
    }

    /// The properties of an entity value (meaning 19) at `range`, read with `read(_:_:)`
    /// (`PropertyCollector.add` or `EncodedFields.add`).
    static func readEntityValue(
        _ v: ProtoRecordReader, _ range: Range<Int>, _ read: (inout ProtoRecordReader) throws(Failure) -> Void
    ) throws(Failure) {
        var nested = try v.message(at: range)
        while let (f, w) = try nested.next() {
            if f == 14 || f == 15 {
                try nested.expect(w, .lengthDelimited, f)
                var p = try nested.message()
                try read(&p)
            } else {
                try nested.skip(w)
            }
        }
    }

    private static func decodeStringValue(_ v: ProtoRecordReader, _ range: Range<Int>, meaning: UInt64) throws(Failure) -> Value {
        switch meaning {
        case Meaning.blob, Meaning.byteString:
            return .bytes(Array(v.buffer[range]))
        case Meaning.entity:
            var properties = PropertyCollector()
            try readEntityValue(v, range) { (p: inout ProtoRecordReader) throws(Failure) in try properties.add(&p) }
            if properties.fields.count == 1, properties.fields[0].name == vectorPropertyName,
               case .array(let elements) = properties.fields[0].value {
                return .map(["__type__": .string("__vector__"), "value": .array(elements)])
            }
            return .map(properties.finish())
        default:
            // Datastore byte strings without a meaning are not UTF-8; keep them as bytes.
            let text = v.buffer.withUnsafeBufferPointer { UTF8Validation.string(UnsafeBufferPointer(rebasing: $0[range])) }
            guard let text else { return .bytes(Array(v.buffer[range])) }
            return .string(text)
        }
    }

    /// Decodes the reference group (field 12) the reader is positioned in (its start tag was read).
    static func decodeReference(_ v: inout ProtoRecordReader) throws(Failure) -> Value {
        var project = ""
        var database = defaultDatabase
        var segments: [String] = []
        try v.group(12) { (g: inout ProtoRecordReader) throws(Failure) in
            while let (f, w) = try g.next() {
                switch f {
                case 13:
                    try g.expect(w, .lengthDelimited, f)
                    project = stripAppPrefix(try g.string())
                case 14:
                    try g.expect(w, .startGroup, f)
                    try g.group(14) { (e: inout ProtoRecordReader) throws(Failure) in
                        let (kind, id) = try readPathElement(&e, typeField: 15, idField: 16, nameField: 17)
                        segments.append(kind)
                        segments.append(id)
                    }
                case 23:
                    try g.expect(w, .lengthDelimited, f)
                    database = try g.string()
                default: try g.skip(w)
                }
            }
        }
        if database.isEmpty { database = defaultDatabase }
        return .reference(DocumentName(projectID: project, databaseID: database, path: ResourcePath(segments: segments)).name)
    }
}
