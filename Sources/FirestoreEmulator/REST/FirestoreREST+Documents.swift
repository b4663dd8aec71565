import EmulatorHTTP
import EmulatorModel
import EmulatorSupport

extension FirestoreREST {
    /// The consistency selector of GET requests, from query parameters.
    private static let queryConsistency = RESTMessage("GetDocumentRequest", "transaction", "readTime")

    /// `mask.fieldPaths` repeated query parameters; nil when absent.
    static func mask(_ params: [(name: String, value: String)], _ name: String) throws(EmulatorError) -> [FieldPath]? {
        var out: [FieldPath]?
        for p in params where p.name == name {
            if out == nil { out = [] }
            out?.append(try FieldPath(parsing: p.value))
        }
        return out
    }

    static func param(_ params: [(name: String, value: String)], _ name: String) -> String? {
        params.first { $0.name == name }?.value
    }

    static func consistency(_ params: [(name: String, value: String)]) throws(EmulatorError) -> ReadConsistency {
        if params.isEmpty { return .latest }
        var members: [JSONMember] = []
        if let t = param(params, "transaction") {
            // A `+` of base64 sent unescaped in a query string arrives as a space.
            members.append(JSONMember("transaction", .string(String(t.map { $0 == " " ? "+" : $0 }))))
        }
        if let t = param(params, "readTime") { members.append(JSONMember("readTime", .string(t))) }
        return try RESTDecoding.consistency(try JSONObject(.object(members), context: "", message: queryConsistency))
    }

    static func precondition(_ params: [(name: String, value: String)]) throws(EmulatorError) -> WritePrecondition {
        if let e = param(params, "currentDocument.exists") {
            guard e == "true" || e == "false" else { throw .invalidArgument("Invalid value for currentDocument.exists: \"\(e)\".") }
            return .exists(e == "true")
        }
        if let t = param(params, "currentDocument.updateTime") {
            do { return .updateTime(try Timestamp(rfc3339: t).microseconds) } catch {
                throw .invalidArgument("Invalid value for currentDocument.updateTime: \"\(t)\".")
            }
        }
        return .none
    }

    func getDocument(_ path: RESTPath, _ request: HTTPRequest, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        let params = Self.parameters(request)
        let mask = try Self.mask(params, "mask.fieldPaths")
        let consistency = try Self.consistency(params)
        let database = path.database
        if mask == nil {
            return Self.ok(
                try service.getDocumentEncoded(path.name, consistency: consistency, caller: caller, cache: documentCache) {
                    RESTEncoding.document($0, database: database)
                })
        }
        let d = try service.getDocument(path.name, mask: mask, consistency: consistency, caller: caller)
        return Self.ok(RESTEncoding.document(d, database: database))
    }

    func listDocuments(_ path: RESTPath, _ request: HTTPRequest, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        let params = Self.parameters(request)
        guard let parent = path.path.parent, let collectionID = path.path.lastSegment else {
            throw .invalidArgument("A collection id is required to list documents.")
        }
        var pageSize: Int?
        if let s = Self.param(params, "pageSize") {
            guard let n = Int(s) else { throw .invalidArgument("Invalid value for pageSize: \"\(s)\".") }
            pageSize = n
        }
        let orderBy = try StructuredQuery.Order.list(parsing: Self.param(params, "orderBy") ?? "")
        let showMissing = Self.param(params, "showMissing") == "true"
        let result = try service.listDocuments(
            path.database, parent: parent, collectionID: collectionID, pageSize: pageSize,
            pageToken: Self.param(params, "pageToken"), orderBy: orderBy, mask: try Self.mask(params, "mask.fieldPaths"),
            showMissing: showMissing, consistency: try Self.consistency(params), caller: caller)
        var w = JSONWriter()
        w.beginObject()
        if !result.documents.isEmpty {
            w.appendKey("documents")
            w.beginArray()
            for d in result.documents {
                RESTEncoding.writeDocument(d, database: path.database, to: &w, missing: result.missing.contains(d.path))
            }
            w.endArray()
        }
        if let next = result.nextPageToken {
            w.appendKey("nextPageToken")
            w.appendString(next)
        }
        w.endObject()
        return Self.ok(w.bytes)
    }

    func createDocument(_ path: RESTPath, _ request: HTTPRequest, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        let params = Self.parameters(request)
        let fields: ValueMap
        if let fast = FastWriteDecoder.documentFields(request.body) {
            fields = fast  // `{"fields":{…}}` in one pass, as for patch
        } else {
            let body = try Self.body(request, .document, context: "document")
            if body.has("name") { throw .invalidArgument("A document to create must not have a name; use documentId.") }
            fields = try RESTDecoding.document(body).fields
        }
        guard let parent = path.path.parent, let collectionID = path.path.lastSegment else {
            throw .invalidArgument("A collection id is required to create a document.")
        }
        let d = try service.createDocument(
            path.database, parent: parent, collectionID: collectionID, documentID: Self.param(params, "documentId"),
            fields: fields, mask: try Self.mask(params, "mask.fieldPaths"), caller: caller)
        return Self.ok(RESTEncoding.document(d, database: path.database, capacity: Self.answerCapacity(request, path)))
    }

