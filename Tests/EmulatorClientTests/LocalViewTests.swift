@testable import EmulatorClient
import EmulatorModel
import EmulatorSupport
import Testing

/// The pure parts of latency compensation: local mutations, the write table's overlay, local
/// query matching (Firestore) and the sync tree (Realtime Database).
@Suite struct LocalViewTests {
    let db = Firestore(projectID: "p")

    @Test func writesCarryTheirLocalMutations() throws {
        let set = try WriteOperation.set(db.document("a/b"), ["x": FieldData(any: 1)], merge: false)
        let update = try WriteOperation.update(db.document("a/b"), ["m.y": "two"])
        let delete = WriteOperation.delete(db.document("a/b"))
        let (s, u, d) = (set.local, update.local, delete.local)
        #expect(s.path == "a/b" && u.path == "a/b" && d.path == "a/b")
        let afterSet = s.apply(to: nil)
        #expect(afterSet?.value(at: ModelFieldPath(["x"])) == .integer(1))
        let afterUpdate = u.apply(to: afterSet)
        #expect(afterUpdate?.value(at: ModelFieldPath(["m", "y"])) == .string("two"))
        #expect(afterUpdate?.value(at: ModelFieldPath(["x"])) == .integer(1))
        #expect(u.apply(to: nil) == nil)  // an update of a missing document changes nothing
        #expect(d.apply(to: afterUpdate) == nil)
    }

    @Test func transformsAreEstimatedLocally() throws {
        let write = try WriteOperation.update(
            db.document("a/b"),
            [
                "n": FieldValue.increment(Int64(2)), "f": FieldValue.increment(0.5), "top": FieldValue.maximum(Int64(7)),
                "tags": FieldValue.arrayUnion(["x", "y"]), "gone": FieldValue.arrayRemove([1]),
                "at": FieldValue.serverTimestamp(), "plain": "v",
            ])
        let m = write.local
        var before = ValueMap()
        before.setValue(.integer(40), at: ModelFieldPath(["n"]))
        before.setValue(.string("not a number"), at: ModelFieldPath(["f"]))
        before.setValue(.integer(3), at: ModelFieldPath(["top"]))
        before.setValue(.array([.string("x")]), at: ModelFieldPath(["tags"]))
        before.setValue(.array([.integer(1), .integer(2), .integer(1)]), at: ModelFieldPath(["gone"]))
        before.setValue(.timestamp(Timestamp(microseconds: 5)), at: ModelFieldPath(["at"]))
        let after = try #require(m.apply(to: before))
        func field(_ name: String) -> Value? { after.value(at: ModelFieldPath([name])) }
        #expect(field("n") == .integer(42))
        #expect(field("f") == .double(0.5))  // not a number: the operand
        #expect(field("top") == .integer(7))
        #expect(field("tags") == .array([.string("x"), .string("y")]))
        #expect(field("gone") == .array([.integer(2)]))
        #expect(field("at") == .null)  // a pending server timestamp reads as null, as in the Apple SDK
        #expect(field("plain") == .string("v"))
        #expect(m.apply(to: nil) == nil)  // an update of a missing document stays missing
    }

    @Test func acknowledgedWritesStayUntilTheStreamPassesTheirCommit() {
        let table = LocalWriteTable()
        let id = table.add([.set(path: "a/b", fields: ValueMap([("n", .integer(1))]))])
        #expect(table.pendingCount == 1)
        #expect(table.overlay(readTime: nil) { _ in nil }["a/b"]?.pending == true)
        table.acknowledge(id, commitTime: 100)
        #expect(table.pendingCount == 0)
        let early = table.overlay(readTime: 50) { _ in nil }
        #expect(early["a/b"]?.pending == false && early["a/b"]?.fields != nil)
        #expect(table.overlay(readTime: 100) { _ in nil }.isEmpty)
        let refused = table.add([.delete(path: "a/c")])
        #expect(table.overlay(readTime: 100) { _ in ValueMap() }["a/c"]?.fields == nil)
        table.reject(refused)
        #expect(table.overlay(readTime: 100) { _ in nil }.isEmpty)
    }

