import EmulatorModel
import EmulatorProtobuf

extension EntityProto {
    /// The entity record of a document whose fields are `ValueCodec` bytes, written without
    /// building value trees. Equal (by test) to `encode` of the decoded document; nil when the
    /// bytes hold something this fast path does not handle (then decode and use `encode`).
    static func encode(stored document: FirestoreStoredDocument) -> [UInt8]? {
        var bytes: [UInt8] = []
        return encode(stored: document, into: &bytes) ? bytes : nil
    }

    /// `encode(stored:)` into `bytes` (emptied first, its capacity reused across documents);
    /// false when the fast path does not apply.
    static func encode(stored document: FirestoreStoredDocument, into bytes: inout [UInt8]) -> Bool {
        var w = ProtoWriter()
        bytes.removeAll(keepingCapacity: true)
        swap(&w.bytes, &bytes)
        defer { swap(&w.bytes, &bytes) }
        return document.encodedFields.withUnsafeBufferPointer { buffer -> Bool in
            var codec = StoredValues(bytes: buffer)
            guard let fields = codec.map(at: 0), fields.end == buffer.count else { return false }
            w.bytes.reserveCapacity(buffer.count + 64)
            w.message(13) { key in
                // "dev~" + project, without building the string.
                key.key(13, .lengthDelimited)
                key.varint(UInt64(4 + document.projectID.utf8.count))
                key.bytes.append(contentsOf: "dev~".utf8)
                key.bytes.append(contentsOf: document.projectID.utf8)
                key.message(14) { writePath(document.path.segments, into: &$0) }
                if document.databaseID != defaultDatabase { key.string(23, document.databaseID) }
            }
            guard codec.writeProperties(fields.fields, into: &w) else { return false }
            w.message(16) { writePath(document.path.segments, limit: 2, into: &$0) }
            return true
        }
    }

    /// A reader of `ValueCodec` bytes by ranges, writing EntityProto properties from them.
    struct StoredValues {
        let bytes: UnsafeBufferPointer<UInt8>
        /// False once something unexpected was met.
        var ok = true

        func varint(_ at: inout Int) -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while at < bytes.count, shift < 64 {
                let byte = bytes[at]
                at += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
            }
            return nil
        }

