import EmulatorModel
import EmulatorSupport

/// Writes the proto3 JSON of Firestore responses.
enum RESTEncoding {
    static func timestamp(_ micros: Int64) -> String { Timestamp(microseconds: micros).rfc3339 }

    /// `{"name", "fields"?, "createTime", "updateTime"}` (fields omitted when empty).
    /// `spelledName`: the document's name as its request spelt it (``RESTPath/spelledName(_:)``),
    /// copied instead of assembled.
    static func writeDocument(
        _ d: StoredDocument, database: DatabaseID, to w: inout JSONWriter, missing: Bool = false,
        spelledName: Substring? = nil, spelledFields: SpelledFields? = nil
    ) {
        w.beginObject()
        w.appendPlainKey("name")
        if let spelledName {
            writeName(spelledName, to: &w)
        } else {
            writeName(d.path, database: database, to: &w)
        }
        if !missing {
            if let spelledFields {
                w.appendPlainKey("fields")
                spelledFields.write(to: &w)
            } else if !d.fields.isEmpty {
                w.appendPlainKey("fields")
                d.fields.appendFirestoreFieldsJSON(to: &w)
            }
            w.appendPlainKey("createTime")
            writeTimestamp(d.createTime, to: &w)
            w.appendPlainKey("updateTime")
            writeTimestamp(d.updateTime, to: &w)
        }
        w.endObject()
    }

    /// A timestamp string, written straight into the JSON (RFC 3339 needs no escaping).
    static func writeTimestamp(_ micros: Int64, to w: inout JSONWriter) {
        w.appendUnescapedString { Timestamp(microseconds: micros).appendRFC3339(to: &$0) }
    }

    /// `database.documentName(path)` as a JSON string, escaped part by part straight into the
    /// writer's buffer (no name assembled first).
    static func writeName(_ path: ResourcePath, database: DatabaseID, to w: inout JSONWriter) {
        w.appendUnescapedString { bytes in
            appendLiteral("projects/", to: &bytes)
            JSONWriter.appendEscapedContents(database.project, to: &bytes)
            appendLiteral("/databases/", to: &bytes)
            JSONWriter.appendEscapedContents(database.database, to: &bytes)
            appendLiteral("/documents", to: &bytes)
            for segment in path.segments {
                bytes.append(0x2F)
                JSONWriter.appendEscapedContents(segment, to: &bytes)
            }
        }
    }

    /// A whole name as a JSON string, escaped in one run (JSON escapes byte by byte, so this
    /// reads as ``writeName(_:database:to:)`` does for the same name).
    static func writeName(_ name: Substring, to w: inout JSONWriter) {
        w.appendUnescapedString { bytes in
            if name.utf8.withContiguousStorageIfAvailable({ JSONWriter.appendEscapedContents($0, to: &bytes) }) == nil {
                JSONWriter.appendEscapedContents(String(name), to: &bytes)
            }
        }
    }

    /// Copies a literal's bytes (a `String`'s UTF-8 view would be appended byte by byte).
    @inline(__always)
    private static func appendLiteral(_ text: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `capacity`: what to reserve, for a caller that knows the size roughly (a write's answer
    /// is about its request body plus the name and the times).
    /// `spelledFields`: the document's fields as a write's body spelt them, which is how the
    /// answer writes them (``FastWriteDecoder/documentFieldsAndSpans(_:)``), copied.
    static func document(
        _ d: StoredDocument, database: DatabaseID, capacity: Int = 1024, spelledName: Substring? = nil,
        spelledFields: SpelledFields? = nil
    ) -> [UInt8] {
        var w = JSONWriter()
        // One allocation for a typical document instead of a doubling series.
        w.bytes.reserveCapacity(capacity)
        writeDocument(d, database: database, to: &w, spelledName: spelledName, spelledFields: spelledFields)
        return w.bytes
    }

    /// A document's fields as the body of the write that stored them spelt them, each member
    /// (`"name":{…}`) exactly as ``Value/appendFirestoreJSON(to:)`` writes it.
    struct SpelledFields {
        var body: [UInt8]
        /// The members in `body`, in the answer's order (by name).
        var spans: [FastWriteDecoder.FieldSpan]

        private static let openBrace: StaticString = "{"

        /// `{member,member…}`, copied.
        func write(to w: inout JSONWriter) {
            w.appendRawJSON(UnsafeBufferPointer(start: Self.openBrace.utf8Start, count: Self.openBrace.utf8CodeUnitCount))
            body.withUnsafeBufferPointer { bytes in
                for (k, span) in spans.enumerated() {
                    if k > 0 { w.bytes.append(UInt8(ascii: ",")) }
                    w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[span.member]))
                }
            }
            w.bytes.append(UInt8(ascii: "}"))
        }
    }

