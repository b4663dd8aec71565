import EmulatorHTTP
import EmulatorSupport
import Testing

/// A fixed data set and a table of structured queries with the exact result order production gives.
@Suite struct QueryTableTests {
    static let data: [(String, String)] = [
        ("q/a", #"{"n":{"integerValue":"1"},"s":{"stringValue":"x"},"tags":{"arrayValue":{"values":[{"stringValue":"a"},{"stringValue":"b"}]}},"m":{"mapValue":{"fields":{"k":{"integerValue":"1"}}}}}"#),
        ("q/b", #"{"n":{"doubleValue":2.5},"s":{"stringValue":"y"},"tags":{"arrayValue":{"values":[{"stringValue":"b"}]}}}"#),
        ("q/c", #"{"n":{"integerValue":"-1"},"s":{"stringValue":"x"}}"#),
        ("q/d", #"{"n":{"stringValue":"str"}}"#),
        ("q/e", #"{"n":{"nullValue":null}}"#),
        ("q/f", #"{"n":{"doubleValue":"NaN"}}"#),
        ("q/g", #"{"s":{"stringValue":"z"}}"#),
        ("q/h", #"{"n":{"integerValue":"3"},"tags":{"arrayValue":{"values":[{"integerValue":"1"},{"doubleValue":3.0}]}}}"#),
        ("q/i", #"{"n":{"doubleValue":3.0},"s":{"stringValue":"x"}}"#),
        ("q/i/q/nested", #"{"n":{"integerValue":"100"}}"#),
        ("other/x/q/deep", #"{"n":{"integerValue":"7"}}"#),
        ("other/x/notq/z", #"{"n":{"integerValue":"8"}}"#),
        ("xq/y", #"{"n":{"integerValue":"9"}}"#),
    ]

    static let root = "projects/demo/databases/(default)/documents"

    static func ff(_ field: String, _ op: String, _ value: String) -> String {
        #"{"fieldFilter":{"field":{"fieldPath":"\#(field)"},"op":"\#(op)","value":\#(value)}}"#
    }
    static func uf(_ field: String, _ op: String) -> String {
        #"{"unaryFilter":{"op":"\#(op)","field":{"fieldPath":"\#(field)"}}}"#
    }
    static func cf(_ op: String, _ filters: String...) -> String {
        #"{"compositeFilter":{"op":"\#(op)","filters":[\#(filters.joined(separator: ","))]}}"#
    }
    static func q(_ parts: String...) -> String {
        #"{"from":[{"collectionId":"q"}]"# + parts.map { "," + $0 }.joined() + "}"
    }
    static func w(_ filter: String) -> String { #""where":\#(filter)"# }
    static func order(_ fields: (String, String)...) -> String {
        #""orderBy":["# + fields.map { #"{"field":{"fieldPath":"\#($0.0)"},"direction":"\#($0.1)"}"# }.joined(separator: ",") + "]"
    }
    static let int1 = #"{"integerValue":"1"}"#
    static let int3 = #"{"integerValue":"3"}"#
    static func ref(_ id: String) -> String { #"{"referenceValue":"\#(root)/q/\#(id)"}"# }
    static func arr(_ v: String...) -> String { #"{"arrayValue":{"values":[\#(v.joined(separator: ","))]}}"# }

    static let cases: [(String, String, [String])] = [
        ("no filter orders by name", q(), ["a", "b", "c", "d", "e", "f", "g", "h", "i"]),
        ("< stays in the number bracket (NaN first)", q(w(ff("n", "LESS_THAN", int3))), ["f", "c", "a", "b"]),
        ("> orders by the field then name", q(w(ff("n", "GREATER_THAN", int1))), ["b", "h", "i"]),
        (">= string bracket only", q(w(ff("n", "GREATER_THAN_OR_EQUAL", #"{"stringValue":"a"}"#))), ["d"]),
        ("== matches 3 and 3.0", q(w(ff("n", "EQUAL", #"{"doubleValue":3}"#))), ["h", "i"]),
        ("!= excludes missing and null, orders by n", q(w(ff("n", "NOT_EQUAL", int3))), ["f", "c", "a", "b", "d"]),
        ("in", q(w(ff("n", "IN", arr(int1, #"{"stringValue":"str"}"#)))), ["a", "d"]),
        ("not-in", q(w(ff("n", "NOT_IN", arr(int1, int3)))), ["f", "c", "b", "d"]),
        ("not-in with null matches nothing", q(w(ff("n", "NOT_IN", arr(#"{"nullValue":null}"#)))), []),
        ("IS_NULL", q(w(uf("n", "IS_NULL"))), ["e"]),
        ("IS_NAN", q(w(uf("n", "IS_NAN"))), ["f"]),
        ("IS_NOT_NULL orders by n", q(w(uf("n", "IS_NOT_NULL"))), ["f", "c", "a", "b", "h", "i", "d"]),
        ("IS_NOT_NAN", q(w(uf("n", "IS_NOT_NAN"))), ["c", "a", "b", "h", "i", "d"]),
        ("array-contains", q(w(ff("tags", "ARRAY_CONTAINS", #"{"stringValue":"b"}"#))), ["a", "b"]),
        ("array-contains 3 finds 3.0", q(w(ff("tags", "ARRAY_CONTAINS", int3))), ["h"]),
        ("array-contains-any", q(w(ff("tags", "ARRAY_CONTAINS_ANY", arr(#"{"stringValue":"a"}"#, int1)))), ["a", "h"]),
        ("order by excludes missing", q(order(("s", "ASCENDING"))), ["a", "c", "i", "b", "g"]),
        ("desc order: name tie-break desc", q(order(("s", "DESCENDING"))), ["g", "b", "i", "c", "a"]),
        ("order across type brackets", q(order(("n", "ASCENDING"))), ["e", "f", "c", "a", "b", "h", "i", "d"]),
        ("offset then limit", q(order(("n", "ASCENDING")), #""offset":1,"limit":2"#), ["f", "c"]),
        ("limit wrapper form", q(order(("n", "ASCENDING")), #""limit":{"value":1}"#), ["e"]),
        ("startAt inclusive", q(order(("n", "ASCENDING")), #""startAt":{"values":[\#(int1)],"before":true}"#), ["a", "b", "h", "i", "d"]),
        ("startAfter", q(order(("n", "ASCENDING")), #""startAt":{"values":[\#(int1)]}"#), ["b", "h", "i", "d"]),
        ("endAt inclusive", q(order(("n", "ASCENDING")), #""endAt":{"values":[\#(int3)]}"#), ["e", "f", "c", "a", "b", "h", "i"]),
        ("endBefore", q(order(("n", "ASCENDING")), #""endAt":{"values":[\#(int3)],"before":true}"#), ["e", "f", "c", "a", "b"]),
        ("cursor with name component", q(order(("n", "ASCENDING")), #""startAt":{"values":[\#(int3),\#(ref("h"))]}"#), ["i", "d"]),
        ("desc cursor", q(order(("n", "DESCENDING")), #""startAt":{"values":[\#(int3)],"before":true}"#), ["i", "h", "b", "a", "c", "f", "e"]),
        ("OR", q(w(cf("OR", ff("n", "EQUAL", int1), ff("s", "EQUAL", #"{"stringValue":"y"}"#)))), ["a", "b"]),
        ("AND with inequality", q(w(cf("AND", ff("s", "EQUAL", #"{"stringValue":"x"}"#), ff("n", "GREATER_THAN", #"{"integerValue":"0"}"#)))), ["a", "i"]),
        ("OR of inequalities orders by n", q(w(cf("OR", ff("n", "LESS_THAN", #"{"integerValue":"0"}"#), ff("n", "GREATER_THAN", #"{"doubleValue":2.9}"#)))), ["f", "c", "h", "i"]),
        ("nested field", q(w(ff("m.k", "EQUAL", int1))), ["a"]),
        ("__name__ range", q(w(ff("__name__", "GREATER_THAN", ref("g")))), ["h", "i"]),
        ("__name__ in", q(w(ff("__name__", "IN", arr(ref("c"), ref("a"))))), ["a", "c"]),
        ("__name__ desc limit", q(order(("__name__", "DESCENDING")), #""limit":3"#), ["i", "h", "g"]),
        ("multiple inequalities order lexicographically", q(w(cf("AND", ff("s", "GREATER_THAN", #"{"stringValue":"a"}"#), ff("n", "GREATER_THAN", #"{"integerValue":"0"}"#)))), ["a", "b", "i"]),
        ("explicit order then implicit inequality field", q(w(ff("n", "GREATER_THAN", #"{"integerValue":"0"}"#)), order(("s", "DESCENDING"))), ["b", "i", "a"]),
        ("inequality on a field and on __name__: name stays last", q(w(cf("AND", ff("n", "LESS_THAN", #"{"integerValue":"4"}"#), ff("__name__", "GREATER_THAN", ref("b"))))), ["f", "c", "h", "i"]),
        ("equality plus order plus limit", q(w(ff("s", "EQUAL", #"{"stringValue":"x"}"#)), order(("n", "DESCENDING")), #""limit":2"#), ["i", "a"]),
    ]

    @Test(arguments: cases, [true, false])
    func query(_ c: (String, String, [String]), useIndexes: Bool) {
        let client = FirestoreTestClient(useIndexes: useIndexes)
        client.set(Self.data)
        let r = client.query(c.1)
        #expect(r.status == 200, "\(c.0): \(r.response.text)")
        #expect(r.ids.map { String($0.dropFirst(2)) } == c.2, "\(c.0)")
    }

    /// gax REST clients (Node Admin with preferRest) ask for `enum-encoding=int` and send enums as numbers.
    @Test func enumsAsNumbers() {
        let client = FirestoreTestClient()
        client.set(Self.data)
        let q = #"{"from":[{"collectionId":"q"}],"where":{"compositeFilter":{"op":1,"filters":[{"fieldFilter":{"field":{"fieldPath":"n"},"op":3,"value":{"integerValue":"1"}}},{"unaryFilter":{"op":5,"field":{"fieldPath":"s"}}}]}},"orderBy":[{"field":{"fieldPath":"n"},"direction":2}]}"#
        #expect(client.query(q).ids == ["q/i", "q/b"])
        let t = client.post(":commit", #"{"writes":[{"transform":{"document":"\#(client.name("t/x"))","fieldTransforms":[{"fieldPath":"at","setToServerValue":1}]}}]}"#)
        #expect(t.status == 200)
    }

    @Test func collectionGroupAndKindlessQueries() {
        let client = FirestoreTestClient()
        client.set(Self.data)
        let group = client.query(#"{"from":[{"collectionId":"q","allDescendants":true}],"where":\#(Self.ff("n", "GREATER_THAN", #"{"integerValue":"5"}"#))}"#)
        #expect(group.ids == ["other/x/q/deep", "q/i/q/nested"])
        let under = client.query(#"{"from":[{"collectionId":"q","allDescendants":true}]}"#, parent: "/other/x")
        #expect(under.ids == ["other/x/q/deep"])
        let kindless = client.query(#"{"from":[{"allDescendants":true}]}"#, parent: "/other/x")
        #expect(kindless.ids == ["other/x/notq/z", "other/x/q/deep"])
        let child = client.query(#"{"from":[{"collectionId":"q"}]}"#, parent: "/q/i")
        #expect(child.ids == ["q/i/q/nested"])
    }

    @Test func selectProjectsFieldsAndNameOnly() {
        let client = FirestoreTestClient()
        client.set(Self.data)
        let r = client.query(Self.q(#""select":{"fields":[{"fieldPath":"m.k"}]}"#, Self.w(Self.ff("n", "EQUAL", Self.int1))))
        let doc = r.response.json.array?.first?[member: "document"]
        #expect(doc?[member: "fields"]?[member: "m"]?[member: "mapValue"]?[member: "fields"]?[member: "k"] != nil)
        #expect(doc?[member: "fields"]?[member: "n"] == nil)
        let names = client.query(Self.q(#""select":{"fields":[{"fieldPath":"__name__"}]}"#, #""limit":1"#))
        #expect(names.response.json.array?.first?[member: "document"]?[member: "fields"] == nil)
    }

    @Test func emptyResultStillAnswersReadTimeAndReportsSkipped() {
        let client = FirestoreTestClient()
        client.set(Self.data)
        let r = client.query(Self.q(#""offset":100"#))
        let items = r.response.json.array ?? []
        #expect(items.count == 1)
        #expect(items.first?[member: "readTime"]?.string != nil)
        #expect(items.first?[member: "skippedResults"]?.int == 9)
    }
}
