import FirestoreEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

@Suite struct DocumentMethodTests {
    let c = FirestoreTestClient()

    @Test func createGetPatchDelete() {
        let created = c.send(.post, "/v1/\(c.root)/users?documentId=ada", #"{"fields":{"age":{"integerValue":"36"},"name":{"stringValue":"Ada"}}}"#)
        #expect(created.status == 200)
        #expect(created.json[member: "name"]?.string == c.name("users/ada"))
        #expect(created.json[member: "fields"]?[member: "age"]?[member: "integerValue"]?.string == "36")
        let createTime = created.json[member: "createTime"]?.string
        #expect(createTime == created.json[member: "updateTime"]?.string)

        let again = c.send(.post, "/v1/\(c.root)/users?documentId=ada", #"{"fields":{}}"#)
        #expect(again.status == 409)
        #expect(again.json.errorStatus == "ALREADY_EXISTS")
        #expect(again.json.errorMessage == "Document already exists: \(c.name("users/ada"))")

        let got = c.send(.get, "/v1/\(c.name("users/ada"))?mask.fieldPaths=name")
        #expect(got.status == 200)
        #expect(got.json[member: "fields"]?[member: "age"] == nil)
        #expect(got.json[member: "fields"]?[member: "name"]?[member: "stringValue"]?.string == "Ada")

        let patched = c.send(
            .patch, "/v1/\(c.name("users/ada"))?updateMask.fieldPaths=age&updateMask.fieldPaths=city",
            #"{"fields":{"age":{"integerValue":"37"}}}"#)
        #expect(patched.status == 200)
        #expect(patched.json[member: "fields"]?[member: "age"]?[member: "integerValue"]?.string == "37")
        #expect(patched.json[member: "fields"]?[member: "name"]?[member: "stringValue"]?.string == "Ada")
        #expect(patched.json[member: "createTime"]?.string == createTime)
        #expect(patched.json[member: "updateTime"]?.string != createTime)

        #expect(c.send(.delete, "/v1/\(c.name("users/ada"))").status == 200)
        let missing = c.send(.get, "/v1/\(c.name("users/ada"))")
        #expect(missing.status == 404)
        #expect(missing.json.errorStatus == "NOT_FOUND")
    }

    @Test func browsersPassCORS() {
        let preflight = c.emulator.router.respond(to: HTTPRequest(
            method: .options, target: "/v1/\(c.root):commit",
            headers: HTTPHeaders([("Origin", "http://localhost:5173"), ("Access-Control-Request-Method", "POST"),
                                  ("Access-Control-Request-Headers", "content-type,x-goog-api-client")])))
        #expect(preflight.status.code == 204)
        #expect(preflight.headers["Access-Control-Allow-Origin"] == "http://localhost:5173")
        #expect(preflight.headers["Access-Control-Allow-Headers"] == "content-type,x-goog-api-client")
        let get = c.emulator.router.respond(to: HTTPRequest(
            method: .get, target: "/v1/\(c.name("c/none"))", headers: HTTPHeaders([("Origin", "http://localhost:5173")])))
        #expect(get.status.code == 404)
        #expect(get.headers["Access-Control-Allow-Origin"] == "http://localhost:5173")
    }

    @Test func autoIDIsTwentyAlphanumerics() {
        let r = c.send(.post, "/v1/\(c.root)/users", #"{"fields":{"a":{"booleanValue":true}}}"#)
        let id = r.json[member: "name"]?.string?.split(separator: "/").last.map(String.init) ?? ""
        #expect(id.utf8.count == 20)
        #expect(id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) })
    }

    @Test func patchPreconditions() {
        let missing = c.send(.patch, "/v1/\(c.name("users/x"))?currentDocument.exists=true", #"{"fields":{}}"#)
        #expect(missing.status == 404)
        #expect(missing.json.errorMessage == "No document to update: \(c.name("users/x"))")
        let created = c.send(.patch, "/v1/\(c.name("users/x"))?currentDocument.exists=false", #"{"fields":{"n":{"integerValue":"1"}}}"#)
        #expect(created.status == 200)
        let updateTime = created.json[member: "updateTime"]?.string ?? ""
        let stale = c.send(
            .patch, "/v1/\(c.name("users/x"))?currentDocument.updateTime=2000-01-01T00:00:00Z", #"{"fields":{}}"#)
        #expect(stale.json.errorStatus == "FAILED_PRECONDITION")
        let future = c.send(
            .delete, "/v1/\(c.name("users/x"))?currentDocument.updateTime=9999-01-01T00:00:00Z")
        #expect(future.json.errorStatus == "INVALID_ARGUMENT")
        let ok = c.send(.delete, "/v1/\(c.name("users/x"))?currentDocument.updateTime=\(updateTime)")
        #expect(ok.status == 200)
        #expect(c.send(.get, "/v1/\(c.name("users/x"))").status == 404)
    }

    @Test func listPagesInNameOrderWithMissingDocuments() {
        c.set([("c/b", "{}"), ("c/a", #"{"n":{"integerValue":"1"}}"#), ("c/d", "{}"), ("c/ghost/sub/s1", "{}")])
        let page1 = c.send(.get, "/v1/\(c.root)/c?pageSize=2")
        let names1 = page1.json[member: "documents"]?.array?.compactMap { $0[member: "name"]?.string } ?? []
        #expect(names1 == [c.name("c/a"), c.name("c/b")])
        let token = page1.json[member: "nextPageToken"]?.string ?? ""
        #expect(!token.isEmpty)
        let page2 = c.send(.get, "/v1/\(c.root)/c?pageSize=2&pageToken=\(token.replacingPlus)")
        let names2 = page2.json[member: "documents"]?.array?.compactMap { $0[member: "name"]?.string } ?? []
        #expect(names2 == [c.name("c/d")])
        #expect(page2.json[member: "nextPageToken"] == nil)

        let withMissing = c.send(.get, "/v1/\(c.root)/c?show_missing=true&mask.fieldPaths=_none_")
        let docs = withMissing.json[member: "documents"]?.array ?? []
        #expect(docs.compactMap { $0[member: "name"]?.string } == ["c/a", "c/b", "c/d", "c/ghost"].map(c.name))
        #expect(docs.last?[member: "createTime"] == nil)
        #expect(docs.first?[member: "fields"] == nil)

        let desc = c.send(.get, "/v1/\(c.root)/c?orderBy=__name__%20desc")
        #expect(desc.json[member: "documents"]?.array?.compactMap { $0[member: "name"]?.string } == ["c/d", "c/b", "c/a"].map(c.name))
    }

    @Test func hostilePageSizesAndTokensAreRejectedOrServed() {
        c.set([("c/a", "{}")])
        #expect(c.send(.get, "/v1/\(c.root)/c?pageSize=9223372036854775807").status == 200)
        #expect(c.send(.get, "/v1/\(c.root)/c?pageSize=-1").json.errorStatus == "INVALID_ARGUMENT")
        #expect(c.send(.get, "/v1/\(c.root)/c?pageToken=AAAA").json.errorStatus == "INVALID_ARGUMENT")
        #expect(c.send(.get, "/v1/\(c.root)/c?pageToken=%FF%FE").json.errorStatus == "INVALID_ARGUMENT")
        #expect(c.post(":listCollectionIds", #"{"pageSize":"9223372036854775807"}"#).status == 200)
    }

    @Test func batchGetReportsFoundAndMissingOnce() {
        c.set([("c/a", "{}")])
        let r = c.post(":batchGet", #"{"documents":["\#(c.name("c/a"))","\#(c.name("c/zz"))","\#(c.name("c/a"))"]}"#)
        let items = r.json.array ?? []
        #expect(items.count == 2)
        #expect(items.first?[member: "found"]?[member: "name"]?.string == c.name("c/a"))
        #expect(items.last?[member: "missing"]?.string == c.name("c/zz"))
        #expect(items.allSatisfy { $0[member: "readTime"]?.string != nil })
    }

    @Test func listCollectionIdsCountsImplicitCollections() {
        c.set([("a/1", "{}"), ("b/1/deep/2", "{}"), ("a/1/sub/x", "{}"), ("a/1/other/y", "{}")])
        let root = c.post(":listCollectionIds", "{}")
        #expect(root.json[member: "collectionIds"]?.array?.compactMap(\.string) == ["a", "b"])
        let nested = c.post("/a/1:listCollectionIds", #"{"pageSize":1}"#)
        #expect(nested.json[member: "collectionIds"]?.array?.compactMap(\.string) == ["other"])
        let token = nested.json[member: "nextPageToken"]?.string ?? ""
        let next = c.post("/a/1:listCollectionIds", #"{"pageSize":1,"pageToken":"\#(token)"}"#)
        #expect(next.json[member: "collectionIds"]?.array?.compactMap(\.string) == ["sub"])
    }

    @Test func commitReportsWriteResultsAndNoOpKeepsUpdateTime() {
        let first = c.set([("c/a", #"{"x":{"integerValue":"1"}}"#)])
        let t1 = first.json[member: "writeResults"]?.array?.first?[member: "updateTime"]?.string
        let second = c.set([("c/a", #"{"x":{"integerValue":"1"}}"#)])
        #expect(second.json[member: "writeResults"]?.array?.first?[member: "updateTime"]?.string == t1)
        #expect(second.json[member: "commitTime"]?.string != first.json[member: "commitTime"]?.string)
        let deleted = c.post(":commit", #"{"writes":[{"delete":"\#(c.name("c/a"))"}]}"#)
        #expect(deleted.json[member: "writeResults"]?.array?.first?[member: "updateTime"] == nil)
    }

    @Test func batchWriteReportsStatusPerWrite() {
        c.set([("c/exists", "{}")])
        let r = c.post(":batchWrite", #"""
            {"writes":[
              {"update":{"name":"\#(c.name("c/new"))","fields":{}},"currentDocument":{"exists":false}},
              {"update":{"name":"\#(c.name("c/exists"))","fields":{}},"currentDocument":{"exists":false}},
              {"update":{"name":"\#(c.name("c/none"))","fields":{}},"currentDocument":{"exists":true}}
            ]}
            """#)
        let status = r.json[member: "status"]?.array ?? []
        #expect(status.count == 3)
        #expect(status[0][member: "code"] == nil)
        #expect(status[1][member: "code"]?.int == 6)
        #expect(status[2][member: "code"]?.int == 5)
        #expect(c.send(.get, "/v1/\(c.name("c/new"))").status == 200)
        #expect(c.send(.get, "/v1/\(c.name("c/none"))").status == 404)
    }

    @Test func valueJSONRoundTripsSpecialNumbersAndBytes() {
        c.set([("c/v", #"{"nan":{"doubleValue":"NaN"},"inf":{"doubleValue":"Infinity"},"negz":{"doubleValue":"-0"},"big":{"integer_value":"9223372036854775807"},"nul":{"nullValue":"NULL_VALUE"},"b":{"bytesValue":"3q2+7w=="},"e":{"arrayValue":{}},"m":{"mapValue":{}}}"#)])
        let got = c.send(.get, "/v1/\(c.name("c/v"))").json[member: "fields"]
        #expect(got?[member: "nan"]?[member: "doubleValue"]?.string == "NaN")
        #expect(got?[member: "inf"]?[member: "doubleValue"]?.string == "Infinity")
        #expect(got?[member: "big"]?[member: "integerValue"]?.string == "9223372036854775807")
        #expect(got?[member: "nul"]?[member: "nullValue"] == .null)
        #expect(got?[member: "b"]?[member: "bytesValue"]?.string == "3q2+7w==")
        #expect(got?[member: "e"] == .object([JSONMember("arrayValue", .object([]))]))
        #expect(got?[member: "negz"]?[member: "doubleValue"]?.string == "-0")
    }

}

extension String {
    /// Percent-encodes `+`, `/` and `=` of a base64 token for a query string.
    var replacingPlus: String {
        var out = ""
        for ch in self {
            switch ch {
            case "+": out += "%2B"
            case "/": out += "%2F"
            case "=": out += "%3D"
            default: out.append(ch)
            }
        }
        return out
    }
}
