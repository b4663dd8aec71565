extension ValueCodec {
    /// A bounds-checked cursor over encoded bytes.
    struct Reader {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func corrupt(_ what: String) -> EmulatorError {
            .dataLoss("Corrupted value encoding at byte \(position): \(what).")
        }

        mutating func readByte() throws(EmulatorError) -> UInt8 {
            guard position < bytes.count else { throw corrupt("unexpected end") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func readVarint() throws(EmulatorError) -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = try readByte()
                if shift == 63 && b > 1 { throw corrupt("varint overflow") }
                result |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return result }
                shift += 7
                if shift > 63 { throw corrupt("varint too long") }
            }
        }

        mutating func readZigzag() throws(EmulatorError) -> Int64 {
            let v = try readVarint()
            return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
        }

        mutating func readFixed() throws(EmulatorError) -> UInt64 {
            guard bytes.count - position >= 8 else { throw corrupt("unexpected end") }
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(bytes[position + k]) << UInt64(8 * k) }
            position += 8
            return v
        }

        /// A length that fits in the remaining input (at least `unit` bytes per item).
        mutating func readCount(unit: Int) throws(EmulatorError) -> Int {
            let n = try readVarint()
            guard n <= UInt64(bytes.count - position) / UInt64(unit) else { throw corrupt("length beyond input") }
            return Int(n)
        }

        mutating func readBytes() throws(EmulatorError) -> ArraySlice<UInt8> {
            let n = try readCount(unit: 1)
            defer { position += n }
            return bytes[position..<(position + n)]
        }

        mutating func readString() throws(EmulatorError) -> String {
            let raw = try readBytes()
            guard let s = String(validating: raw, as: UTF8.self) else { throw corrupt("invalid UTF-8") }
            return s
        }

        mutating func readMap(depth: Int) throws(EmulatorError) -> ValueMap {
            let count = try readCount(unit: 2)
            var fields: [ValueMap.Field] = []
            fields.reserveCapacity(count)
            for _ in 0..<count {
                let name = try readString()
                let value = try readValue(depth: depth + 1)
                fields.append(ValueMap.Field(name, value))
            }
            guard let map = ValueMap(sortedFields: fields) else { throw corrupt("map keys out of order") }
            return map
        }

        mutating func readValue(depth: Int) throws(EmulatorError) -> Value {
            guard depth <= ValueCodec.maxDecodeDepth else { throw corrupt("nesting too deep") }
            let raw = try readByte()
            guard let tag = Tag(rawValue: raw) else { throw corrupt("unknown tag \(raw)") }
            switch tag {
            case .null: return .null
            case .falseValue: return .boolean(false)
            case .trueValue: return .boolean(true)
            case .integer: return .integer(try readZigzag())
            case .double: return .double(Double(bitPattern: try readFixed()))
            case .timestamp:
                let seconds = try readZigzag()
                let nanos = try readVarint()
                guard nanos < 1_000_000_000 else { throw corrupt("nanos out of range") }
                return .timestamp(Timestamp(seconds: seconds, nanos: Int32(nanos)))
            case .string: return .string(try readString())
            case .bytes: return .bytes(Array(try readBytes()))
            case .reference: return .reference(try readString())
            case .geoPoint:
                let lat = Double(bitPattern: try readFixed())
                let lng = Double(bitPattern: try readFixed())
                return .geoPoint(latitude: lat, longitude: lng)
            case .array:
                let count = try readCount(unit: 1)
                var elements: [Value] = []
                elements.reserveCapacity(count)
                for _ in 0..<count { elements.append(try readValue(depth: depth + 1)) }
                return .array(elements)
            case .map:
                return .map(try readMap(depth: depth))
            }
        }
    }
}