    static func writeResult(_ r: WriteResult, to w: inout JSONWriter) {
        w.beginObject()
        if let t = r.updateTime {
            w.appendKey("updateTime")
            writeTimestamp(t, to: &w)
        }
        if !r.transformResults.isEmpty {
            w.appendKey("transformResults")
            w.beginArray()
            for v in r.transformResults { v.appendFirestoreJSON(to: &w) }
            w.endArray()
        }
        w.endObject()
    }

    /// `[WriteResult…]`. The writes of one commit share their update time, so the JSON of a plain
    /// `{"updateTime": "…"}` result is built once and copied for the others.
    static func writeResults(_ results: [WriteResult], to w: inout JSONWriter) {
        w.bytes.reserveCapacity(w.bytes.count + results.count * 48 + 2)
        w.beginArray()
        var cachedTime = Int64.min
        var cached: [UInt8] = []
        for r in results {
            guard r.transformResults.isEmpty, let t = r.updateTime else {
                writeResult(r, to: &w)
                continue
            }
            if t != cachedTime {
                var one = JSONWriter()
                writeResult(r, to: &one)
                cached = one.bytes
                cachedTime = t
            }
            w.appendRawJSON(cached)
        }
        w.endArray()
    }

    /// The Google API error body: `{"error":{"code","message","status"}}`.
    static func error(_ e: EmulatorError) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.appendKey("error")
        w.beginObject()
        w.appendKey("code")
        w.appendInt(e.code.httpStatus)
        w.appendKey("message")
        w.appendString(e.message)
        w.appendKey("status")
        w.appendString(e.code.name)
        w.endObject()
        w.endObject()
        return w.bytes
    }

    /// `{"code": n, "message": "…"}` of `google.rpc.Status` (BatchWrite); `{}` for OK.
    static func writeStatus(_ e: EmulatorError?, to w: inout JSONWriter) {
        w.beginObject()
        if let e {
            w.appendKey("code")
            w.appendInt(Int(e.code.rawValue))
            w.appendKey("message")
            w.appendString(e.message)
        }
        w.endObject()
    }
}

extension RESTEncoding {
    /// `ExplainMetrics` in the REST mapping: int64 counts as strings, the duration as `"<s>.<frac>s"`,
    /// the index and debug structs with production's snake_case keys.
    static func writeExplainMetrics(_ m: ExplainMetrics, to w: inout JSONWriter) {
        w.beginObject()
        w.appendKey("planSummary")
        w.beginObject()
        w.appendKey("indexesUsed")
        w.beginArray()
        for index in m.indexesUsed {
            writeStruct([("query_scope", .string(index.queryScope)), ("properties", .string(index.properties))], to: &w)
        }
        w.endArray()
        w.endObject()
        if let stats = m.executionStats {
            w.appendKey("executionStats")
            w.beginObject()
            w.appendKey("resultsReturned")
            w.appendString(String(stats.resultsReturned))
            w.appendKey("executionDuration")
            w.appendString(duration(nanoseconds: stats.executionNanoseconds))
            w.appendKey("readOperations")
            w.appendString(String(stats.readOperations))
            w.appendKey("debugStats")
            writeStruct(m.debugStats, to: &w)
            w.endObject()
        }
        w.endObject()
    }

    static func writeStruct(_ fields: [(String, ExplainMetrics.DebugValue)], to w: inout JSONWriter) {
        w.beginObject()
        for (key, value) in fields {
            w.appendKey(key)
            switch value {
            case .string(let s): w.appendString(s)
            case .object(let inner): writeStruct(inner, to: &w)
            }
        }
        w.endObject()
    }

    /// A `google.protobuf.Duration` in JSON: seconds with nine fractional digits, then `s`.
    static func duration(nanoseconds: UInt64) -> String {
        let fraction = String(nanoseconds % 1_000_000_000)
        return "\(nanoseconds / 1_000_000_000)." + String(repeating: "0", count: 9 - fraction.count) + fraction + "s"
    }
}
