import EmulatorModel

extension EntityProto {
    typealias Failure = ProtoReader.Failure

    /// Decodes one entity record into a document. Offsets in errors are relative to `bytes`.
    static func decode(_ bytes: [UInt8]) throws(Failure) -> FirestoreExportDocument {
        try ProtoReader.reading(bytes) { (r: inout ProtoReader) throws(Failure) in try decode(&r) }
    }

    private static func decode(_ r: inout ProtoReader) throws(Failure) -> FirestoreExportDocument {
        var project = ""
        var database = defaultDatabase
        var segments: [String] = []
        var sawKey = false
        var properties = PropertyCollector()
        while let (field, type) = try r.nextTag() {
            switch field {
            case 13:
                sawKey = true
                var key = try r.readMessage(type)
                try readKey(&key, project: &project, database: &database, segments: &segments)
            case 14, 15:
                var p = try r.readMessage(type)
                try properties.add(&p)
            default:
                try r.skip(type, field: field)
            }
        }
        guard sawKey, !segments.isEmpty else { throw Failure(offset: 0, message: "entity has no key path") }
        if database.isEmpty { database = defaultDatabase }
        return FirestoreExportDocument(
            projectID: project, databaseID: database, path: ResourcePath(segments: segments), fields: properties.finish())
    }

    /// Reads an entity key (field 13): the app id (project), the path elements (collection and
    /// document ids, appended to `segments`) and the database id. Shared by `decode` and `transcode`.
    static func readKey(
        _ key: inout ProtoReader, project: inout String, database: inout String, segments: inout [String]
    ) throws(Failure) {
        while let (kf, kt) = try key.nextTag() {
            switch kf {
            case 13: project = stripAppPrefix(try key.readString(kt))
            case 14:
                var path = try key.readMessage(kt)
                while let (pf, pt) = try path.nextTag() {
                    guard pf == 1 else { try path.skip(pt, field: pf); continue }
                    try path.readGroup(field: 1, pt) { (e: inout ProtoReader) throws(Failure) in
                        let (kind, id) = try readPathElement(&e, typeField: 2, idField: 3, nameField: 4)
                        segments.append(kind)
                        segments.append(id)
                    }
                }
            case 23: database = try key.readString(kt)
            default: try key.skip(kt, field: kf)
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
        _ e: inout ProtoReader, typeField: Int, idField: Int, nameField: Int
    ) throws(Failure) -> (String, String) {
        var kind: String?
        var id: String?
        let start = e.position
        while let (f, t) = try e.nextTag() {
            switch f {
            case typeField: kind = try e.readString(t)
            case idField: id = "__id\(Int64(bitPattern: try e.readVarint(t)))__"
            case nameField: id = try e.readString(t)
            default: try e.skip(t, field: f)
            }
        }
        guard let kind, let id, !kind.isEmpty, !id.isEmpty else {
            throw Failure(offset: start, message: "path element without a kind and an id or name")
        }
        return (kind, id)
    }

    /// Gathers properties in record order; repeated names with `multiple` form arrays (the
    /// elements of one array are consecutive in practice, so the search starts at the end).
    struct PropertyCollector {
        var fields: [ValueMap.Field] = []

        mutating func add(_ p: inout ProtoReader) throws(Failure) {
            var meaning: UInt64 = 0
            var name: String?
            var multiple = false
            var valueRange: Range<Int>?
            let start = p.position
            while let (f, t) = try p.nextTag() {
                switch f {
                case 1: meaning = try p.readVarint(t)
                case 3: name = try p.readString(t)
                case 4: multiple = try p.readVarint(t) != 0
                case 5: valueRange = try p.readLengthDelimited(t)
                default: try p.skip(t, field: f)
                }
            }
            guard let name else { throw Failure(offset: start, message: "property without a name") }
            if meaning == Meaning.emptyList {
                if index(of: name) == nil { fields.append(ValueMap.Field(name, .array([]))) }
                return
            }
            var value = Value.null
            if let valueRange {
                var v = ProtoReader(p.bytes, valueRange)
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

    static func decodeValue(_ v: inout ProtoReader, meaning: UInt64) throws(Failure) -> Value {
        var result: Value = .null
        while let (f, t) = try v.nextTag() {
            switch f {
            case 1:
                let raw = Int64(bitPattern: try v.readVarint(t))
                result = meaning == Meaning.timestamp ? .timestamp(Timestamp(microseconds: raw)) : .integer(raw)
            case 2:
                result = .boolean(try v.readVarint(t) != 0)
            case 3:
                let range = try v.readLengthDelimited(t)
                result = try decodeStringValue(v.bytes, range, meaning: meaning)
            case 4:
                result = .double(Double(bitPattern: try v.readFixed64(t)))
            case 5:
                var lat = 0.0, lng = 0.0
                try v.readGroup(field: 5, t) { (g: inout ProtoReader) throws(Failure) in
                    while let (gf, gt) = try g.nextTag() {
                        switch gf {
                        case 6: lat = Double(bitPattern: try g.readFixed64(gt))
                        case 7: lng = Double(bitPattern: try g.readFixed64(gt))
                        default: try g.skip(gt, field: gf)
                        }
                    }
                }
                result = .geoPoint(latitude: lat, longitude: lng)
            case 12:
                result = try decodeReference(&v, t)
            default:
                try v.skip(t, field: f)
            }
        }
        return result
    }

    private static func decodeStringValue(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, meaning: UInt64) throws(Failure) -> Value {
        switch meaning {
        case Meaning.blob, Meaning.byteString:
            return .bytes(Array(UnsafeBufferPointer(rebasing: bytes[range])))
        case Meaning.entity:
            var nested = ProtoReader(bytes, range)
            var properties = PropertyCollector()
            while let (f, t) = try nested.nextTag() {
                if f == 14 || f == 15 {
                    var p = try nested.readMessage(t)
                    try properties.add(&p)
                } else {
                    try nested.skip(t, field: f)
                }
            }
            if properties.fields.count == 1, properties.fields[0].name == vectorPropertyName,
               case .array(let elements) = properties.fields[0].value {
                return .map(["__type__": .string("__vector__"), "value": .array(elements)])
            }
            return .map(properties.finish())
        default:
            // Datastore byte strings without a meaning are not UTF-8; keep them as bytes.
            let slice = UnsafeBufferPointer(rebasing: bytes[range])
            guard let text = ProtoReader.string(slice) else { return .bytes(Array(slice)) }
            return .string(text)
        }
    }

    /// Decodes the reference group (field 12) the reader is positioned after (its start tag was read).
    static func decodeReference(_ v: inout ProtoReader, _ type: ProtoReader.WireType) throws(Failure) -> Value {
        var project = ""
        var database = defaultDatabase
        var segments: [String] = []
        try v.readGroup(field: 12, type) { (g: inout ProtoReader) throws(Failure) in
            while let (f, t) = try g.nextTag() {
                switch f {
                case 13: project = stripAppPrefix(try g.readString(t))
                case 14:
                    try g.readGroup(field: 14, t) { (e: inout ProtoReader) throws(Failure) in
                        let (kind, id) = try readPathElement(&e, typeField: 15, idField: 16, nameField: 17)
                        segments.append(kind)
                        segments.append(id)
                    }
                case 23: database = try g.readString(t)
                default: try g.skip(t, field: f)
                }
            }
        }
        if database.isEmpty { database = defaultDatabase }
        return .reference(DocumentName(projectID: project, databaseID: database, path: ResourcePath(segments: segments)).name)
    }
}
