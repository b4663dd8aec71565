import EmulatorHTTP
import EmulatorSupport
import Testing

/// Request bodies are parsed as production parses them: unknown members are rejected with 400
/// INVALID_ARGUMENT, the error names the member and where it is (proto field names, indexes),
/// and nothing is written. Every member official clients send stays accepted, in lowerCamelCase
/// and in snake_case.
///
/// Verified texts: `Invalid JSON payload received. Unknown name "currentDocument" at 'document':
/// Cannot find field.` (production answer to a PATCH whose body carried `currentDocument`,
/// samuelgozi/firebase-firestore-lite#23); the root form without ` at '…'` and the
/// `tools[0].function_declarations[0]`-style paths come from the same Google API front end
/// (Gemini and Places errors quoted in public issues); `Invalid value at
/// 'writes[0].update.fields[0].value.bytes_value' (TYPE_BYTES), Base64 decoding failed for
/// "!!!"` and `Unknown name "integerValue" at 'writes[0].update.fields[6].value': Proto field is
/// not repeating, cannot start list.` are production Firestore answers quoted in public code.
/// The oneof text follows protobuf's JSON converter (`ProtoWriter::ValidOneof`).
@Suite struct StrictJSONTests {
    static let root = "/v1/projects/demo/databases/(default)/documents"
    static let doc = "projects/demo/databases/(default)/documents"