        func fixed(_ at: inout Int) -> UInt64? {
            guard at + 8 <= bytes.count else { return nil }
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(bytes[at + k]) << UInt64(8 * k) }
            at += 8
            return v
        }

        /// Fields of the map body at `at`: (name range, value start) each, and where it ends.
        func map(at start: Int) -> (fields: [(name: Range<Int>, value: Int)], end: Int)? {
            var at = start
            guard let count = varint(&at), count <= UInt64(bytes.count) else { return nil }
            var fields: [(name: Range<Int>, value: Int)] = []
            fields.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let length = varint(&at), length <= UInt64(bytes.count - at) else { return nil }
                let name = at..<(at + Int(length))
                at += Int(length)
                let value = at
                guard let end = valueEnd(at) else { return nil }
                fields.append((name, value))
                at = end
            }
            return (fields, at)
        }

        /// Where the value starting at `start` ends.
        func valueEnd(_ start: Int, depth: Int = 0) -> Int? {
            guard start < bytes.count, depth < 64 else { return nil }
            var at = start + 1
            switch bytes[start] {
            case ValueTag.null, ValueTag.falseValue, ValueTag.trueValue: return at
            case ValueTag.integer: return varint(&at).map { _ in at }
            case ValueTag.double: return at + 8 <= bytes.count ? at + 8 : nil
            case ValueTag.timestamp:
                guard varint(&at) != nil, varint(&at) != nil else { return nil }
                return at
            case ValueTag.string, ValueTag.bytes, ValueTag.reference:
                guard let length = varint(&at), length <= UInt64(bytes.count - at) else { return nil }
                return at + Int(length)
            case ValueTag.geoPoint: return at + 16 <= bytes.count ? at + 16 : nil
            case ValueTag.array:
                guard let count = varint(&at), count <= UInt64(bytes.count) else { return nil }
                for _ in 0..<count {
                    guard let end = valueEnd(at, depth: depth + 1) else { return nil }
                    at = end
                }
                return at
            case ValueTag.map:
                guard let body = mapEnd(at, depth: depth + 1) else { return nil }
                return body
            default: return nil
            }
        }

        private func mapEnd(_ start: Int, depth: Int) -> Int? {
            var at = start
            guard let count = varint(&at), count <= UInt64(bytes.count) else { return nil }
            for _ in 0..<count {
                guard let length = varint(&at), length <= UInt64(bytes.count - at) else { return nil }
                at += Int(length)
                guard let end = valueEnd(at, depth: depth) else { return nil }
                at = end
            }
            return at
        }

        func slice(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }

        /// Array elements' starts, for the array value at `start`.
        func elements(_ start: Int) -> [Int]? {
            var at = start + 1
            guard let count = varint(&at) else { return nil }
            var starts: [Int] = []
            for _ in 0..<count {
                starts.append(at)
                guard let end = valueEnd(at) else { return nil }
                at = end
            }
            return starts
        }

        /// The properties of a map, as `writeProperties` writes them from a ValueMap.
        mutating func writeProperties(_ fields: [(name: Range<Int>, value: Int)], into w: inout ProtoWriter) -> Bool {
            for field in fields {
                if bytes[field.value] == ValueTag.array {
                    guard let starts = elements(field.value) else { return false }
                    if starts.isEmpty {
                        w.message(14) { p in
                            p.uint64(1, Meaning.emptyList)
                            p.bytes(3, slice(field.name))
                            p.bool(4, false)
                            p.message(5) { _ in }
                        }
                    } else {
                        for element in starts {
                            // An array inside an array takes the slow path.
                            guard bytes[element] != ValueTag.array, writeProperty(field.name, element, multiple: true, into: &w) else { return false }
                        }
                    }
                } else if !writeProperty(field.name, field.value, multiple: false, into: &w) {
                    return false
                }
            }
            return ok
        }

        private mutating func writeProperty(_ name: Range<Int>, _ value: Int, multiple: Bool, into w: inout ProtoWriter) -> Bool {
            var good = true
            let tag = bytes[value]
            w.message(15) { p in
                switch tag {
                case ValueTag.timestamp: p.uint64(1, Meaning.timestamp)
                case ValueTag.geoPoint: p.uint64(1, Meaning.geoPoint)
                case ValueTag.bytes: p.uint64(1, Meaning.blob)
                case ValueTag.map: p.uint64(1, Meaning.entity)
                default: break
                }
                p.bytes(3, slice(name))
                p.bool(4, multiple)
                p.message(5) { v in good = writeValue(value, into: &v) }
            }
            return good
        }

        private func writeValue(_ start: Int, into v: inout ProtoWriter) -> Bool {
            var at = start + 1
            switch bytes[start] {
            case ValueTag.null: return true
            case ValueTag.falseValue: v.bool(2, false)
            case ValueTag.trueValue: v.bool(2, true)
            case ValueTag.integer:
                guard let raw = varint(&at) else { return false }
                v.int64(1, Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1))
            case ValueTag.double:
                guard let bits = fixed(&at) else { return false }
                v.fixed64(4, bits)
            case ValueTag.timestamp:
                guard let rawSeconds = varint(&at), let nanos = varint(&at), nanos < 1_000_000_000 else { return false }
                let seconds = Int64(bitPattern: rawSeconds >> 1) ^ -Int64(bitPattern: rawSeconds & 1)
                v.int64(1, Timestamp(seconds: seconds, nanos: Int32(nanos)).microseconds)
            case ValueTag.string:
                guard let length = varint(&at) else { return false }
                v.bytes(3, slice(at..<(at + Int(length))))
            case ValueTag.bytes:
                guard let length = varint(&at) else { return false }
                v.bytes(3, slice(at..<(at + Int(length))))
            case ValueTag.reference:
                guard let length = varint(&at) else { return false }
                writeReference(String(decoding: slice(at..<(at + Int(length))), as: UTF8.self), into: &v)
            case ValueTag.geoPoint:
                guard let lat = fixed(&at), let lng = fixed(&at) else { return false }
                v.group(5) { point in
                    point.fixed64(6, lat)
                    point.fixed64(7, lng)
                }
            case ValueTag.map:
                guard let fields = map(at: at) else { return false }
                // Vectors (rare) take the slow path.
                if isVector(fields.fields) { return false }
                var good = true
                var copy = self
                v.message(3) { nested in good = copy.writeProperties(fields.fields, into: &nested) }
                return good
            default:
                return false  // arrays are written by `writeProperties`
            }
            return true
        }

        /// True for a map `{__type__: "__vector__", …}`.
        private func isVector(_ fields: [(name: Range<Int>, value: Int)]) -> Bool {
            for field in fields where slice(field.name).elementsEqual("__type__".utf8) {
                var at = field.value + 1
                guard bytes[field.value] == ValueTag.string, let length = varint(&at), length <= UInt64(bytes.count - at) else { return false }
                return slice(at..<(at + Int(length))).elementsEqual("__vector__".utf8)
            }
            return false
        }
    }
}
