package import EmulatorModel

/// `google.firestore.v1.Value`, `MapValue`, `ArrayValue`, `google.type.LatLng` and
/// `google.protobuf.Timestamp` to and from ``Value``.
///
/// ```swift
/// var w = ProtoWriter()
/// ProtoValue.write(.integer(1), to: &w)       // 0x10 0x01
/// let v = try ProtoValue.read(ProtoReader(w.bytes))
/// ```
package enum ProtoValue {
    // MARK: Encoding

    /// Writes the fields of a `Value` message (the oneof member, even when it is a default).
    package static func write(_ value: Value, to w: inout ProtoWriter) {
        switch value {
        case .null: w.uint64(11, 0)
        case .boolean(let b): w.bool(1, b)
        case .integer(let i): w.int64(2, i)
        case .double(let d): w.double(3, d)
        case .timestamp(let t): w.message(10) { writeTimestamp(t, to: &$0) }
        case .string(let s): w.string(17, s)
        case .bytes(let b): w.bytes(18, b)
        case .reference(let r): w.string(5, r)
        case .geoPoint(let lat, let lng):
            w.message(8) {
                $0.double(1, lat)
                $0.double(2, lng)
            }
        case .array(let elements):
            w.message(9) { a in
                for e in elements { a.message(1) { write(e, to: &$0) } }
            }
        case .map(let m):
            w.message(6) { writeFields(m, field: 1, to: &$0) }
        }
    }

    /// Writes `map<string, Value>` entries as repeated field `field`.
    package static func writeFields(_ map: ValueMap, field: Int, to w: inout ProtoWriter) {
        for f in map {
            w.message(field) { entry in
                entry.string(1, f.name)
                entry.message(2) { write(f.value, to: &$0) }
            }
        }
    }

    /// Writes the fields of a `google.protobuf.Timestamp`.
    package static func writeTimestamp(_ t: Timestamp, to w: inout ProtoWriter) {
        if t.seconds != 0 { w.int64(1, t.seconds) }
        if t.nanos != 0 { w.int32(2, t.nanos) }
    }

    /// A `Timestamp` message field from microseconds since the epoch.
    package static func writeTimestamp(_ field: Int, microseconds: Int64, to w: inout ProtoWriter) {
        w.message(field) { writeTimestamp(Timestamp(microseconds: microseconds), to: &$0) }
    }

    // MARK: Decoding

    /// Reads a `Value` message. Exactly one member must be set (a later member replaces an
    /// earlier one, as protobuf oneofs do); none is INVALID_ARGUMENT.
    package static func read(_ reader: ProtoReader) throws(EmulatorError) -> Value {
        var r = reader
        var value: Value?
        while let (field, wire) = try r.next() {
            switch field {
            case 11: try r.expect(wire, .varint, field); _ = try r.varint(); value = .null
            case 1: try r.expect(wire, .varint, field); value = .boolean(try r.bool())
            case 2: try r.expect(wire, .varint, field); value = .integer(try r.int64())
            case 3: try r.expect(wire, .fixed64, field); value = .double(try r.double())
            case 10: try r.expect(wire, .lengthDelimited, field); value = .timestamp(try readTimestamp(r.message()))
            case 17: try r.expect(wire, .lengthDelimited, field); value = .string(try r.string())
            case 18: try r.expect(wire, .lengthDelimited, field); value = .bytes(try r.bytes())
            case 5: try r.expect(wire, .lengthDelimited, field); value = .reference(try r.string())
            case 8:
                try r.expect(wire, .lengthDelimited, field)
                var g = try r.message()
                var lat = 0.0
                var lng = 0.0
                while let (f, w) = try g.next() {
                    switch f {
                    case 1: try g.expect(w, .fixed64, f); lat = try g.double()
                    case 2: try g.expect(w, .fixed64, f); lng = try g.double()
                    default: try g.skip(w)
                    }
                }
                value = .geoPoint(latitude: lat, longitude: lng)
            case 9:
                try r.expect(wire, .lengthDelimited, field)
                var a = try r.message()
                var elements: [Value] = []
                while let (f, w) = try a.next() {
                    if f == 1 {
                        try a.expect(w, .lengthDelimited, f)
                        elements.append(try read(a.message()))
                    } else {
                        try a.skip(w)
                    }
                }
                value = .array(elements)
            case 6:
                try r.expect(wire, .lengthDelimited, field)
                var m = try r.message()
                value = .map(try readFields(&m, field: 1))
            case 19, 20, 21, 22:
                throw .invalidArgument("Pipeline expression values are not supported by the emulator.")
            default:
                try r.skip(wire)
            }
        }
        guard let value else { throw .invalidArgument("A Value must have exactly one value_type set.") }
        return value
    }

    /// Reads the whole message as `map<string, Value>` entries in field `field`, skipping others.
    package static func readFields(_ r: inout ProtoReader, field: Int) throws(EmulatorError) -> ValueMap {
        var fields: [ValueMap.Field] = []
        while let (f, w) = try r.next() {
            if f == field {
                try r.expect(w, .lengthDelimited, f)
                fields.append(try readEntry(r.message()))
            } else {
                try r.skip(w)
            }
        }
        return ValueMap(unsortedFields: fields)
    }

    /// Reads one map entry `{1: key, 2: Value}`; a missing value is INVALID_ARGUMENT.
    package static func readEntry(_ reader: ProtoReader) throws(EmulatorError) -> ValueMap.Field {
        var e = reader
        var key = ""
        var value: Value?
        while let (f, w) = try e.next() {
            switch f {
            case 1: try e.expect(w, .lengthDelimited, f); key = try e.string()
            case 2: try e.expect(w, .lengthDelimited, f); value = try read(e.message())
            default: try e.skip(w)
            }
        }
        guard let value else { throw .invalidArgument("Map entry \"\(key)\" has no value.") }
        return ValueMap.Field(key, value)
    }

    /// Reads a `google.protobuf.Timestamp`; nanos outside 0..<10^9 or seconds outside years
    /// 1–9999 are INVALID_ARGUMENT.
    package static func readTimestamp(_ reader: ProtoReader) throws(EmulatorError) -> Timestamp {
        var r = reader
        var t = Timestamp(seconds: 0, nanos: 0)
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .varint, f); t.seconds = try r.int64()
            case 2: try r.expect(w, .varint, f); t.nanos = try r.int32()
            default: try r.skip(w)
            }
        }
        guard t.isValid else { throw .invalidArgument("Invalid timestamp: seconds \(t.seconds), nanos \(t.nanos).") }
        return t
    }

    /// A timestamp as microseconds since the epoch (the emulator's time unit), rounded down.
    package static func readMicroseconds(_ reader: ProtoReader) throws(EmulatorError) -> Int64 {
        try readTimestamp(reader).microseconds
    }
}
