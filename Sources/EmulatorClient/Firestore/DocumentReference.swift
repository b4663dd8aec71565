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

    // MARK: reads

    /// Reads the document from the server.
    public func getDocument() async throws -> DocumentSnapshot {
        let ref = self
        return try await blocking { try ref.fetchAfterWrites() }
    }

    /// Reads and decodes the document. A missing document throws `DecodingError.valueNotFound`
    /// unless `T` is Optional (then nil).
    public func getDocument<T: Decodable>(as type: T.Type, decoder: Firestore.Decoder = .init()) async throws -> T {
        try await getDocument().data(as: type, decoder: decoder)
    }

    /// The completion form of ``getDocument(as:decoder:)``; `completion` runs on the instance's
    /// callback queue. A missing document fails with `DecodingError.valueNotFound` unless `T` is Optional.
    public func getDocument<T: Decodable>(
        as type: T.Type, decoder: Firestore.Decoder = .init(),
        completion: @escaping (Result<T, any Error>) -> Void
    ) {
        let ref = self
        let finish = UserCallback { (result: Result<DocumentSnapshot, any Error>) in
            completion(result.flatMap { snapshot in Result { try snapshot.data(as: T.self, decoder: decoder) } })
        }
        BackgroundThread.run {
            let result: Result<DocumentSnapshot, any Error> = Result { try ref.fetchAfterWrites() }
            ref.firestore.callbackQueue.deliver { finish.call(result) }
        }
    }

    /// Reads the document; `completion` runs on the instance's callback queue with the snapshot or the error.
    public func getDocument(completion: @escaping (DocumentSnapshot?, (any Error)?) -> Void) {
        let ref = self
        let callback = UserCallback(completion)
        BackgroundThread.run {
            let result = Result { try ref.fetchAfterWrites() }
            ref.firestore.callbackQueue.deliver {
                switch result {
                case .success(let snapshot): callback.call(snapshot, nil)
                case .failure(let error): callback.call(nil, error)
                }
            }
        }
    }

    /// Reads after the writes this instance queued before.
    func fetchAfterWrites() throws(FirestoreError) -> DocumentSnapshot {
        firestore.writeQueue.waitForEarlierWork()
        return try fetch(transaction: nil)
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
