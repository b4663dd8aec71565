import EmulatorModel
import Foundation

extension Firestore {
    /// Encodes `Encodable` values as Firestore documents: Date → timestamp, Data → bytes,
    /// URL → string, `GeoPoint`, `Timestamp`, `DocumentReference` and `FieldValue` kept as is;
    /// nil optionals left out (unless `@ExplicitNull`); NaN and infinities throw.
    ///
    /// ```swift
    /// let fields = try Firestore.Encoder().encode(book)   // ["title": "…", "numberOfPages": 816, …]
    /// ```
    public struct Encoder: Sendable {
        public init() {}

        /// The document's fields; the top level must be a keyed container (struct, class, dictionary).
        public func encode<T: Encodable>(_ value: T) throws -> [String: Any] {
            try encodeFields(value).mapValues { $0.toAny(firestore: nil) }
        }

        func encodeFields<T: Encodable>(_ value: T) throws -> [String: FieldData] {
            let node = EncodingNode()
            let encoder = FirestoreValueEncoder(codingPath: [], userInfo: [:], node: node)
            switch value {
            case is Date, is Timestamp, is Data, is URL, is GeoPoint, is DocumentReference, is FieldValue:
                throw EncodingError.invalidValue(
                    value, .init(codingPath: [], debugDescription: "Top-level \(T.self) is not allowed."))
            default: break
            }
            try value.encode(to: encoder)
            guard case .map(let m, _) = node.content else {
                throw EncodingError.invalidValue(
                    value, .init(codingPath: [], debugDescription: "Top-level \(T.self) is not allowed."))
            }
            var out: [String: FieldData] = [:]
            for (k, v) in m { out[k] = try v.finish(path: [NameKey(k)]) }
            return out
        }
    }

    /// Decodes Firestore documents into `Decodable` types; numbers must fit exactly,
    /// `@DocumentID` is filled from the reference given with `in:`.
    ///
    /// ```swift
    /// let book = try Firestore.Decoder().decode(Book.self, from: snapshot.data() ?? [:], in: snapshot.reference)
    /// ```
    public struct Decoder: Sendable {
        public init() {}

        public func decode<T: Decodable>(_ type: T.Type, from data: [String: Any], in reference: DocumentReference? = nil) throws -> T {
            let fields = try FieldData(any: data).plainValue()
            return try decode(type, value: fields, reference: reference)
        }

        func decode<T: Decodable>(_ type: T.Type, value: Value, reference: DocumentReference?) throws -> T {
            let decoder = FirestoreValueDecoder(value: value, codingPath: [], userInfo: [:], reference: reference)
            return try decoder.decode(type, from: value, path: [])
        }
    }
}
