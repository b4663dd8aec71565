/// The members one message of the v1 REST API accepts, by lowerCamelCase name; the original
/// snake_case proto name of each is accepted too (proto3 JSON parsers take both).
///
/// Production rejects any other member with 400 INVALID_ARGUMENT
/// `Invalid JSON payload received. Unknown name "foo" at 'document': Cannot find field.`
/// (text seen from production in samuelgozi/firebase-firestore-lite#23 for a PATCH body; the
/// where-path uses proto field names and indexes, e.g. `writes[0].update.fields[6].value`, and
/// is left out for the request root: `Unknown name "foo": Cannot find field.`).
///
/// The lists follow `google/firestore/v1/{firestore,common,document,query,write}.proto`
/// (googleapis HEAD). Fields bound in the URL (`database`, `parent`) may be repeated in the body.
struct RESTMessage: Sendable {
    /// The message's type URL, as production names it in `Invalid value` errors.
    let typeURL: String
    let fields: [String]
    let snakeFields: [String]
    /// Emulator-only bodies that are not API messages accept any member.
    let isOpen: Bool

    init(_ type: String, _ fields: String...) {
        typeURL = "type.googleapis.com/" + (type.hasPrefix("google.") ? type : "google.firestore.v1." + type)
        self.fields = fields
        self.snakeFields = fields.map(JSONObject.snakeCase)
        self.isOpen = false
    }

    private init(open: Bool) {
        typeURL = "object"
        fields = []
        snakeFields = []
        isOpen = open
    }

    /// Accepts every member.
    static let open = RESTMessage(open: true)

    /// The index of `camel` among the fields (a programming error when absent: nil).
    func index(of camel: String) -> Int? {
        for (i, f) in fields.enumerated() where f.utf8.count == camel.utf8.count && f == camel { return i }
        return nil
    }

    /// True when `name` (as sent) is one of the fields, in either spelling. Both sides are ASCII
    /// here, so equal byte counts and `==` mean equal bytes.
    func accepts(_ name: String) -> Bool {
        if isOpen { return true }
        let n = name.utf8.count
        for f in fields where f.utf8.count == n && f == name { return true }
        for f in snakeFields where f.utf8.count == n && f == name { return true }
        return false
    }

    // MARK: Requests (body "*": the request message is the body)

    static let batchGetDocumentsRequest = RESTMessage("BatchGetDocumentsRequest", "database", "documents", "mask", "transaction", "newTransaction", "readTime")
    static let beginTransactionRequest = RESTMessage("BeginTransactionRequest", "database", "options")
    static let commitRequest = RESTMessage("CommitRequest", "database", "writes", "transaction")
    static let rollbackRequest = RESTMessage("RollbackRequest", "database", "transaction")
    static let runQueryRequest = RESTMessage("RunQueryRequest", 
        "parent", "structuredQuery", "transaction", "newTransaction", "readTime", "explainOptions")
    static let runAggregationQueryRequest = RESTMessage("RunAggregationQueryRequest", 
        "parent", "structuredAggregationQuery", "transaction", "newTransaction", "readTime", "explainOptions")
    static let partitionQueryRequest = RESTMessage("PartitionQueryRequest", 
        "parent", "structuredQuery", "partitionCount", "pageToken", "pageSize", "readTime")
    static let listCollectionIdsRequest = RESTMessage("ListCollectionIdsRequest", "parent", "pageSize", "pageToken", "readTime")
    static let batchWriteRequest = RESTMessage("BatchWriteRequest", "database", "writes", "labels")

    // MARK: Messages inside requests

    /// The body of createDocument and patch (`body: "document"`).
    static let document = RESTMessage("Document", "name", "fields", "createTime", "updateTime")
    static let documentMask = RESTMessage("DocumentMask", "fieldPaths")
    static let precondition = RESTMessage("Precondition", "exists", "updateTime")
    static let transactionOptions = RESTMessage("TransactionOptions", "readOnly", "readWrite")
    static let readOnly = RESTMessage("TransactionOptions.ReadOnly", "readTime")
    static let readWrite = RESTMessage("TransactionOptions.ReadWrite", "retryTransaction", "concurrencyMode")
    static let write = RESTMessage("Write", 
        "update", "delete", "verify", "transform", "updateMask", "updateTransforms", "currentDocument")
    static let documentTransform = RESTMessage("DocumentTransform", "document", "fieldTransforms")
    static let fieldTransform = RESTMessage("DocumentTransform.FieldTransform", 
        "fieldPath", "setToServerValue", "increment", "maximum", "minimum", "appendMissingElements", "removeAllFromArray")
    static let arrayValue = RESTMessage("ArrayValue", "values")
    static let explainOptions = RESTMessage("ExplainOptions", "analyze")

    static let structuredQuery = RESTMessage("StructuredQuery", 
        "select", "from", "where", "orderBy", "startAt", "endAt", "offset", "limit", "findNearest")
    static let projection = RESTMessage("StructuredQuery.Projection", "fields")
    static let fieldReference = RESTMessage("StructuredQuery.FieldReference", "fieldPath")
    static let collectionSelector = RESTMessage("StructuredQuery.CollectionSelector", "collectionId", "allDescendants")
    static let filter = RESTMessage("StructuredQuery.Filter", "compositeFilter", "fieldFilter", "unaryFilter")
    static let compositeFilter = RESTMessage("StructuredQuery.CompositeFilter", "op", "filters")
    static let fieldFilter = RESTMessage("StructuredQuery.FieldFilter", "field", "op", "value")
    static let unaryFilter = RESTMessage("StructuredQuery.UnaryFilter", "op", "field")
    static let order = RESTMessage("StructuredQuery.Order", "field", "direction")
    static let cursor = RESTMessage("Cursor", "values", "before")
    static let structuredAggregationQuery = RESTMessage("StructuredAggregationQuery", "structuredQuery", "aggregations")
    static let aggregation = RESTMessage("StructuredAggregationQuery.Aggregation", "count", "sum", "avg", "alias")
    static let count = RESTMessage("StructuredAggregationQuery.Aggregation.Count", "upTo")
    static let sumOrAverage = RESTMessage("StructuredAggregationQuery.Aggregation.Sum", "field")
    /// `google.protobuf.Int32Value`/`Int64Value` written as an object (proto3 JSON uses the bare number).
    static let wrapper = RESTMessage("google.protobuf.Int32Value", "value")
}
