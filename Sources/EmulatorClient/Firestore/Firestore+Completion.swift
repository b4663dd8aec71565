/// Completion-handler forms, as the guides use them from synchronous code. Encoding errors are
/// thrown at once; the write itself runs on a background thread and reports to `completion`.
extension DocumentReference {
    public func setData<T: Encodable>(
        from value: T, merge: Bool = false, encoder: Firestore.Encoder = .init(),
        completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) throws {
        let write = try WriteOperation.set(self, try encoder.encodeFields(value), merge: merge)
        let firestore = self.firestore
        BackgroundThread.run {
            do {
                _ = try firestore.commitNow([write])
                completion?(nil)
            } catch {
                completion?(error)
            }
        }
    }

    /// Reads the document; `completion` runs on a background thread.
    public func getDocument(completion: @escaping @Sendable (DocumentSnapshot?, (any Error)?) -> Void) {
        let ref = self
        BackgroundThread.run {
            do { completion(try ref.fetch(transaction: nil), nil) } catch { completion(nil, error) }
        }
    }
}

extension CollectionReference {
    /// Adds a document with a random id and returns its reference at once.
    @discardableResult
    public func addDocument<T: Encodable>(
        from value: T, encoder: Firestore.Encoder = .init(), completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) throws -> DocumentReference {
        let ref = document()
        let write = try WriteOperation.create(ref, try encoder.encodeFields(value))
        let firestore = self.firestore
        BackgroundThread.run {
            do {
                _ = try firestore.commitNow([write])
                completion?(nil)
            } catch {
                completion?(error)
            }
        }
        return ref
    }
}

extension Query {
    /// Runs the query; `completion` runs on a background thread.
    public func getDocuments(completion: @escaping @Sendable (QuerySnapshot?, (any Error)?) -> Void) {
        let query = self
        BackgroundThread.run {
            do { completion(QuerySnapshot(query: query, documents: try query.run(), previous: nil), nil) } catch {
                completion(nil, error)
            }
        }
    }
}
