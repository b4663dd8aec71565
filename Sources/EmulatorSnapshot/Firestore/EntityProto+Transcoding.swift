package import EmulatorModel
import EmulatorProtobuf
import EmulatorSupport

/// A document read from an export straight into the storage encoding: its fields as
/// `ValueCodec` bytes (what `ValueCodec.encode(fields)` gives), without building value trees.
package struct FirestoreStoredDocument: Sendable, Equatable {
    package var projectID: String
    package var databaseID: String
    package var path: ResourcePath
    /// `ValueCodec` encoding of the document's fields.
    package var encodedFields: [UInt8]
    /// Create and update time in microseconds (0 when the snapshot does not carry them: the
    /// official format has no place for them; ours keeps them in a side file, see
    /// `DocumentTimesFile`).
    package var createTime: Int64
    package var updateTime: Int64

    package init(
        projectID: String, databaseID: String = "(default)", path: ResourcePath, encodedFields: [UInt8],
        createTime: Int64 = 0, updateTime: Int64 = 0
    ) {
        self.projectID = projectID
        self.databaseID = databaseID
        self.path = path
        self.encodedFields = encodedFields
        self.createTime = createTime
        self.updateTime = updateTime
    }
}

extension EntityProto {
    /// Decodes one entity record directly into `ValueCodec` bytes. Equal, by construction and by
    /// test, to `ValueCodec.encode(decode(record).fields)`.
    static func transcode(_ bytes: [UInt8]) throws(Failure) -> FirestoreStoredDocument {
        // The reader reads `bytes`; the names and values copied out are sliced from the same
        // storage through `record`.
        try bytes.withUnsafeBufferPointer { (record) throws(Failure) in
            var r = ProtoRecordReader(bytes)
            return try transcode(&r, record: record)
        }
    }

    private static func transcode(_ r: inout ProtoRecordReader, record: UnsafeBufferPointer<UInt8>) throws(Failure) -> FirestoreStoredDocument {
        var fields = EncodedFields(record: record)
        let key = try readEntity(&r) { (p: inout ProtoRecordReader) throws(Failure) in try fields.add(&p) }
        return FirestoreStoredDocument(projectID: key.project, databaseID: key.database, path: key.path, encodedFields: fields.encoded())
    }

    /// Properties gathered as encoded values, with the decoder's rules for repeated names. Names
    /// stay ranges of the record and values are appended to one buffer, so a property costs no
    /// allocation of its own.
    struct EncodedFields {
        /// The bytes of the record being read (the readers' `buffer`), valid while it is read.
        let record: UnsafeBufferPointer<UInt8>
        /// Name of each field, as a range of `record`.
        var names: [Range<Int>] = []
        /// Per field: its value range in `values` (single), or its elements' ranges (array).
        var singles: [Range<Int>] = []
        var arrays: [[Range<Int>]?] = []
        var values: [UInt8] = []

        init(record: UnsafeBufferPointer<UInt8>) {
            self.record = record
            values.reserveCapacity(256)
        }

        var onlyVectorElements: Bool {
            names.count == 1 && arrays[0] != nil
                && UnsafeBufferPointer(rebasing: record[names[0]]).elementsEqual(vectorPropertyName.utf8)
        }

        private func name(_ i: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: record[names[i]]) }

        private func index(of range: Range<Int>) -> Int? {
            let wanted = UnsafeBufferPointer(rebasing: record[range])
            var i = names.count - 1
            while i >= 0 {
                if UTF8Order.compare(name(i), wanted) == 0 { return i }
                i -= 1
            }
            return nil
        }

        mutating func add(_ p: inout ProtoRecordReader) throws(Failure) {
            let (meaning, nameRange, multiple, valueRange) = try EntityProto.readProperty(&p)
            let existing = index(of: nameRange)
            if meaning == Meaning.emptyList {
                if existing == nil {
                    names.append(nameRange)
                    singles.append(0..<0)
                    arrays.append([])
                }
                return
            }
            let valueStart = values.count
            if let valueRange {
                var v = try p.message(at: valueRange)
                try EntityProto.encodeValue(&v, meaning: meaning, record: record, into: &values)
            } else {
                values.append(ValueTag.null)
            }
            let value = valueStart..<values.count
            guard multiple else {
                if let existing {
                    singles[existing] = value
                    arrays[existing] = nil
                } else {
                    names.append(nameRange)
                    singles.append(value)
                    arrays.append(nil)
                }
                return
            }
            if let existing, arrays[existing] != nil {
                arrays[existing]?.append(value)
            } else if let existing {
                arrays[existing] = [value]
            } else {
                names.append(nameRange)
                singles.append(0..<0)
                arrays.append([value])
            }
        }

        /// Appends the ValueCodec map body: varint count, then per field (sorted by name bytes,
        /// the last of equal names winning) varint length, name, value.
        func encode(into out: inout [UInt8]) {
            var sorted = true
            var i = 1
            while i < names.count {
                if UTF8Order.compare(name(i - 1), name(i)) >= 0 { sorted = false; break }
                i += 1
            }
            if sorted {
                // The usual case (exports write properties in name order): no index array.
                appendVarint(UInt64(names.count), &out)
                for i in names.indices { appendField(i, &out) }
                return
            }
            let order = names.indices.sorted { a, b in
                let c = UTF8Order.compare(name(a), name(b))
                return c != 0 ? c < 0 : a < b
            }
            var unique: [Int] = []
            for i in order {
                if let last = unique.last, UTF8Order.compare(name(last), name(i)) == 0 { unique[unique.count - 1] = i } else { unique.append(i) }
            }
            appendVarint(UInt64(unique.count), &out)
            for i in unique { appendField(i, &out) }
        }