    func patchDocument(_ path: RESTPath, _ request: HTTPRequest, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        let params = Self.parameters(request)
        let name: String?
        let fields: ValueMap
        var spans: [FastWriteDecoder.FieldSpan]?
        if let fast = FastWriteDecoder.documentFieldsAndSpans(request.body) {
            // `{"fields":{…}}` in one pass; anything else (and every error) takes the general decoder.
            (name, fields, spans) = (nil, fast.fields, fast.spans)
        } else {
            (name, fields) = try RESTDecoding.document(try Self.body(request, .document, context: "document"))
        }
        if let name, !name.utf8.elementsEqual(path.name.name.utf8) {
            guard let n = try? DocumentName(parsing: name), n == path.name else {
                throw .invalidArgument("The document name in the body \"\(name)\" does not match the request path.")
            }
        }
        let updateMask = try Self.mask(params, "updateMask.fieldPaths")
        let mask = try Self.mask(params, "mask.fieldPaths")
        let d = try service.updateDocument(
            path.name, fields: fields, updateMask: updateMask, mask: mask, precondition: try Self.precondition(params),
            caller: caller)
        // Without masks the document now holds exactly the body's fields, so a body that spelt
        // them as the answer does lends the answer its bytes. The answer names the document the
        // request named (`d` was read back at `path.name`).
        let copied = updateMask == nil && mask == nil ? spans.map { RESTEncoding.SpelledFields(body: request.body, spans: $0) } : nil
        let spelledName = path.isPlain ? RESTPath.spelledName(request.rawPath) : nil
        return Self.ok(
            RESTEncoding.document(
                d, database: path.database, capacity: Self.answerCapacity(request, path), spelledName: spelledName,
                spelledFields: copied))
    }

    /// Room for the JSON answer to a write of `request`'s body: the fields come back about as
    /// they were sent, plus the name and two timestamps.
    static func answerCapacity(_ request: HTTPRequest, _ path: RESTPath) -> Int {
        max(1024, request.body.count + path.path.segments.reduce(256) { $0 + $1.utf8.count + 1 })
    }

    func deleteDocument(_ path: RESTPath, _ request: HTTPRequest, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        try service.deleteDocument(path.name, precondition: try Self.precondition(Self.parameters(request)), caller: caller)
        return Self.ok(Array("{}".utf8))
    }

    func listCollectionIds(_ path: RESTPath, _ body: JSONObject, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        let pageSize = try body.int("pageSize").map { Int(clamping: $0) }
        let (ids, next) = try service.listCollectionIDs(
            path.database, parent: path.path, pageSize: pageSize, pageToken: try body.string("pageToken"),
            readTime: try body.timestamp("readTime"), caller: caller)
        var w = JSONWriter()
        w.beginObject()
        if !ids.isEmpty {
            w.appendKey("collectionIds")
            w.beginArray()
            for id in ids { w.appendString(id) }
            w.endArray()
        }
        if let next {
            w.appendKey("nextPageToken")
            w.appendString(next)
        }
        w.endObject()
        return Self.ok(w.bytes)
    }

    func partitionQuery(_ path: RESTPath, _ body: JSONObject, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        guard let structured = try body.object("structuredQuery", .structuredQuery) else {
            throw .invalidArgument("PartitionQuery requires a structured_query.")
        }
        let result = try service.partitionQuery(
            path.database, parent: path.path, query: try RESTDecoding.structuredQuery(structured),
            partitionCount: try body.int("partitionCount", type: "TYPE_INT64") ?? 0, pageToken: try body.string("pageToken"),
            pageSize: try body.int("pageSize").map { Int(clamping: $0) }, readTime: try body.timestamp("readTime"), caller: caller)
        var w = JSONWriter()
        w.beginObject()
        if !result.cursors.isEmpty {
            w.appendKey("partitions")
            w.beginArray()
            for cursor in result.cursors {
                w.beginObject()
                w.appendKey("values")
                w.beginArray()
                w.beginObject()
                w.appendKey("referenceValue")
                w.appendString(path.database.documentName(cursor))
                w.endObject()
                w.endArray()
                w.endObject()
            }
            w.endArray()
        }
        if let next = result.nextPageToken {
            w.appendKey("nextPageToken")
            w.appendString(next)
        }
        w.endObject()
        return Self.ok(w.bytes)
    }
}
