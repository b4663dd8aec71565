import EmulatorModel
import Foundation

/// Property wrappers that decode without a stored field (`@DocumentID`) or from a missing one
/// (`@ServerTimestamp`, `@ExplicitNull`: nil).
protocol DecodableWhenMissing {
    static func whenMissing(decoder: FirestoreValueDecoder, codingPath: [any CodingKey]) throws -> Self
}

/// The `Decoder` behind `Firestore.Decoder`.
final class FirestoreValueDecoder: Decoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    let value: Value
    let reference: DocumentReference?

    init(value: Value, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any], reference: DocumentReference?) {
        self.value = value
        self.codingPath = codingPath
        self.userInfo = userInfo
        self.reference = reference
    }

    func child(_ value: Value, key: any CodingKey) -> FirestoreValueDecoder {
        FirestoreValueDecoder(value: value, codingPath: codingPath + [key], userInfo: userInfo, reference: reference)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .map(let m) = value else {
            throw mismatch([String: Any].self, value, codingPath)
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, map: m))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let a) = value else { throw mismatch([Any].self, value, codingPath) }
        return UnkeyedContainer(decoder: self, items: a)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(decoder: self) }

    func mismatch(_ type: Any.Type, _ value: Value, _ path: [any CodingKey]) -> DecodingError {
        if case .null = value {
            return DecodingError.valueNotFound(
                type, .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
        return DecodingError.typeMismatch(
            type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(describe(value)) instead."))
    }

    private func describe(_ v: Value) -> String {
        switch v {
        case .null: "null"
        case .boolean: "a boolean"
        case .integer: "an integer"
        case .double: "a double"
        case .timestamp: "a timestamp"
        case .string: "a string"
        case .bytes: "bytes"
        case .reference: "a document reference"
        case .geoPoint: "a geo point"
        case .array: "an array"
        case .map: "a map"
        }
    }

    // MARK: scalars

    func bool(_ v: Value, _ path: [any CodingKey]) throws -> Bool {
        guard case .boolean(let b) = v else { throw mismatch(Bool.self, v, path) }
        return b
    }

    func string(_ v: Value, _ path: [any CodingKey]) throws -> String {
        guard case .string(let s) = v else { throw mismatch(String.self, v, path) }
        return s
    }

    func double(_ v: Value, _ path: [any CodingKey]) throws -> Double {
        switch v {
        case .double(let d): return d
        case .integer(let i): return Double(i)
        default: throw mismatch(Double.self, v, path)
        }
    }

    func integer<T: FixedWidthInteger>(_ v: Value, _ type: T.Type, _ path: [any CodingKey]) throws -> T {
        let result: T?
        switch v {
        case .integer(let i): result = T(exactly: i)
        case .double(let d): result = T(exactly: d)
        default: throw mismatch(T.self, v, path)
        }
        guard let result else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path, debugDescription: "Parsed Firestore number <\(v)> does not fit in \(T.self)."))
        }
        return result
    }

    /// Decodes any `Decodable`, reading natively stored types directly.
    func decode<T: Decodable>(_ type: T.Type, from v: Value, path: [any CodingKey]) throws -> T {
        if type == Date.self {
            guard case .timestamp(let t) = v else { throw mismatch(Date.self, v, path) }
            if let date = Timestamp(t).dateValue() as? T { return date }
        }
        if let result = try native(type, v, path) { return result }
        let child = FirestoreValueDecoder(value: v, codingPath: path, userInfo: userInfo, reference: reference)
        return try T(from: child)
    }

    private func native<T>(_ type: T.Type, _ v: Value, _ path: [any CodingKey]) throws -> T? {
        switch type {
        case is Timestamp.Type:
            guard case .timestamp(let t) = v else { throw mismatch(Timestamp.self, v, path) }
            return Timestamp(t) as? T
        case is GeoPoint.Type:
            guard case .geoPoint(let lat, let lng) = v else { throw mismatch(GeoPoint.self, v, path) }
            return GeoPoint(latitude: lat, longitude: lng) as? T
        case is Data.Type:
            switch v {
            case .bytes(let b): return Data(b) as? T
            case .string(let s):
                guard let d = Data(base64Encoded: s) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Encountered Data is not valid Base64."))
                }
                return d as? T
            default: throw mismatch(Data.self, v, path)
            }
        case is URL.Type:
            guard case .string(let s) = v else { throw mismatch(URL.self, v, path) }
            guard let url = URL(string: s) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Invalid URL string."))
            }
            return url as? T
        case is DocumentReference.Type:
            guard case .reference(let name) = v else { throw mismatch(DocumentReference.self, v, path) }
            guard let firestore = reference?.firestore, let ref = DocumentReference(name: name, firestore: firestore) else {
                throw FirestoreDecodingError.decodingIsNotSupported(
                    "Could not decode a DocumentReference without a Firestore instance (decode with `in:`).")
            }
            return ref as? T
        case is Decimal.Type:
            return Decimal(try double(v, path)) as? T
        default:
            return nil
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: FirestoreValueDecoder
        let map: ValueMap
        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { map.compactMap { Key(stringValue: $0.name) } }

        func contains(_ key: Key) -> Bool { map[key.stringValue] != nil }

        private func value(_ key: Key) throws -> Value {
            guard let v = map[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key,
                    .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
            }
            return v
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if case .null = try value(key) { return true }
            return false
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(try value(key), codingPath + [key]) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            try decoder.string(try value(key), codingPath + [key])
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            try decoder.double(try value(key), codingPath + [key])
        }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
            Float(try decoder.double(try value(key), codingPath + [key]))
        }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try int(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try int(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try int(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try int(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try int(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try int(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try int(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try int(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try int(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try int(type, key) }

        private func int<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
            try decoder.integer(try value(key), type, codingPath + [key])
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if let special = type as? any DecodableWhenMissing.Type, map[key.stringValue] == nil || special is any SkippedWhenEncoding.Type {
                if let result = try special.whenMissing(decoder: decoder, codingPath: codingPath + [key]) as? T {
                    return result
                }
            }
            return try decoder.decode(type, from: try value(key), path: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder.child(try value(key), key: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder.child(try value(key), key: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            decoder.child(map["super"] ?? .null, key: NameKey("super"))
        }

        func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(map[key.stringValue] ?? .null, key: key) }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let decoder: FirestoreValueDecoder
        let items: [Value]
        var currentIndex = 0
        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        init(decoder: FirestoreValueDecoder, items: [Value]) {
            self.decoder = decoder
            self.items = items
        }

        private mutating func next(_ type: Any.Type) throws -> (Value, [any CodingKey]) {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    type, .init(codingPath: codingPath + [IndexKey(currentIndex)], debugDescription: "Unkeyed container is at end."))
            }
            defer { currentIndex += 1 }
            return (items[currentIndex], codingPath + [IndexKey(currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { return false }
            if case .null = items[currentIndex] {
                currentIndex += 1
                return true
            }
            return false
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool {
            let (v, p) = try next(type)
            return try decoder.bool(v, p)
        }
        mutating func decode(_ type: String.Type) throws -> String {
            let (v, p) = try next(type)
            return try decoder.string(v, p)
        }
        mutating func decode(_ type: Double.Type) throws -> Double {
            let (v, p) = try next(type)
            return try decoder.double(v, p)
        }
        mutating func decode(_ type: Int.Type) throws -> Int {
            let (v, p) = try next(type)
            return try decoder.integer(v, type, p)
        }
        mutating func decode(_ type: Int64.Type) throws -> Int64 {
            let (v, p) = try next(type)
            return try decoder.integer(v, type, p)
        }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (v, p) = try next(type)
            return try decoder.decode(type, from: v, path: p)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let (v, p) = try next([String: Any].self)
            return try FirestoreValueDecoder(value: v, codingPath: p, userInfo: decoder.userInfo, reference: decoder.reference)
                .container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (v, p) = try next([Any].self)
            return try FirestoreValueDecoder(value: v, codingPath: p, userInfo: decoder.userInfo, reference: decoder.reference)
                .unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let (v, p) = try next(Any.self)
            return FirestoreValueDecoder(value: v, codingPath: p, userInfo: decoder.userInfo, reference: decoder.reference)
        }
    }

    struct SingleContainer: SingleValueDecodingContainer {
        let decoder: FirestoreValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var v: Value { decoder.value }

        func decodeNil() -> Bool {
            if case .null = v { return true }
            return false
        }
        func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(v, codingPath) }
        func decode(_ type: String.Type) throws -> String { try decoder.string(v, codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try decoder.double(v, codingPath) }
        func decode(_ type: Float.Type) throws -> Float { Float(try decoder.double(v, codingPath)) }
        func decode(_ type: Int.Type) throws -> Int { try decoder.integer(v, type, codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(v, type, codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(v, type, codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(v, type, codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(v, type, codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(v, type, codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(v, type, codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(v, type, codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(v, type, codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(v, type, codingPath) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type, from: v, path: codingPath) }
    }
}