        private func appendField(_ i: Int, _ out: inout [UInt8]) {
            appendVarint(UInt64(names[i].count), &out)
            out.append(contentsOf: name(i))
            appendValue(i, &out)
        }

        func appendValue(_ i: Int, _ out: inout [UInt8]) {
            if let elements = arrays[i] {
                out.append(ValueTag.array)
                appendVarint(UInt64(elements.count), &out)
                for element in elements { out.append(contentsOf: values[element]) }
            } else {
                out.append(contentsOf: values[singles[i]])
            }
        }

        func encoded() -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(values.count + names.count * 12 + 4)
            encode(into: &out)
            return out
        }
    }

    /// ValueCodec tags (the storage encoding of `EmulatorModel.ValueCodec`).
    enum ValueTag {
        static let null: UInt8 = 0, falseValue: UInt8 = 1, trueValue: UInt8 = 2, integer: UInt8 = 3, double: UInt8 = 4
        static let timestamp: UInt8 = 5, string: UInt8 = 6, bytes: UInt8 = 7, reference: UInt8 = 8, geoPoint: UInt8 = 9
        static let array: UInt8 = 10, map: UInt8 = 11
    }

    static func appendVarint(_ value: UInt64, _ out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    static func appendZigzag(_ value: Int64, _ out: inout [UInt8]) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)), &out)
    }

    static func appendFixed(_ value: UInt64, _ out: inout [UInt8]) {
        for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * k))) }
    }

    /// Appends one PropertyValue as ValueCodec bytes (the same choices as `decodeValue`; the
    /// last of repeated value fields wins).
    /// `record` is the bytes `v` reads (its `buffer`).
    static func encodeValue(
        _ v: inout ProtoRecordReader, meaning: UInt64, record: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]
    ) throws(Failure) {
        let start = out.count
        out.append(ValueTag.null)
        while let (f, w) = try v.next() {
            switch f {
            case 1:
                try v.expect(w, .varint, f)
                let raw = try v.int64()
                out.removeSubrange(start...)
                if meaning == Meaning.timestamp {
                    let time = Timestamp(microseconds: raw)
                    out.append(ValueTag.timestamp)
                    appendZigzag(time.seconds, &out)
                    appendVarint(UInt64(UInt32(bitPattern: time.nanos)), &out)
                } else {
                    out.append(ValueTag.integer)
                    appendZigzag(raw, &out)
                }
            case 2:
                try v.expect(w, .varint, f)
                let flag = try v.bool()
                out.removeSubrange(start...)
                out.append(flag ? ValueTag.trueValue : ValueTag.falseValue)
            case 3:
                try v.expect(w, .lengthDelimited, f)
                let range = try v.lengthDelimited()
                out.removeSubrange(start...)
                try encodeStringValue(v, range, meaning: meaning, record: record, into: &out)
            case 4:
                try v.expect(w, .fixed64, f)
                let bits = try v.fixed64()
                out.removeSubrange(start...)
                out.append(ValueTag.double)
                appendFixed(bits, &out)
            case 5:
                try v.expect(w, .startGroup, f)
                let (lat, lng) = try readPoint(&v)
                out.removeSubrange(start...)
                out.append(ValueTag.geoPoint)
                appendFixed(lat, &out)
                appendFixed(lng, &out)
            case 12:
                // References are rare: reuse the decoder, then encode the name.
                try v.expect(w, .startGroup, f)
                guard case .reference(let name) = try decodeReference(&v) else { continue }
                out.removeSubrange(start...)
                out.append(ValueTag.reference)
                appendVarint(UInt64(name.utf8.count), &out)
                out.append(contentsOf: name.utf8)
            default:
                try v.skip(w)
            }
        }
    }

    private static func encodeStringValue(
        _ v: ProtoRecordReader, _ range: Range<Int>, meaning: UInt64, record: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]
    ) throws(Failure) {
        let slice = UnsafeBufferPointer(rebasing: record[range])
        switch meaning {
        case Meaning.blob, Meaning.byteString:
            out.append(ValueTag.bytes)
            appendVarint(UInt64(slice.count), &out)
            out.append(contentsOf: slice)
        case Meaning.entity:
            var fields = EncodedFields(record: record)
            try readEntityValue(v, range) { (p: inout ProtoRecordReader) throws(Failure) in try fields.add(&p) }
            out.append(ValueTag.map)
            if fields.onlyVectorElements {
                // {__type__: "__vector__", value: [...]}, fields in byte order.
                appendVarint(2, &out)
                appendVarint(8, &out)
                out.append(contentsOf: "__type__".utf8)
                out.append(ValueTag.string)
                appendVarint(10, &out)
                out.append(contentsOf: "__vector__".utf8)
                appendVarint(5, &out)
                out.append(contentsOf: "value".utf8)
                fields.appendValue(0, &out)
                return
            }
            fields.encode(into: &out)
        default:
            out.append(UTF8Validation.isValid(slice) ? ValueTag.string : ValueTag.bytes)
            appendVarint(UInt64(slice.count), &out)
            out.append(contentsOf: slice)
        }
    }
}
