import EmulatorModel
import EmulatorSupport

/// ProtoJSON `ListenRequest` decoding and `ListenResponse` encoding (the WebChannel wire).
enum ListenJSON {
    static let listenRequest = RESTMessage("ListenRequest", "database", "addTarget", "removeTarget", "labels")
    static let target = RESTMessage("Target", "query", "documents", "resumeToken", "readTime", "targetId", "once", "expectedCount")
    static let queryTarget = RESTMessage("Target.QueryTarget", "parent", "structuredQuery")
    static let documentsTarget = RESTMessage("Target.DocumentsTarget", "documents")

    static func request(_ bytes: [UInt8]) throws(EmulatorError) -> ListenRequest {
        let o = try FirestoreWebChannel.object(bytes, listenRequest)
        var request = ListenRequest(database: try o.string("database") ?? "")
        if let t = try o.object("addTarget", target) { request.addTarget = try Self.target(t) }
        if let id = try o.int("removeTarget") { request.removeTarget = Int32(truncatingIfNeeded: id) }
        return request
    }

    static func target(_ o: JSONObject) throws(EmulatorError) -> ListenTarget {
        let kind: ListenTarget.Kind
        if let q = try o.object("query", queryTarget) {
            guard let sq = try q.object("structuredQuery", .structuredQuery) else {
                throw .invalidArgument("A query target must have a structured_query.")
            }
            kind = .query(parent: try DocumentName.parent(q.string("parent") ?? ""), try RESTDecoding.structuredQuery(sq))
        } else if let d = try o.object("documents", documentsTarget) {
            var names: [DocumentName] = []
            for v in try d.array("documents") {
                guard case .string(let name) = v else { throw .invalidArgument("Invalid value at 'add_target.documents.documents' (TYPE_STRING).") }
                names.append(try DocumentName.document(name))
            }
            kind = .documents(names)
        } else {
            throw .invalidArgument("A target must set query or documents.")
        }
        var resume: ListenTarget.Resume?
        if let token = try o.bytes("resumeToken"), !token.isEmpty { resume = .token(token) }
        if let time = try o.timestamp("readTime") { resume = .readTime(time) }
        let id = try o.int("targetId") ?? 0
        guard let id32 = Int32(exactly: id) else { throw .invalidArgument("Invalid target_id \(id).") }
        return ListenTarget(id: id32, kind: kind, once: try o.bool("once") ?? false, resume: resume)
    }

    static func encode(_ event: ListenEvent) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        switch event {
        case .targetChange(let type, let targets, let readTime, let resumeToken, let cause):
            w.appendKey("targetChange")
            w.beginObject()
            if type != .noChange {
                w.appendKey("targetChangeType")
                w.appendString(Self.name(type))
            }
            if !targets.isEmpty { ids("targetIds", targets, &w) }
            if let cause {
                w.appendKey("cause")
                RESTEncoding.writeStatus(cause, to: &w)
            }
            if let resumeToken {
                w.appendKey("resumeToken")
                w.appendString(Base64.encode(resumeToken))
            }
            if let readTime {
                w.appendKey("readTime")
                w.appendString(RESTEncoding.timestamp(readTime))
            }
            w.endObject()
        case .documentChange(let d, let database, let targets, let removed):
            w.appendKey("documentChange")
            w.beginObject()
            w.appendKey("document")
            RESTEncoding.writeDocument(d.document, database: database, to: &w)
            ids("targetIds", targets, &w)
            ids("removedTargetIds", removed, &w)
            w.endObject()
        case .documentDelete(let name, let removed, let readTime), .documentRemove(let name, let removed, let readTime):
            if case .documentDelete = event { w.appendKey("documentDelete") } else { w.appendKey("documentRemove") }
            w.beginObject()
            w.appendKey("document")
            w.appendString(name)
            ids("removedTargetIds", removed, &w)
            w.appendKey("readTime")
            w.appendString(RESTEncoding.timestamp(readTime))
            w.endObject()
        case .existenceFilter(let target, let count):
            // ProtoJSON leaves zero values out.
            w.appendKey("filter")
            w.beginObject()
            if target != 0 {
                w.appendKey("targetId")
                w.appendInt(Int(target))
            }
            if count != 0 {
                w.appendKey("count")
                w.appendInt(Int(count))
            }
            w.endObject()
        }
        w.endObject()
        return w.bytes
    }

    /// A repeated id field; empty ones are left out, as ProtoJSON does.
    private static func ids(_ key: String, _ ids: [Int32], _ w: inout JSONWriter) {
        guard !ids.isEmpty else { return }
        w.appendKey(key)
        w.beginArray()
        for id in ids { w.appendInt(Int(id)) }
        w.endArray()
    }

    static func name(_ type: ListenEvent.ChangeType) -> String {
        switch type {
        case .noChange: "NO_CHANGE"
        case .add: "ADD"
        case .remove: "REMOVE"
        case .current: "CURRENT"
        case .reset: "RESET"
        }
    }
}

/// ProtoJSON `WriteRequest` decoding and `WriteResponse` encoding (the WebChannel wire).
enum WriteJSON {
    static let writeRequest = RESTMessage("WriteRequest", "database", "streamId", "writes", "streamToken", "labels")

    static func request(_ bytes: [UInt8]) throws(EmulatorError) -> WriteRequest {
        let o = try FirestoreWebChannel.object(bytes, writeRequest)
        var writes: [Write] = []
        for w in try o.objects("writes", .write) { writes.append(try RESTDecoding.write(w)) }
        return WriteRequest(
            database: try o.string("database") ?? "", writes: writes, hasToken: !(try o.bytes("streamToken") ?? []).isEmpty)
    }

    static func encode(_ event: WriteEvent) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        switch event {
        case .handshake(let streamID, let token):
            w.appendKey("streamId")
            w.appendString(streamID)
            w.appendKey("streamToken")
            w.appendString(Base64.encode(token))
        case .committed(let token, let results, let commitTime):
            w.appendKey("streamToken")
            w.appendString(Base64.encode(token))
            if !results.isEmpty {
                w.appendKey("writeResults")
                RESTEncoding.writeResults(results, to: &w)
            }
            if let commitTime {
                w.appendKey("commitTime")
                w.appendString(RESTEncoding.timestamp(commitTime))
            }
        }
        w.endObject()
        return w.bytes
    }
}
