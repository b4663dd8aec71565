import EmulatorModel
import Foundation

/// A node of the tree an encoding builds (reference types so nested containers can fill in later).
final class EncodingNode {
    enum Content {
        case empty
        case leaf(FieldData)
        case map([String: EncodingNode], order: [String])
        case array([EncodingNode])
    }

    var content: Content = .empty

    init() {}
    init(_ leaf: FieldData) { content = .leaf(leaf) }

    func finish(path: [any CodingKey]) throws -> FieldData {
        switch content {
        case .empty: return .map([:])
        case .leaf(let d): return d
        case .map(let m, _):
            var out: [String: FieldData] = [:]
            for (k, v) in m { out[k] = try v.finish(path: path) }
            return .map(out)
        case .array(let a):
            var out: [FieldData] = []
            for v in a { out.append(try v.finish(path: path)) }
            return .array(out)
        }
    }
}

/// Marks property wrappers that keyed containers leave out when encoding (`@DocumentID`).
protocol SkippedWhenEncoding {}

/// The `Encoder` behind `Firestore.Encoder`.
final class FirestoreValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    let node: EncodingNode

    init(codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any], node: EncodingNode) {
        self.codingPath = codingPath
        self.userInfo = userInfo
        self.node = node
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .map = node.content {} else { node.content = .map([:], order: []) }
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(encoder: self) }

    /// Encodes `value` into a new node, handling the types Firestore stores natively.
    func box<T: Encodable>(_ value: T, key: (any CodingKey)?) throws -> EncodingNode {
        let path = key.map { codingPath + [$0] } ?? codingPath
        switch value {
        case let v as Date: return EncodingNode(.value(.timestamp(Timestamp(date: v).model)))
        case let v as Timestamp: return EncodingNode(.value(.timestamp(v.model)))
        case let v as Data: return EncodingNode(.value(.bytes([UInt8](v))))
        case let v as URL: return EncodingNode(.value(.string(v.absoluteString)))
        case let v as GeoPoint: return EncodingNode(.value(.geoPoint(latitude: v.latitude, longitude: v.longitude)))
        case let v as DocumentReference: return EncodingNode(.value(.reference(v.name)))
        case let v as Decimal: return EncodingNode(.value(.double(NSDecimalNumber(decimal: v).doubleValue)))
        default: break
        }
        let child = EncodingNode()
        try value.encode(to: FirestoreValueEncoder(codingPath: path, userInfo: userInfo, node: child))
        return child
    }

    func double(_ d: Double, key: (any CodingKey)?) throws -> FieldData {
        guard d.isFinite else {
            let path = key.map { codingPath + [$0] } ?? codingPath
            throw EncodingError.invalidValue(
                d, EncodingError.Context(codingPath: path, debugDescription: "Unable to encode \(d) directly in Firestore."))
        }
        return .value(.double(d))
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: FirestoreValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        private func put(_ node: EncodingNode, _ key: Key) { put(node, name: key.stringValue) }

        private func put(_ node: EncodingNode, name: String) {
            if case .map(var m, var order) = encoder.node.content {
                if m[name] == nil { order.append(name) }
                m[name] = node
                encoder.node.content = .map(m, order: order)
            }
        }

        mutating func encodeNil(forKey key: Key) throws { put(EncodingNode(.value(.null)), key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { put(EncodingNode(.value(.boolean(value))), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { put(EncodingNode(.value(.string(value))), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { put(EncodingNode(try encoder.double(value, key: key)), key) }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            put(EncodingNode(try encoder.double(Double(value), key: key)), key)
        }
        mutating func encode(_ value: Int, forKey key: Key) throws { put(EncodingNode(.value(.integer(Int64(value)))), key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { put(EncodingNode(.value(.integer(Int64(value)))), key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { put(EncodingNode(.value(.integer(Int64(value)))), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { put(EncodingNode(.value(.integer(Int64(value)))), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { put(EncodingNode(.value(.integer(value))), key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { put(EncodingNode(try unsigned(UInt64(value), key)), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { put(EncodingNode(.value(.integer(Int64(value)))), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { put(EncodingNode(.value(.integer(Int64(value)))), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { put(EncodingNode(.value(.integer(Int64(value)))), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { put(EncodingNode(try unsigned(value, key)), key) }

        private func unsigned(_ v: UInt64, _ key: Key) throws -> FieldData {
            guard let i = Int64(exactly: v) else {
                throw EncodingError.invalidValue(
                    v, EncodingError.Context(codingPath: codingPath + [key], debugDescription: "\(v) is too large for Firestore."))
            }
            return .value(.integer(i))
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if value is any SkippedWhenEncoding { return }
            put(try encoder.box(value, key: key), key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let node = EncodingNode()
            put(node, key)
            return FirestoreValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfo, node: node)
                .container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let node = EncodingNode()
            put(node, key)
            return FirestoreValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfo, node: node)
                .unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let node = EncodingNode()
            put(node, name: "super")
            return FirestoreValueEncoder(codingPath: codingPath + [NameKey("super")], userInfo: encoder.userInfo, node: node)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let node = EncodingNode()
            put(node, key)
            return FirestoreValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfo, node: node)
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: FirestoreValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int {
            if case .array(let a) = encoder.node.content { return a.count }
            return 0
        }

        private func append(_ node: EncodingNode) {
            if case .array(var a) = encoder.node.content {
                a.append(node)
                encoder.node.content = .array(a)
            }
        }

        private var indexKey: IndexKey { IndexKey(count) }

        mutating func encodeNil() throws { append(EncodingNode(.value(.null))) }
        mutating func encode(_ value: Bool) throws { append(EncodingNode(.value(.boolean(value)))) }
        mutating func encode(_ value: String) throws { append(EncodingNode(.value(.string(value)))) }
        mutating func encode(_ value: Double) throws { append(EncodingNode(try encoder.double(value, key: indexKey))) }
        mutating func encode(_ value: Float) throws { append(EncodingNode(try encoder.double(Double(value), key: indexKey))) }
        mutating func encode(_ value: Int) throws { append(EncodingNode(.value(.integer(Int64(value))))) }
        mutating func encode(_ value: Int64) throws { append(EncodingNode(.value(.integer(value)))) }
        mutating func encode<T: Encodable>(_ value: T) throws { append(try encoder.box(value, key: indexKey)) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let node = EncodingNode()
            let key = indexKey
            append(node)
            return FirestoreValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfo, node: node)
                .container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let node = EncodingNode()
            let key = indexKey
            append(node)
            return FirestoreValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfo, node: node)
                .unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let node = EncodingNode()
            let key = indexKey
            append(node)
            return FirestoreValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfo, node: node)
        }
    }

    struct SingleContainer: SingleValueEncodingContainer {
        let encoder: FirestoreValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        private func set(_ d: FieldData) { encoder.node.content = .leaf(d) }

        mutating func encodeNil() throws { set(.value(.null)) }
        mutating func encode(_ value: Bool) throws { set(.value(.boolean(value))) }
        mutating func encode(_ value: String) throws { set(.value(.string(value))) }
        mutating func encode(_ value: Double) throws { set(try encoder.double(value, key: nil)) }
        mutating func encode(_ value: Float) throws { set(try encoder.double(Double(value), key: nil)) }
        mutating func encode(_ value: Int) throws { set(.value(.integer(Int64(value)))) }
        mutating func encode(_ value: Int8) throws { set(.value(.integer(Int64(value)))) }
        mutating func encode(_ value: Int16) throws { set(.value(.integer(Int64(value)))) }
        mutating func encode(_ value: Int32) throws { set(.value(.integer(Int64(value)))) }
        mutating func encode(_ value: Int64) throws { set(.value(.integer(value))) }
        mutating func encode(_ value: UInt8) throws { set(.value(.integer(Int64(value)))) }
        mutating func encode(_ value: UInt16) throws { set(.value(.integer(Int64(value)))) }
        mutating func encode(_ value: UInt32) throws { set(.value(.integer(Int64(value)))) }
        mutating func encode(_ value: UInt) throws {
            guard let i = Int64(exactly: value) else {
                throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "too large"))
            }
            set(.value(.integer(i)))
        }
        mutating func encode(_ value: UInt64) throws {
            guard let i = Int64(exactly: value) else {
                throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "too large"))
            }
            set(.value(.integer(i)))
        }
        mutating func encode<T: Encodable>(_ value: T) throws {
            let node = try encoder.box(value, key: nil)
            encoder.node.content = node.content
        }
    }
}

/// A coding key for array positions and synthesised names.
struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String
    init(_ index: Int) {
        intValue = index
        stringValue = "Index \(index)"
    }
    init?(intValue: Int) { self.init(intValue) }
    init?(stringValue: String) { return nil }
}

/// A coding key with a fixed name.
struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
