import EmulatorHTTP
import Testing

/// Protobuf's JSON mapping recommends refusing a field named twice (conformance test
/// `FieldNameDuplicate`); the REST API answers INVALID_ARGUMENT instead of dropping one value.
@Suite struct DuplicateFieldTests {
    @Test func createDocumentWithARepeatedFieldIsInvalid() {
        let c = FirestoreTestClient()
        let r = c.post("/c?documentId=d", #"{"fields":{"a":{"integerValue":"1"},"a":{"integerValue":"2"}}}"#)
        #expect(r.status == 400)
        #expect(r.json.errorStatus == "INVALID_ARGUMENT")
        #expect(c.send(.get, "/v1/\(c.name("c/d"))").status == 404)
    }

    @Test func commitWithARepeatedFieldIsInvalid() {
        let c = FirestoreTestClient()
        let body = #"{"writes":[{"update":{"name":"\#(c.name("c/d"))","fields":{"a":{"integerValue":"1"},"a":{"integerValue":"2"}}}}]}"#
        let r = c.post(":commit", body)
        #expect(r.status == 400)
        #expect(r.json.errorStatus == "INVALID_ARGUMENT")
        #expect(c.send(.get, "/v1/\(c.name("c/d"))").status == 404)
    }
}
