import EmulatorModel
public import Foundation

/// Types `@DocumentID` can wrap: `String` (the document id) or `DocumentReference`.
public protocol DocumentIDWrappable: Sendable {
    static func wrap(_ reference: DocumentReference) throws -> Self
}

extension String: DocumentIDWrappable {
    public static func wrap(_ reference: DocumentReference) throws -> String { reference.documentID }
}

extension DocumentReference: DocumentIDWrappable {
    public static func wrap(_ reference: DocumentReference) throws -> DocumentReference { reference }
}

/// The id of the document a value was read from. Never written as a field; filled in by
/// `data(as:)` / `getDocument(as:)` / `Firestore.Decoder().decode(_:from:in:)`.
///
/// ```swift
/// struct Book: Codable { @DocumentID var id: String?; var title: String }
/// ```
@propertyWrapper
public struct DocumentID<Value: DocumentIDWrappable & Codable>: Codable, SkippedWhenEncoding, DecodableWhenMissing {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        if let d = decoder as? FirestoreValueDecoder {
            self = try Self.whenMissing(decoder: d, codingPath: d.codingPath)
            return
        }
        throw FirestoreDecodingError.decodingIsNotSupported("DocumentID values can only be decoded with Firestore.Decoder")
    }

    public func encode(to encoder: any Encoder) throws {
        throw FirestoreEncodingError.encodingIsNotSupported("DocumentID values can only be encoded with Firestore.Encoder")
    }

    static func whenMissing(decoder: FirestoreValueDecoder, codingPath: [any CodingKey]) throws -> DocumentID<Value> {
        guard let reference = decoder.reference else {
            throw FirestoreDecodingError.decodingIsNotSupported(
                "Could not find DocumentReference for user info key: DocumentRefUserInfoKey. "
                    + "DocumentID values can only be decoded with Firestore.Decoder")
        }
        return DocumentID(wrappedValue: try Value.wrap(reference))
    }
}

extension DocumentID: Equatable where Value: Equatable {}
extension DocumentID: Hashable where Value: Hashable {}
extension DocumentID: Sendable {}

/// Types `@ServerTimestamp` can wrap.
public protocol ServerTimestampWrappable: Sendable {
    static func wrap(_ timestamp: Timestamp) throws -> Self
    static func unwrap(_ value: Self) throws -> Timestamp
}

extension Date: ServerTimestampWrappable {
    public static func wrap(_ timestamp: Timestamp) throws -> Date { timestamp.dateValue() }
    public static func unwrap(_ value: Date) throws -> Timestamp { Timestamp(date: value) }
}

extension Timestamp: ServerTimestampWrappable {
    public static func wrap(_ timestamp: Timestamp) throws -> Timestamp { timestamp }
    public static func unwrap(_ value: Timestamp) throws -> Timestamp { value }
}

/// A time the server fills in: nil when written becomes the commit time.
///
/// ```swift
/// struct Post: Codable { var text: String; @ServerTimestamp var createdAt: Date? }
/// ```
@propertyWrapper
public struct ServerTimestamp<Value: ServerTimestampWrappable & Codable>: Codable, DecodableWhenMissing {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            wrappedValue = nil
        } else {
            wrappedValue = try Value.wrap(try c.decode(Timestamp.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if let wrappedValue {
            var c = encoder.singleValueContainer()
            try c.encode(try Value.unwrap(wrappedValue))
        } else if let e = encoder as? FirestoreValueEncoder {
            e.node.content = .leaf(.sentinel(.serverTimestamp()))
        } else {
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        }
    }

    static func whenMissing(decoder: FirestoreValueDecoder, codingPath: [any CodingKey]) throws -> ServerTimestamp<Value> {
        ServerTimestamp(wrappedValue: nil)
    }
}

extension ServerTimestamp: Equatable where Value: Equatable {}
extension ServerTimestamp: Hashable where Value: Hashable {}

/// Writes `null` for nil instead of leaving the field out.
///
/// ```swift
/// struct Profile: Codable { @ExplicitNull var nickname: String? }
/// ```
@propertyWrapper
public struct ExplicitNull<Value> {
    public var wrappedValue: Value?
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
}

extension ExplicitNull: Equatable where Value: Equatable {}
extension ExplicitNull: Hashable where Value: Hashable {}
extension ExplicitNull: Sendable where Value: Sendable {}

extension ExplicitNull: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let wrappedValue { try c.encode(wrappedValue) } else { try c.encodeNil() }
    }
}

extension ExplicitNull: Decodable, DecodableWhenMissing where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        wrappedValue = c.decodeNil() ? nil : try c.decode(Value.self)
    }

    static func whenMissing(decoder: FirestoreValueDecoder, codingPath: [any CodingKey]) throws -> ExplicitNull<Value> {
        ExplicitNull(wrappedValue: nil)
    }
}
