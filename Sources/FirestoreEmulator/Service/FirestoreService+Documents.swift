package import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Synchronization

/// One element of a BatchGet answer: the document, or the name of a missing one.
package enum BatchGetItem: Sendable, Equatable {
    case found(StoredDocument)
    case missing(ResourcePath)
}

/// The answer to ListDocuments. Missing documents (`showMissing`) have no fields and zero times.
package struct ListDocumentsResult: Sendable, Equatable {
    package var documents: [StoredDocument]
    /// Paths of entries of `documents` that are missing documents (only with `showMissing`).
    package var missing: Set<ResourcePath>
    package var nextPageToken: String?
}

extension FirestoreService {
    /// GetDocument. NOT_FOUND when the document does not exist at the read time.
    package func getDocument(
        _ name: DocumentName, mask: [FieldPath]? = nil, consistency: ReadConsistency = .latest,
        caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> StoredDocument {
        let read = try readDocument(name, consistency: consistency, caller: caller, decoding: true)
        guard var document = read.document else { throw .internal("The document \(name.name) was read but not decoded.") }
        if let mask { document.fields = QueryEngine.project(document.fields, mask) }
        return document
    }

    /// GetDocument without a mask, answered in a transport's encoding: `encode` runs only when
    /// `cache` holds no answer made from the stored version read (same errors, rules and
    /// transaction reads as ``getDocument(_:mask:consistency:caller:)``).
    package func getDocumentEncoded(
        _ name: DocumentName, consistency: ReadConsistency = .latest, caller: FirestoreCaller = .owner,
        cache: EncodedDocumentCache, encode: (StoredDocument) -> [UInt8]
    ) throws(EmulatorError) -> [UInt8] {
        let read = try readDocument(name, consistency: consistency, caller: caller, decoding: false)
        return try cache.answer(name, read.entry, in: read.namespace) { () throws(EmulatorError) -> [UInt8] in
            if let document = read.document { return encode(document) }
            return encode(try DatabaseView<StorageSnapshot>.decode(read.entry, path: name.path))
        }
    }

    /// What both GetDocuments share: checks the name, resolves the read time (a pessimistic
    /// transaction takes its read lock), reads the stored entry, asks the rules, records the
    /// transaction's read, and throws NOT_FOUND when there is no document. `document` is the
    /// decoded entry when `decoding` asks for it or the rules needed it (not for the owner, not
    /// under rules that allow everything), else nil.
    private func readDocument(
        _ name: DocumentName, consistency: ReadConsistency, caller: FirestoreCaller, decoding: Bool
    ) throws(EmulatorError) -> (entry: StoredEntry, document: StoredDocument?, namespace: NamespaceID) {
        let database = DatabaseID(project: name.projectID, database: name.databaseID)
        guard name.path.isDocument else {
            throw .invalidArgument("Document name \"\(name.name)\" has odd number of segments.")
        }
        let resolved = try resolve(consistency, database)
        if let lock = resolved.lock { try lockForRead(database, [name.path], lock) }
        let (view, _) = try store.view(database, at: resolved.time)
        let entry = view.source.entry(view.namespace, DatabaseView<StorageSnapshot>.key(name.path))
        let document: StoredDocument?
        if let entry, decoding || (caller != .owner && !gate(database).allowsEverything) {
            document = try DatabaseView<StorageSnapshot>.decode(entry, path: name.path)
        } else {
            document = nil
        }
        try check(.get, database, name.path, caller, document, view)
        if let id = resolved.recordingTransaction { transactions.recordReads(id, [(name.path, entry?.updateTime)]) }
        guard let entry else { throw .notFound("Document \"\(name.name)\" not found.") }
        return (entry, document, view.namespace)
    }

    /// BatchGetDocuments: found or missing for each distinct name, in request order.
    package func batchGet(
        _ database: DatabaseID, names: [DocumentName], mask: [FieldPath]? = nil,
        consistency: ReadConsistency = .latest, caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> (transaction: [UInt8]?, items: [BatchGetItem], readTime: Int64) {
        for n in names {
            try Self.requireSameDatabase(n, database)
            guard n.path.isDocument else { throw .invalidArgument("Document name \"\(n.name)\" has odd number of segments.") }
        }
        let resolved = try resolve(consistency, database)
        if let lock = resolved.lock { try lockForRead(database, names.map(\.path), lock) }
        let (view, readTime) = try store.view(database, at: resolved.time)
        var seen = Set<ResourcePath>()
        var items: [BatchGetItem] = []
        var reads: [(ResourcePath, Int64?)] = []
        for n in names where seen.insert(n.path).inserted {
            let document = try view.document(n.path)
            try check(.get, database, n.path, caller, document, view)
            reads.append((n.path, document?.updateTime))
            if var document {
                if let mask { document.fields = QueryEngine.project(document.fields, mask) }
                items.append(.found(document))
            } else {
                items.append(.missing(n.path))
            }
        }
        if let id = resolved.recordingTransaction { transactions.recordReads(id, reads) }
        return (resolved.newTransaction, items, readTime)
    }

    /// ListDocuments: a page of one collection, ordered by `orderBy` (default by name), optionally
    /// with missing documents (which may not be combined with an order).
    package func listDocuments(
        _ database: DatabaseID, parent: ResourcePath, collectionID: String, pageSize: Int? = nil,
        pageToken: String? = nil, orderBy: [StructuredQuery.Order] = [], mask: [FieldPath]? = nil,
        showMissing: Bool = false, consistency: ReadConsistency = .latest, caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> ListDocumentsResult {
        guard parent.isEmpty || parent.isDocument else {
            throw .invalidArgument("The parent must be the documents root or a document.")
        }
        try ResourcePath.validateSegment(collectionID)
        if showMissing && !orderBy.isEmpty {
            throw .invalidArgument("Requests with show_missing may not specify where or order_by.")
        }
        if let pageSize, pageSize < 0 { throw .invalidArgument("page_size must not be negative.") }
        var query = StructuredQuery(from: [.init(collectionID: collectionID)], orderBy: orderBy)
        query.limit = pageSize.flatMap { $0 > 0 ? min($0, Int(Int32.max)) + 1 : nil }
        let engine = try QueryEngine(query, database: database)
        if let pageToken, !pageToken.isEmpty {
            guard let bytes = Base64.decode(pageToken, alphabet: nil), case .array(let values)? = try? ValueCodec.decodeValue(bytes),
                values.count == engine.order.count
            else { throw .invalidArgument("Invalid page token.") }
            query.startAt = .init(values: values, before: false)
        }
        let resolved = try resolve(consistency, database)
        let collection = parent.appending(collectionID)
        var missing = Set<ResourcePath>()
        var documents: [StoredDocument] = []
        var locked = Set<ResourcePath>()
        // A pessimistic transaction locks the page it returns: read, lock, read again until the
        // page holds only locked documents (a document that joins the listing later aborts the commit).
        let paged = try QueryEngine(query, database: database)
        for round in 0..<4 {
            let (view, _) = try store.view(database, at: resolved.time)
            var candidates: [StoredDocument]
            missing = []
            if useIndexes, let walk = try Self.nameOrderedCandidates(view, parent: parent, engine: paged, includeMissing: showMissing) {
                // A page in name order: only the page is decoded.
                (candidates, missing) = (walk.documents, walk.missing)
                documentsDecoded.add(walk.decoded, ordering: .relaxed)
            } else {
                candidates = try view.documents(in: collection)
                documentsDecoded.add(candidates.count, ordering: .relaxed)
                if showMissing {
                    for id in view.missingDocumentIDs(in: collection) {
                        let path = collection.appending(id)
                        missing.insert(path)
                        candidates.append(StoredDocument(path: path, fields: ValueMap(), createTime: 0, updateTime: 0))
                    }
                }
            }
            documents = paged.window(candidates).documents
            guard let lock = resolved.lock, round < 3 else { break }
            let fresh = documents.map(\.path).filter { !locked.contains($0) }
            if fresh.isEmpty && round > 0 { break }
            try lockForRead(database, fresh, lock)
            locked.formUnion(fresh)
            if fresh.isEmpty { break }
        }
        let (view, _) = try store.view(database, at: resolved.time)
        var next: String?
        if let pageSize, pageSize > 0, documents.count > pageSize {
            documents.removeLast()
            if let last = documents.last {
                let values = engine.order.map { last.value(at: $0.field, database: database) ?? .null }
                next = Base64.encode(ValueCodec.encode(.array(values)), alphabet: .urlSafe, padding: false)
            }
        }
        try check(.list, database, collection, caller, nil, view, query: query)
        if let id = resolved.recordingTransaction {
            transactions.recordQuery(id, .init(parent: parent, query: query, seen: Self.versions(documents.filter { !missing.contains($0.path) })))
        }
        if let mask {
            for i in documents.indices { documents[i].fields = QueryEngine.project(documents[i].fields, mask) }
        }
        return ListDocumentsResult(documents: documents, missing: missing, nextPageToken: next)
    }

    /// ListCollectionIds: ids of collections directly below `parent` holding a document at any depth, sorted.
    ///
    /// Security rules have no method for it and never grant it: with rules in force only the owner
    /// (`Bearer owner`, as the Admin SDKs and the Emulator UI send) may call it; everyone else gets
    /// PERMISSION_DENIED. Without rules (open "test mode") anyone may.
    package func listCollectionIDs(
        _ database: DatabaseID, parent: ResourcePath, pageSize: Int? = nil, pageToken: String? = nil,
        readTime: Int64? = nil, caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> (ids: [String], nextPageToken: String?) {
        guard parent.isEmpty || parent.isDocument else {
            throw .invalidArgument("The parent must be the documents root or a document.")
        }
        try gate(database).checkListCollectionIDs(caller)
        if let readTime { try validateReadTime(readTime, now: store.currentTime()) }
        let (view, _) = try store.view(database, at: readTime)
        var ids = view.collectionIDs(under: parent).sorted { ResourcePath.compareSegments($0, $1) < 0 }
        if let pageToken, !pageToken.isEmpty {
            guard let bytes = Base64.decode(pageToken, alphabet: nil) else { throw .invalidArgument("Invalid page token.") }
            let after = String(decoding: bytes, as: UTF8.self)
            ids = ids.filter { ResourcePath.compareSegments($0, after) > 0 }
        }
        if let pageSize, pageSize > 0, ids.count > pageSize {
            ids.removeLast(ids.count - pageSize)
            return (ids, ids.last.map { Base64.encode(Array($0.utf8), alphabet: .urlSafe, padding: false) })
        }
        return (ids, nil)
    }

    /// CreateDocument: fails with ALREADY_EXISTS when the document exists; an empty id gets an auto id.
    package func createDocument(
        _ database: DatabaseID, parent: ResourcePath, collectionID: String, documentID: String?, fields: ValueMap,
        mask: [FieldPath]? = nil, caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> StoredDocument {
        guard parent.isEmpty || parent.isDocument else {
            throw .invalidArgument("The parent must be the documents root or a document.")
        }
        try ResourcePath.validateSegment(collectionID)
        let id = documentID.flatMap { $0.isEmpty ? nil : $0 } ?? Self.autoID()
        try ResourcePath.validateSegment(id)
        let name = DocumentName(projectID: database.project, databaseID: database.database, path: parent.appending(collectionID).appending(id))
        let write = Write(.update(name, fields: fields, mask: nil), precondition: .exists(false))
        let result = try commit(database, writes: [write], caller: caller)
        let time = result.writeResults.first?.updateTime ?? result.commitTime
        var document = StoredDocument(path: name.path, fields: fields, createTime: time, updateTime: time)
        if let mask { document.fields = QueryEngine.project(document.fields, mask) }
        return document
    }

    /// UpdateDocument (PATCH): replace, or merge the `updateMask` paths; returns the new document.
    package func updateDocument(
        _ name: DocumentName, fields: ValueMap, updateMask: [FieldPath]? = nil, mask: [FieldPath]? = nil,
        precondition: WritePrecondition = .none, caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> StoredDocument {
        let database = DatabaseID(project: name.projectID, database: name.databaseID)
        let write = Write(.update(name, fields: fields, mask: updateMask), precondition: precondition)
        let (_, written) = try commit(database, writes: [write], transaction: nil, caller: caller, readBack: name.path)
        guard var document = written else { throw .internal("The updated document \(name.name) was not found.") }
        if let mask { document.fields = QueryEngine.project(document.fields, mask) }
        return document
    }

    /// DeleteDocument: deleting a missing document succeeds unless a precondition says otherwise.
    package func deleteDocument(
        _ name: DocumentName, precondition: WritePrecondition = .none, caller: FirestoreCaller = .owner
    ) throws(EmulatorError) {
        let database = DatabaseID(project: name.projectID, database: name.databaseID)
        _ = try commit(database, writes: [Write(.delete(name), precondition: precondition)], caller: caller)
    }

    private func check(
        _ method: FirestoreAccess.Method, _ database: DatabaseID, _ path: ResourcePath, _ caller: FirestoreCaller,
        _ document: StoredDocument?, _ view: DatabaseView<some DocumentSource>, query: StructuredQuery? = nil
    ) throws(EmulatorError) {
        let gate = gate(database)
        if caller == .owner {
            gate.noteOwner(method.rawValue, database, path)
            return
        }
        if gate.allowsEverything { return }
        try gate.check(
            FirestoreAccess(
                method: method, database: database, path: path, caller: caller, resource: document, query: query,
                time: store.currentTime()),
            lookup: { try? view.document($0) })
    }
}