    @Test func queriesMatchLocalDocumentsByCollectionFiltersAndOrderFields() {
        let query = db.collection("books").whereField("pages", isGreaterThan: 10).order(by: "pages")
        func doc(_ path: String, _ fields: [(String, Value)]?) -> DocumentSnapshot {
            DocumentSnapshot(reference: db.document(path), fields: fields.map { ValueMap($0) })
        }
        #expect(query.matchesLocally(doc("books/a", [("pages", .integer(11))])))
        #expect(!query.matchesLocally(doc("books/a", [("pages", .integer(3))])))
        #expect(!query.matchesLocally(doc("books/a", [("pages", .string("many"))])))  // ranges compare one kind
        #expect(!query.matchesLocally(doc("books/a", [("title", .string("x"))])))
        #expect(!query.matchesLocally(doc("other/a", [("pages", .integer(11))])))
        #expect(!query.matchesLocally(doc("books/a/sub/b", [("pages", .integer(11))])))
        let group = db.collectionGroup("sub").whereField("tag", in: ["x", "y"])
        #expect(group.matchesLocally(doc("books/a/sub/b", [("tag", .string("y"))])))
        #expect(!group.matchesLocally(doc("books/a/sub/b", [("tag", .string("z"))])))
    }

    @Test func theSyncTreeLaysWritesOverServerData() throws {
        var node = try DatabaseNode(json: JSONReader.parse(Array(#"{"a": 1, "b": {"c": 2}}"#.utf8)))
        DatabaseSyncTree.apply([(["room", "b", "c"], .int(3))], to: &node, base: ["room"], now: nil)
        #expect(node.child(at: DatabasePath(keys: ["b", "c"])).leafValue == .int(3))
        DatabaseSyncTree.apply([([], .object([JSONMember("room", .object([JSONMember("z", .bool(true))]))]))], to: &node, base: ["room"], now: nil)
        #expect(node.children.map(\.key) == ["z"])
        let increment = JSONValue.object([JSONMember(".sv", .object([JSONMember("increment", .int(2))]))])
        let write = DatabaseLocalWrite(id: 1, sets: [(["room", "z"], increment), (["room", "t"], .object([JSONMember(".sv", .string("timestamp"))]))])
        let server = try DatabaseNode(json: JSONReader.parse(Array(#"{"z": 5}"#.utf8)))
        let shown = DatabaseSyncTree.overlay(server, base: ["room"], writes: [write])
        #expect(shown.child(at: DatabasePath(keys: ["z"])).leafValue == .int(7))
        if case .int(let t)? = shown.child(at: DatabasePath(keys: ["t"])).leafValue { #expect(t > 1_700_000_000_000) } else {
            Issue.record("no local timestamp")
        }
        #expect(DatabaseSyncTree.covers([write], ["room", "z"]) && !DatabaseSyncTree.covers([write], ["room"]))
    }

    @Test func wireQueriesSpellTheQuery() throws {
        let database = Database(url: "http://127.0.0.1:1?ns=x")
        let ref = database.reference(withPath: "scores")
        #expect(ref.params.wire == nil)
        let top = ref.queryOrdered(byChild: "points").queryStarting(afterValue: 10).queryLimited(toLast: 3)
        #expect(top.params.wire == .object([
            JSONMember("i", .string("points")), JSONMember("sp", .int(10)), JSONMember("sin", .bool(false)),
            JSONMember("l", .int(3)), JSONMember("vf", .string("r")),
        ]))
        // Ordering alone shares the location's default listen.
        #expect(ref.queryOrderedByValue().params.listenParams == DatabaseQueryParams())
        #expect(top.params.listenParams == top.params)
    }
}