    /// (case, method, path, body, exact message)
    static let unknown: [(String, HTTPMethod, String, String, String)] = [
        ("patch body member", .patch, root + "/c/d", #"{"fields":{},"currentDocument":{"exists":true}}"#,
         #"Invalid JSON payload received. Unknown name "currentDocument" at 'document': Cannot find field."#),
        ("create body member", .post, root + "/c?documentId=d", #"{"fields":{},"foo":1}"#,
         #"Invalid JSON payload received. Unknown name "foo" at 'document': Cannot find field."#),
        ("commit request root", .post, root + ":commit", #"{"writes":[],"foo":1}"#,
         #"Invalid JSON payload received. Unknown name "foo": Cannot find field."#),
        ("write", .post, root + ":commit",
         #"{"writes":[{"delete":"\#(doc)/c/a"},{"update":{"name":"\#(doc)/c/d"},"precondition":{}}]}"#,
         #"Invalid JSON payload received. Unknown name "precondition" at 'writes[1]': Cannot find field."#),
        ("document of a write", .post, root + ":commit", #"{"writes":[{"update":{"name":"\#(doc)/c/d","field":{}}}]}"#,
         #"Invalid JSON payload received. Unknown name "field" at 'writes[0].update': Cannot find field."#),
        ("precondition", .post, root + ":commit",
         #"{"writes":[{"update":{"name":"\#(doc)/c/d"},"current_document":{"exist":true}}]}"#,
         #"Invalid JSON payload received. Unknown name "exist" at 'writes[0].current_document': Cannot find field."#),
        ("field transform", .post, root + ":commit",
         #"{"writes":[{"update":{"name":"\#(doc)/c/d"},"updateTransforms":[{"fieldPath":"n","add":{"integerValue":"1"}}]}]}"#,
         #"Invalid JSON payload received. Unknown name "add" at 'writes[0].update_transforms[0]': Cannot find field."#),
        ("value type", .post, root + ":commit",
         #"{"writes":[{"update":{"name":"\#(doc)/c/d","fields":{"a":{"integerValue":"1"},"b":{"intValue":"1"}}}}]}"#,
         #"Invalid JSON payload received. Unknown name "intValue" at 'writes[0].update.fields[1].value': Cannot find field."#),
        ("value inside a map", .post, root + ":commit",
         #"{"writes":[{"update":{"name":"\#(doc)/c/d","fields":{"m":{"mapValue":{"fields":{"x":{"text":"1"}}}}}}}]}"#,
         #"Invalid JSON payload received. Unknown name "text" at 'writes[0].update.fields[0].value.map_value.fields[0].value': Cannot find field."#),
        ("map value member", .post, root + ":commit",
         #"{"writes":[{"update":{"name":"\#(doc)/c/d","fields":{"m":{"mapValue":{"field":{}}}}}}]}"#,
         #"Invalid JSON payload received. Unknown name "field" at 'writes[0].update.fields[0].value.map_value': Cannot find field."#),
        ("structured query", .post, root + ":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"c"}],"wher":{}}}"#,
         #"Invalid JSON payload received. Unknown name "wher" at 'structured_query': Cannot find field."#),
        ("nested filter", .post, root + ":runQuery",
         #"{"structuredQuery":{"where":{"compositeFilter":{"op":"AND","filters":[{"unaryFilter":{"op":"IS_NULL","field":{"fieldPath":"a"}}},{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":{"nullValue":null},"not":true}}]}}}}"#,
         #"Invalid JSON payload received. Unknown name "not" at 'structured_query.where.composite_filter.filters[1].field_filter': Cannot find field."#),
        ("aggregation", .post, root + ":runAggregationQuery",
         #"{"structuredAggregationQuery":{"structuredQuery":{"from":[{"collectionId":"c"}]},"aggregations":[{"alias":"n","count":{},"max":{}}]}}"#,
         #"Invalid JSON payload received. Unknown name "max" at 'structured_aggregation_query.aggregations[0]': Cannot find field."#),
        ("transaction options", .post, root + ":beginTransaction", #"{"options":{"readWrite":{"retry":"eA=="}}}"#,
         #"Invalid JSON payload received. Unknown name "retry" at 'options.read_write': Cannot find field."#),
        ("batchGet request", .post, root + ":batchGet", #"{"documents":[],"names":[]}"#,
         #"Invalid JSON payload received. Unknown name "names": Cannot find field."#),
        ("listCollectionIds request", .post, root + ":listCollectionIds", #"{"pageSize":1,"limit":2}"#,
         #"Invalid JSON payload received. Unknown name "limit": Cannot find field."#),
        ("two value types (oneof)", .post, root + ":commit",
         #"{"writes":[{"update":{"name":"\#(doc)/c/d","fields":{"a":{"integerValue":"1","stringValue":"x"}}}}]}"#,
         #"Invalid value at 'writes[0].update.fields[0].value' (oneof), oneof field 'value_type' is already set. Cannot set 'stringValue'"#),
        ("list for a value", .post, root + ":commit",
         #"{"writes":[{"update":{"name":"\#(doc)/c/d","fields":{"a":{"integerValue":["1"]}}}}]}"#,
         #"Invalid JSON payload received. Unknown name "integerValue" at 'writes[0].update.fields[0].value': Proto field is not repeating, cannot start list."#),
        ("bad base64", .post, root + ":commit",
         #"{"writes":[{"update":{"name":"\#(doc)/c/d","fields":{"a":{"bytesValue":"!!!"}}}}]}"#,
         #"Invalid value at 'writes[0].update.fields[0].value.bytes_value' (TYPE_BYTES), Base64 decoding failed for "!!!""#),
        ("wrong scalar type", .patch, root + "/c/d", #"{"fields":{"a":{"stringValue":"x"},"b":{"booleanValue":"True"}}}"#,
         #"Invalid value at 'document.fields[1].value.boolean_value' (TYPE_BOOL), "True""#),
        ("timestamp without zone", .patch, root + "/c/d", #"{"fields":{"t":{"timestampValue":"2024-01-02T03:04:05"}}}"#,
         #"Invalid value at 'document.fields[0].value.timestamp_value' (type.googleapis.com/google.protobuf.Timestamp), Field 'timestampValue', Illegal timestamp format; timestamps must end with 'Z' or have a valid timezone offset."#),
    ]

    @Test(arguments: unknown)
    func unknownMembersAreRejected(_ c: (String, HTTPMethod, String, String, String)) {
        let client = FirestoreTestClient()
        let r = client.send(c.1, c.2, c.3)
        #expect(r.status == 400, "\(c.0): \(r.text.prefix(300))")
        #expect(r.json.errorStatus == "INVALID_ARGUMENT", "\(c.0)")
        #expect(r.json.errorMessage == c.4, "\(c.0)")
        let stored = client.post(":runQuery", #"{"structuredQuery":{"from":[{"allDescendants":true}]}}"#)
        #expect(stored.json.array?.first?[member: "document"] == nil, "\(c.0) wrote something")
    }

    /// Bodies with every member official clients send (JS Lite SDK, Node Admin `preferRest`, the
    /// REST reference), in lowerCamelCase and in snake_case: (case, path suffix, body).
    static func accepted(_ t: String, now: String) -> [(String, String, String)] {
        [
            ("commit, every Write member (camel)", ":commit",
             #"{"database":"projects/demo/databases/(default)","writes":[{"update":{"name":"\#(doc)/c/a","fields":{"n":{"integerValue":"1"}},"createTime":"2024-01-01T00:00:00Z","updateTime":"2024-01-01T00:00:00Z"},"updateMask":{"fieldPaths":["n"]},"updateTransforms":[{"fieldPath":"t","setToServerValue":"REQUEST_TIME"},{"fieldPath":"i","increment":{"integerValue":"1"}},{"fieldPath":"x","maximum":{"integerValue":"1"}},{"fieldPath":"y","minimum":{"integerValue":"1"}},{"fieldPath":"u","appendMissingElements":{"values":[{"integerValue":"1"}]}},{"fieldPath":"v","removeAllFromArray":{"values":[]}}],"currentDocument":{"exists":false}},{"transform":{"document":"\#(doc)/c/a","fieldTransforms":[{"fieldPath":"k","setToServerValue":"REQUEST_TIME"}]}},{"verify":"\#(doc)/c/a","currentDocument":{"exists":true}},{"delete":"\#(doc)/c/z"}]}"#),
            ("commit, every Write member (snake)", ":commit",
             #"{"database":"projects/demo/databases/(default)","writes":[{"update":{"name":"\#(doc)/c/b","fields":{"n":{"integer_value":"1"},"m":{"map_value":{"fields":{"g":{"geo_point_value":{"latitude":1,"longitude":2}}}}}},"create_time":"2024-01-01T00:00:00Z","update_time":"2024-01-01T00:00:00Z"},"update_mask":{"field_paths":["n","m"]},"update_transforms":[{"field_path":"t","set_to_server_value":"REQUEST_TIME"},{"field_path":"u","append_missing_elements":{"values":[]}},{"field_path":"v","remove_all_from_array":{"values":[]}}],"current_document":{"exists":false}},{"transform":{"document":"\#(doc)/c/b","field_transforms":[]}}]}"#),
            ("commit in a transaction", ":commit", #"{"writes":[],"transaction":"\#(t)"}"#),
            ("batchWrite with labels", ":batchWrite",
             #"{"database":"projects/demo/databases/(default)","writes":[{"update":{"name":"\#(doc)/c/w"}}],"labels":{"team":"x"}}"#),
            ("runQuery, every StructuredQuery member", ":runQuery",
             #"{"parent":"\#(doc)","structuredQuery":{"select":{"fields":[{"fieldPath":"a"}]},"from":[{"collectionId":"c","allDescendants":false}],"where":{"compositeFilter":{"op":"OR","filters":[{"fieldFilter":{"field":{"fieldPath":"a"},"op":"GREATER_THAN","value":{"integerValue":"0"}}},{"unaryFilter":{"op":"IS_NAN","field":{"fieldPath":"a"}}}]}},"orderBy":[{"field":{"fieldPath":"a"},"direction":"DESCENDING"}],"startAt":{"values":[{"integerValue":"9"}],"before":true},"endAt":{"values":[{"integerValue":"0"}],"before":false},"offset":0,"limit":{"value":5}},"newTransaction":{"readOnly":{}}}"#),
            ("runQuery (snake)", ":runQuery",
             #"{"structured_query":{"from":[{"collection_id":"c","all_descendants":true}],"where":{"field_filter":{"field":{"field_path":"a"},"op":"EQUAL","value":{"null_value":null}}},"order_by":[{"field":{"field_path":"__name__"}}],"start_at":{"values":[{"reference_value":"\#(doc)/c/a"}]},"limit":3},"new_transaction":{"read_only":{}}}"#),
            ("runQuery with readTime", ":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"c"}]},"readTime":"\#(now)"}"#),
            ("runAggregationQuery, count/sum/avg", ":runAggregationQuery",
             #"{"parent":"\#(doc)","structuredAggregationQuery":{"structuredQuery":{"from":[{"collectionId":"c"}]},"aggregations":[{"alias":"n","count":{"upTo":"10"}},{"alias":"s","sum":{"field":{"fieldPath":"a"}}},{"avg":{"field":{"fieldPath":"a"}}}]}}"#),
            ("runAggregationQuery (snake)", ":runAggregationQuery",
             #"{"structured_aggregation_query":{"structured_query":{"from":[{"collection_id":"c"}]},"aggregations":[{"count":{"up_to":"10"}}]},"new_transaction":{"read_only":{}}}"#),
            ("batchGet, every member", ":batchGet",
             #"{"database":"projects/demo/databases/(default)","documents":["\#(doc)/c/a"],"mask":{"fieldPaths":["n"]},"newTransaction":{"readWrite":{}}}"#),
            ("batchGet (snake)", ":batchGet", #"{"documents":["\#(doc)/c/a"],"mask":{"field_paths":["n"]},"read_time":"\#(now)"}"#),
            ("beginTransaction read-only at a time", ":beginTransaction",
             #"{"database":"projects/demo/databases/(default)","options":{"readOnly":{"readTime":"\#(now)"}}}"#),
            ("beginTransaction retrying (snake)", ":beginTransaction", #"{"options":{"read_write":{"retry_transaction":"\#(t)"}}}"#),
            ("listCollectionIds, every member", ":listCollectionIds", #"{"parent":"\#(doc)","pageSize":10,"page_token":"","readTime":"\#(now)"}"#),
            ("partitionQuery, every member", ":partitionQuery",
             #"{"parent":"\#(doc)","structuredQuery":{"from":[{"collectionId":"c","allDescendants":true}],"orderBy":[{"field":{"fieldPath":"__name__"}}]},"partitionCount":"2","pageToken":"","pageSize":1}"#),
        ]
    }

    @Test func everyMemberOfficialClientsSendIsAccepted() {
        let client = FirestoreTestClient()
        let begin = client.post(":beginTransaction", "{}")
        let transaction = begin.json[member: "transaction"]?.string ?? ""
        let readTime = client.post(":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"c"}]}}"#)
            .json.array?.first?[member: "readTime"]?.string ?? ""
        // `readTime`s are a time the emulator answered (it keeps an hour of history).
        for (name, suffix, body) in Self.accepted(transaction, now: readTime) {
            let r = client.post(suffix, body)
            #expect(!(r.json.errorMessage ?? "").contains("Unknown name"), "\(name): \(r.text.prefix(300))")
            #expect(r.status == 200, "\(name): \(r.text.prefix(300))")
        }
        let patch = client.send(
            .patch, Self.root + "/c/p?current_document.exists=false",
            #"{"name":"\#(Self.doc)/c/p","fields":{"a":{"stringValue":"x"}},"createTime":"2024-01-01T00:00:00Z","update_time":"2024-01-01T00:00:00Z"}"#)
        #expect(patch.status == 200, "\(patch.text.prefix(300))")
    }

    /// (method, path and query, parameter named in the error or nil when accepted)
    static let queries: [(HTTPMethod, String, String?)] = [
        (.get, root + "/c/d?bogusQueryParamXyz=1", "bogusQueryParamXyz"),
        (.get, root + "/c/d?mask.fieldPaths=a&mask.field_paths=b&alt=json&prettyPrint=false&$alt=json%3Benum-encoding%3Dint&key=k&access_token=owner", nil),
        (.get, root + "/c?pageSize=1&page_token=&orderBy=a&show_missing=false&mask.fieldPaths=a&limit=3", "limit"),
        (.get, root + "/c?page_size=1&pageToken=&order_by=a&showMissing=false&mask.fieldPaths=a&fields=documents", nil),
        (.post, root + "/c?documentId=x&mask.fieldPaths=a", nil),
        (.post, root + "/c?document_id=y&name=z", "name"),
        (.patch, root + "/c/p?updateMask.fieldPaths=a&update_mask.field_paths=b&mask.fieldPaths=a&currentDocument.exists=false", nil),
        (.patch, root + "/c/q?current_document.update_time=2024-01-01T00:00:00Z&precondition.exists=true", "precondition.exists"),
        (.delete, root + "/c/d?currentDocument.exists=false&current_document.update_time=2024-01-01T00:00:00Z", nil),
        (.delete, root + "/c/d?mask.fieldPaths=a", "mask.fieldPaths"),
    ]

    @Test(arguments: queries)
    func queryParametersAreBoundOrRejected(_ c: (HTTPMethod, String, String?)) {
        let client = FirestoreTestClient()
        let body: String? = c.0 == .post || c.0 == .patch ? #"{"fields":{"a":{"integerValue":"1"}}}"# : nil
        let r = client.send(c.0, c.1, body)
        if let name = c.2 {
            #expect(r.status == 400, "\(c.1): \(r.text.prefix(300))")
            #expect(
                r.json.errorMessage
                    == "Invalid JSON payload received. Unknown name \"\(name)\": Cannot bind query parameter. Field '\(name)' could not be found in request message.",
                "\(c.1)")
        } else {
            #expect(!(r.json.errorMessage ?? "").contains("Cannot bind query parameter"), "\(c.1): \(r.text.prefix(300))")
            #expect(r.status != 400, "\(c.1): \(r.text.prefix(300))")
        }
    }

    @Test func explainOptionsMembersAreChecked() {
        let client = FirestoreTestClient()
        let r = client.post(":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"c"}]},"explainOptions":{"analyse":true}}"#)
        #expect(r.status == 400)
        #expect(r.json.errorMessage?.contains("Unknown name \"analyse\"") == true, "\(r.text.prefix(300))")
    }
}
