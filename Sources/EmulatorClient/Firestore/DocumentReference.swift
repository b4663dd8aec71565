import EmulatorModel
import EmulatorSupport

/// A document location: `collection/doc[/collection/doc…]`.
public struct DocumentReference: Sendable, Hashable, CustomStringConvertible {
    public let firestore: Firestore
    /// The slash-separated path below the database root.
    public let path: String

    init(firestore: Firestore, path: String) {
        self.firestore = firestore
        self.path = path
    }

    /// A reference from a full resource name of the same database, or nil.
    init?(name: String, firestore: Firestore) {
        let prefix = firestore.documentsName + "/"
        guard name.hasPrefix(prefix) else { return nil }
        self.init(firestore: firestore, path: String(name.dropFirst(prefix.count)))
    }

    public var documentID: String { path.split(separator: "/").last.map(String.init) ?? "" }
    public var parent: CollectionReference {
        CollectionReference(firestore: firestore, path: path.split(separator: "/").dropLast().joined(separator: "/"))
    }
    public func collection(_ collectionPath: String) -> CollectionReference {
        CollectionReference(firestore: firestore, path: path + "/" + Firestore.normalize(collectionPath))
    }
    public var description: String { "DocumentReference(\(path))" }

    var name: String { firestore.documentsName + "/" + path }

    // MARK: writes

    /// Replaces the document with `data` (creating it if needed).
    public func setData(_ data: [String: Any]) async throws {
        try await setData(data, merge: false)
    }

    /// With `merge`, writes only the given fields and keeps the others.
    public func setData(_ data: [String: Any], merge: Bool) async throws {
        let write = try WriteOperation.set(self, try FieldData.fields(data), merge: merge)
        try await firestore.commit([write])
    }

    /// Writes only `mergeFields` (dotted paths) from `data`, keeping every other field.
    public func setData(_ data: [String: Any], mergeFields: [String]) async throws {
        let write = try WriteOperation.set(self, try FieldData.fields(data), mergeFields: mergeFields.map(FieldPath.dotted))
        try await firestore.commit([write])
    }

    /// Encodes `value` with `encoder` and writes it (see `setData(_:merge:)`).
    public func setData<T: Encodable>(from value: T, merge: Bool = false, encoder: Firestore.Encoder = .init()) async throws {
        let write = try WriteOperation.set(self, try encoder.encodeFields(value), merge: merge)
        try await firestore.commit([write])
    }

    /// Updates the given fields (keys are dotted field paths); fails with NOT_FOUND if the document is missing.
    public func updateData(_ fields: [String: Any]) async throws {
        try await firestore.commit([try WriteOperation.update(self, fields)])
    }

    public func delete() async throws {
        try await firestore.commit([WriteOperation.delete(self)])
    }

    // MARK: reads

    /// Reads the document from the server.
    public func getDocument() async throws -> DocumentSnapshot {
        let ref = self
        return try await blocking { try ref.fetch(transaction: nil) }
    }

    /// Reads and decodes the document. A missing document throws `DecodingError.valueNotFound`
    /// unless `T` is Optional (then nil).
    public func getDocument<T: Decodable>(as type: T.Type, decoder: Firestore.Decoder = .init()) async throws -> T {
        try await getDocument().data(as: type, decoder: decoder)
    }

    /// The completion form of ``getDocument(as:decoder:)``; `completion` runs on a background thread.
    public func getDocument<T: Decodable & Sendable>(
        as type: T.Type, decoder: Firestore.Decoder = .init(),
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let ref = self
        BackgroundThread.run {
            completion(Result { try ref.fetch(transaction: nil).data(as: T.self, decoder: decoder) })
        }
    }

    func fetch(transaction: String?) throws(FirestoreError) -> DocumentSnapshot {
        var target = "/v1/" + Firestore.urlPath(name)
        if let transaction { target += "?transaction=" + PercentQuery.encode(transaction) }
        let json: JSONValue
        do {
            json = try firestore.call("GET", target)
        } catch {
            let missing = error.code == .notFound
            if missing { return DocumentSnapshot(reference: self, fields: nil) }
            throw error
        }
        return try DocumentSnapshot(json: json, reference: self)
    }
}

/// Percent-encoding for query parameter values.
enum PercentQuery {
    static func encode(_ s: String) -> String {
        var out = ""
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}
