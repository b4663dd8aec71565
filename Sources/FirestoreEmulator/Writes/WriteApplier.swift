import EmulatorModel
import EmulatorStorage
import EmulatorSupport

/// Applies decoded writes inside a commit: preconditions, update masks, transforms, limits.
enum WriteApplier {
    static let maxWritesPerCommit = 500
    static let maxTransformsPerDocument = 500
    /// Documents may sit at most 100 collections deep (`c/d` is depth 1).
    static let maxDocumentDepth = 100

    /// Validates what can be checked without reading: names, mask paths, transform operands,
    /// document limits of the written fields. Returns nil when `write` is to be applied as it is,
    /// else the write with its Decimal128 values in their canonical spelling.
    @discardableResult
    static func validate(_ write: Write, database: DatabaseID) throws(EmulatorError) -> Write? {
        let name = write.name
        guard utf8Equal(name.projectID, database.project), utf8Equal(name.databaseID, database.database)
        else {
            throw .invalidArgument("Document name \"\(name.name)\" is not in database \"\(database.name)\".")
        }
        guard name.path.isDocument else {
            throw .invalidArgument("Document name \"\(name.name)\" has odd number of segments.")
        }
        if name.path.count / 2 > maxDocumentDepth {
            throw .invalidArgument(
                "Document name \"\(name.name)\" is nested too deeply: at most \(maxDocumentDepth - 1) levels of subcollections are allowed.")
        }
        if write.transforms.count > maxTransformsPerDocument {
            throw .invalidArgument("A document cannot have more than \(maxTransformsPerDocument) field transforms.")
        }
        for t in write.transforms { try t.validate() }
        if case .update(_, let fields, let mask) = write.operation {
            for path in mask ?? [] {
                if path.isDocumentID { throw .invalidArgument("Cannot update the reserved field __name__.") }
                for s in path.segments { try DocumentLimits.validateFieldName(s) }
            }
            if try DocumentLimits.validate(name, fields: fields) {
                var canonical = write
                canonical.operation = .update(name, fields: BSONValidation.canonicalized(fields), mask: mask)
                return canonical
            }
        }
        return nil
    }

    static func checkPrecondition(
        _ precondition: WritePrecondition, _ current: StoredDocument?, name: DocumentName, commitTime: Int64
    ) throws(EmulatorError) {
        switch precondition {
        case .none: return
        case .exists(true):
            if current == nil { throw .notFound("No document to update: \(name.name)") }
        case .exists(false):
            if current != nil { throw .alreadyExists("Document already exists: \(name.name)") }
        case .updateTime(let t):
            if t > commitTime {
                throw .invalidArgument("The update time precondition \(Timestamp(microseconds: t).rfc3339) of \(name.name) is in the future.")
            }
            guard let current else {
                throw .failedPrecondition("The document \(name.name) does not exist (update time precondition failed).")
            }
            if current.updateTime != t {
                throw .failedPrecondition(
                    "The update time precondition of \(name.name) failed: the document was last updated at \(Timestamp(microseconds: current.updateTime).rfc3339).")
            }
        }
    }

    /// Asked with the method (nil: a create or an update, the document was not looked up), the
    /// document before and the fields after.
    typealias Authorize = (FirestoreAccess.Method?, StoredDocument?, ValueMap?) throws(EmulatorError) -> Void

    /// Applies one write to the buffer and returns its result. `authorize` (rules) is asked with
    /// the method, the document before and the fields after, before anything is written.
    /// `authorizeReadsFields: false` (rules that never read `resource`) lets a plain set pass
    /// the stored document to `authorize` without decoding its fields;
    /// `authorizeWithoutExistence: true` lets it skip the lookup and pass a nil method.
    static func apply(
        _ write: Write, to buffer: inout CommitBuffer, authorizeReadsFields: Bool = true,
        authorizeWithoutExistence: Bool = false, authorize: Authorize?
    ) throws(EmulatorError) -> WriteResult {
        let name = write.name
        let path = name.path
        // A plain set needs nothing from the stored document: skip reading (and decoding) it.
        if authorize == nil, write.precondition == .none, write.transforms.isEmpty,
            case .update(_, let input, nil) = write.operation
        {
            return WriteResult(updateTime: try buffer.set(path, fields: input))
        }
        if let authorize, write.precondition == .none, write.transforms.isEmpty, case .update(_, let input, nil) = write.operation {
            // A plain set under rules: read the stored document once for `resource` and
            // create-or-update, and reuse its storage key for the write.
            let key = DatabaseView<CommitBuilder>.key(path)
            if authorizeWithoutExistence {
                try authorize(nil, nil, input)
                return WriteResult(updateTime: try buffer.set(path, key: key, fields: input))
            }
            let current = try buffer.document(path, key: key, decodingFields: authorizeReadsFields)
            try authorize(current == nil ? .create : .update, current, input)
            return WriteResult(updateTime: try buffer.set(path, key: key, fields: input))
        }
        let current = try buffer.document(path)
        try checkPrecondition(write.precondition, current, name: name, commitTime: buffer.commitTime)
        var fields: ValueMap
        var revalidate = !write.transforms.isEmpty
        switch write.operation {
        case .verify:
            // A verify only checks its precondition: the read it guards was checked by rules already.
            return WriteResult(updateTime: nil)
        case .delete:
            try authorize?(.delete, current, nil)
            try buffer.delete(path)
            return WriteResult(updateTime: nil)
        case .transform:
            fields = current?.fields ?? ValueMap()
        case .update(_, let input, nil):
            fields = input
        case .update(_, let input, let mask?):
            fields = current?.fields ?? ValueMap()
            revalidate = true
            for p in mask {
                if let v = input.value(at: p) { fields.setValue(v, at: p) } else { fields.removeValue(at: p) }
            }
        }
        var results: [Value] = []
        results.reserveCapacity(write.transforms.count)
        for t in write.transforms {
            let v = t.apply(to: fields.value(at: t.field), commitTime: buffer.commitTime)
            fields.setValue(v, at: t.field)
            results.append(t.result(v))
        }
        if revalidate { try DocumentLimits.validate(name, fields: fields) }
        try authorize?(current == nil ? .create : .update, current, fields)
        let updateTime = try buffer.set(path, fields: fields)
        return WriteResult(updateTime: updateTime, transformResults: results)
    }
}
