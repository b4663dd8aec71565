import EmulatorModel
import EmulatorProtobuf

extension FirestoreGRPC {
    // MARK: Documents

    func getDocument(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> [UInt8] {
        var r = request
        var name = ""
        var mask: [FieldPath]?
        var consistency = ProtoDecoding.Consistency()
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); name = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); mask = try ProtoDecoding.mask(r.message())
            case 3: try r.expect(w, .lengthDelimited, f); consistency.selected.append(.transaction(try r.bytes()))
            case 5: try r.expect(w, .lengthDelimited, f); consistency.selected.append(.readTime(try ProtoValue.readMicroseconds(r.message())))
            default: try r.skip(w)
            }
        }
        let documentName: DocumentName
        if let plain = DocumentName.plainDocument(name) { documentName = plain } else { documentName = try DocumentName.document(name) }
        let database = DatabaseID(project: documentName.projectID, database: documentName.databaseID)
        if mask == nil {
            return try service.getDocumentEncoded(
                documentName, consistency: try consistency.value, caller: caller, cache: documentCache
            ) { d in Self.encode { Self.write(d, database: database, to: &$0) } }
        }
        let d = try service.getDocument(documentName, mask: mask, consistency: try consistency.value, caller: caller)
        return Self.encode { Self.write(d, database: database, to: &$0) }
    }

    func listDocuments(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> [UInt8] {
        var r = request
        var parent = ""
        var collectionID = ""
        var pageSize: Int?
        var pageToken: String?
        var orderBy = ""
        var mask: [FieldPath]?
        var showMissing = false
        var consistency = ProtoDecoding.Consistency()
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); parent = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); collectionID = try r.string()
            case 3: try r.expect(w, .varint, f); let n = try r.int32(); pageSize = n > 0 ? Int(n) : nil
            case 4: try r.expect(w, .lengthDelimited, f); let t = try r.string(); pageToken = t.isEmpty ? nil : t
            case 6: try r.expect(w, .lengthDelimited, f); orderBy = try r.string()
            case 7: try r.expect(w, .lengthDelimited, f); mask = try ProtoDecoding.mask(r.message())
            case 8: try r.expect(w, .lengthDelimited, f); consistency.selected.append(.transaction(try r.bytes()))
            case 10: try r.expect(w, .lengthDelimited, f); consistency.selected.append(.readTime(try ProtoValue.readMicroseconds(r.message())))
            case 12: try r.expect(w, .varint, f); showMissing = try r.bool()
            default: try r.skip(w)
            }
        }
        let p = try DocumentName.parent(parent)
        let database = DatabaseID(project: p.projectID, database: p.databaseID)
        let result = try service.listDocuments(
            database, parent: p.path, collectionID: collectionID, pageSize: pageSize, pageToken: pageToken,
            orderBy: try StructuredQuery.Order.list(parsing: orderBy), mask: mask, showMissing: showMissing, consistency: try consistency.value, caller: caller)
        return Self.encode { w in
            for d in result.documents {
                w.message(1) { m in
                    if result.missing.contains(d.path) {
                        m.string(1, database.documentName(d.path))
                    } else {
                        Self.write(d, database: database, to: &m)
                    }
                }
            }
            if let next = result.nextPageToken, !next.isEmpty { w.string(2, next) }
        }
    }

    func createDocument(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> [UInt8] {
        var r = request
        var parent = ""
        var collectionID = ""
        var documentID: String?
        var document: ProtoDocument?
        var mask: [FieldPath]?
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); parent = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); collectionID = try r.string()
            case 3: try r.expect(w, .lengthDelimited, f); documentID = try r.string()
            case 4: try r.expect(w, .lengthDelimited, f); document = try ProtoDocument(r.message())
            case 5: try r.expect(w, .lengthDelimited, f); mask = try ProtoDecoding.mask(r.message())
            default: try r.skip(w)
            }
        }
        let p = try DocumentName.parent(parent)
        let database = DatabaseID(project: p.projectID, database: p.databaseID)
        let d = try service.createDocument(
            database, parent: p.path, collectionID: collectionID, documentID: documentID, fields: document?.fields ?? ValueMap(),
            mask: mask, caller: caller)
        return Self.encode { Self.write(d, database: database, to: &$0) }
    }

    func updateDocument(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> [UInt8] {
        var r = request
        var document: ProtoDocument?
        var updateMask: [FieldPath]?
        var mask: [FieldPath]?
        var precondition = WritePrecondition.none
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); document = try ProtoDocument(r.message())
            case 2: try r.expect(w, .lengthDelimited, f); updateMask = try ProtoDecoding.mask(r.message())
            case 3: try r.expect(w, .lengthDelimited, f); mask = try ProtoDecoding.mask(r.message())
            case 4: try r.expect(w, .lengthDelimited, f); precondition = try ProtoDecoding.precondition(r.message())
            default: try r.skip(w)
            }
        }
        guard let document else { throw .invalidArgument("UpdateDocument requires a document.") }
        let name = try DocumentName.document(document.name)
        let d = try service.updateDocument(
            name, fields: document.fields, updateMask: updateMask, mask: mask, precondition: precondition, caller: caller)
        return Self.encode { Self.write(d, database: DatabaseID(project: name.projectID, database: name.databaseID), to: &$0) }
    }

    func deleteDocument(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> [UInt8] {
        var r = request
        var name = ""
        var precondition = WritePrecondition.none
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); name = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); precondition = try ProtoDecoding.precondition(r.message())
            default: try r.skip(w)
            }
        }
        try service.deleteDocument(try DocumentName.document(name), precondition: precondition, caller: caller)
        return []
    }

    func listCollectionIds(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> [UInt8] {
        var r = request
        var parent = ""
        var pageSize: Int?
        var pageToken: String?
        var readTime: Int64?
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); parent = try r.string()
            case 2: try r.expect(w, .varint, f); let n = try r.int32(); pageSize = n > 0 ? Int(n) : nil
            case 3: try r.expect(w, .lengthDelimited, f); let t = try r.string(); pageToken = t.isEmpty ? nil : t
            case 4: try r.expect(w, .lengthDelimited, f); readTime = try ProtoValue.readMicroseconds(r.message())
            default: try r.skip(w)
            }
        }
        let p = try DocumentName.parent(parent)
        let (ids, next) = try service.listCollectionIDs(
            DatabaseID(project: p.projectID, database: p.databaseID), parent: p.path, pageSize: pageSize, pageToken: pageToken,
            readTime: readTime, caller: caller)
        return Self.encode { w in
            for id in ids { w.string(1, id) }
            if let next, !next.isEmpty { w.string(2, next) }
        }
    }

    // MARK: Transactions and writes

    func beginTransaction(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> [UInt8] {
        var r = request
        var database = ""
        var options = TransactionOptions.readWrite(retrying: nil)
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); database = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); options = try ProtoDecoding.transactionOptions(r.message())
            default: try r.skip(w)
            }
        }
        let id = try service.beginTransaction(try ProtoDecoding.database(database), options: options)
        return Self.encode { $0.bytes(1, id) }
    }

    func rollback(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> [UInt8] {
        var r = request
        var database = ""
        var transaction: [UInt8] = []
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); database = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); transaction = try r.bytes()
            default: try r.skip(w)
            }
        }
        if transaction.isEmpty { throw .invalidArgument("Missing transaction.") }
        try service.rollback(try ProtoDecoding.database(database), transaction: transaction)
        return []
    }

    /// The database and writes of a CommitRequest or BatchWriteRequest (writes are field 2 in both).
    func databaseAndWrites(_ request: ProtoReader, transaction: inout [UInt8]?) throws(EmulatorError) -> (DatabaseID, [Write]) {
        var r = request
        var database = ""
        var writes: [Write] = []
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); database = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); writes.append(try ProtoDecoding.write(r.message()))
            case 3 where w == .lengthDelimited && transaction != nil: transaction = try r.bytes()
            default: try r.skip(w)
            }
        }
        return (try ProtoDecoding.database(database), writes)
    }

    func commit(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> [UInt8] {
        var transaction: [UInt8]? = []
        let (database, writes) = try databaseAndWrites(request, transaction: &transaction)
        let result = try service.commit(
            database, writes: writes, transaction: transaction?.isEmpty == false ? transaction : nil, caller: caller)
        return Self.encode { w in
            for r in result.writeResults { w.message(1) { Self.write(r, to: &$0) } }
            ProtoValue.writeTimestamp(2, microseconds: result.commitTime, to: &w)
        }
    }

    func batchWrite(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> [UInt8] {
        var none: [UInt8]?
        let (database, writes) = try databaseAndWrites(request, transaction: &none)
        let outcomes = try service.batchWrite(database, writes: writes, caller: caller)
        return Self.encode { w in
            for o in outcomes {
                w.message(1) { m in if case .success(let r) = o { Self.write(r, to: &m) } }
            }
            for o in outcomes {
                w.message(2) { m in
                    if case .failure(let e) = o {
                        m.int32(1, e.code.rawValue)
                        m.string(2, e.message)
                    }
                }
            }
        }
    }

    func partitionQuery(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> [UInt8] {
        var r = request
        var parent = ""
        var query: StructuredQuery?
        var partitionCount: Int64 = 0
        var pageToken: String?
        var pageSize: Int?
        var readTime: Int64?
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); parent = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); query = try ProtoDecoding.structuredQuery(r.message())
            case 3: try r.expect(w, .varint, f); partitionCount = try r.int64()
            case 4: try r.expect(w, .lengthDelimited, f); pageToken = try r.string()
            case 5: try r.expect(w, .varint, f); pageSize = Int(try r.int32())
            case 6: try r.expect(w, .lengthDelimited, f); readTime = try ProtoValue.readMicroseconds(r.message())
            default: try r.skip(w)
            }
        }
        let p = try DocumentName.parent(parent)
        let database = DatabaseID(project: p.projectID, database: p.databaseID)
        guard let query else { throw .invalidArgument("PartitionQuery requires a structured_query.") }
        let result = try service.partitionQuery(
            database, parent: p.path, query: query, partitionCount: partitionCount, pageToken: pageToken,
            pageSize: pageSize, readTime: readTime, caller: caller)
        return Self.encode { w in
            for path in result.cursors {
                w.message(1) { c in c.message(1) { ProtoValue.write(.reference(database.documentName(path)), to: &$0) } }
            }
            if let next = result.nextPageToken { w.string(2, next) }
        }
    }
}
