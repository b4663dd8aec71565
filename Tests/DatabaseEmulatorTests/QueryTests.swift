import DatabaseEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

/// Query parameters over REST: orderings across types, ranges with key tie-breakers, limits, shallow.
@Suite struct QueryTests {
    /// Children whose `v` covers every type: missing, null-ish, false, true, numbers, strings, object.
    static let mixed = #"""
        {"a":{"v":"b"},"b":{"v":2},"c":{"v":true},"d":{"v":false},"e":{"x":1},"f":{"v":{"o":1}},
         "g":{"v":1.5},"h":{"v":"a"},"i":{"v":2},"j":{"v":-3}}
        """#

    /// Keys of the result object in the order the query ranks them.
    func keys(_ db: DatabaseTestClient, _ query: String, orderBy: (String, JSONValue) -> Void = { _, _ in }) -> [String] {
        guard case .object(let members)? = db.value("/m.json?ns=q&" + query) else { return [] }
        return members.map(\.name)
    }

    func setUp() -> DatabaseTestClient {
        let db = DatabaseTestClient()
        db.put("/m.json?ns=q", Self.mixed)
        return db
    }

    @Test func orderByChildLimitToFirstRanksAcrossTypes() {
        let db = setUp()
        // null (missing) < false < true < numbers < strings < objects; ties by key.
        let order = ["e", "d", "c", "j", "g", "b", "i", "h", "a", "f"]
        for n in 1...order.count {
            let got = keys(db, "orderBy=%22v%22&limitToFirst=\(n)")
            #expect(Set(got) == Set(order.prefix(n)), "limitToFirst=\(n)")
        }
        for n in 1...order.count {
            let got = keys(db, "orderBy=%22v%22&limitToLast=\(n)")
            #expect(Set(got) == Set(order.suffix(n)), "limitToLast=\(n)")
        }
    }

    @Test(arguments: [
        ("startAt=2", ["b", "i", "h", "a", "f"]),
        ("startAt=1.5&endAt=2", ["g", "b", "i"]),
        ("endAt=true", ["e", "d", "c"]),
        ("startAfter=2", ["h", "a", "f"]),
        ("endBefore=2", ["e", "d", "c", "j", "g"]),
        ("equalTo=2", ["b", "i"]),
        ("startAt=2,%22i%22", ["i", "h", "a", "f"]),
        ("startAfter=2,%22b%22", ["i", "h", "a", "f"]),
        ("endAt=2,%22b%22", ["e", "d", "c", "j", "g", "b"]),
        ("endBefore=2,%22i%22", ["e", "d", "c", "j", "g", "b"]),
        ("equalTo=null", ["e"]),
        ("startAt=%22a%22", ["h", "a", "f"]),
        ("startAt=3.5", ["h", "a", "f"]),
        ("endAt=5", ["e", "d", "c", "j", "g", "b", "i"]),
        ("equalTo=2&limitToLast=1", ["i"]),
    ])
    func rangesUseTheGlobalCrossTypeOrder(query: String, expected: [String]) {
        let db = setUp()
        #expect(Set(keys(db, "orderBy=%22v%22&" + query)) == Set(expected))
    }

    @Test func orderByKeyUsesIntegerKeyOrder() {
        let db = DatabaseTestClient()
        db.put("/m.json?ns=q", #"{"b":1,"10":1,"2":1,"a":1,"-1":1,"007":1,"7":1}"#)
        // Result objects come back in key order: -1, 2, 7, 007, 10, a, b
        #expect(keys(db, "orderBy=%22$key%22") == ["-1", "2", "7", "007", "10", "a", "b"])
        #expect(keys(db, "orderBy=%22$key%22&limitToFirst=3") == ["-1", "2", "7"])
        #expect(keys(db, "orderBy=%22$key%22&startAt=%2210%22") == ["10", "a", "b"])
        #expect(keys(db, "orderBy=%22$key%22&startAfter=%2210%22&limitToFirst=1") == ["a"])
        #expect(keys(db, "orderBy=%22$key%22&endBefore=%227%22") == ["-1", "2"])
        #expect(keys(db, "orderBy=%22$key%22&equalTo=%22007%22") == ["007"])
    }

    @Test func orderByValue() {
        let db = DatabaseTestClient()
        db.put("/m.json?ns=q", #"{"a":3,"b":"x","c":1,"d":true,"e":2}"#)
        #expect(Set(keys(db, "orderBy=%22$value%22&limitToFirst=2")) == ["d", "c"])
        #expect(Set(keys(db, "orderBy=%22$value%22&startAt=2&endAt=3")) == ["e", "a"])
        #expect(Set(keys(db, "orderBy=%22$value%22&limitToLast=1")) == ["b"])
    }

    @Test func orderByPriority() {
        let db = DatabaseTestClient()
        db.put(
            "/m.json?ns=q",
            #"{"a":{".value":1,".priority":"z"},"b":{".value":1,".priority":5},"c":{".value":1},"d":{"x":1,".priority":1}}"#)
        #expect(Set(keys(db, "orderBy=%22$priority%22&limitToFirst=2")) == ["c", "d"])
        #expect(Set(keys(db, "orderBy=%22$priority%22&startAt=2")) == ["b", "a"])
        #expect(Set(keys(db, "orderBy=%22$priority%22&equalTo=%22z%22")) == ["a"])
    }

    @Test func orderByNestedChildPath() {
        let db = DatabaseTestClient()
        db.put("/m.json?ns=q", #"{"a":{"r":{"p":3}},"b":{"r":{"p":1}},"c":{"r":{"p":2}}}"#)
        #expect(Set(keys(db, "orderBy=%22r/p%22&limitToFirst=2")) == ["b", "c"])
        #expect(Set(keys(db, "orderBy=%22r/p%22&startAt=2")) == ["a", "c"])
    }

    @Test func shallowReturnsTrueForEachChildAndPrimitivesAsIs() {
        let db = DatabaseTestClient()
        db.put("/.json?ns=q", #"{"dinosaurs":{"a":{"b":1}},"scores":{"x":1},"leaf":5}"#)
        #expect(db.value("/.json?ns=q&shallow=true") == j(#"{"dinosaurs":true,"leaf":true,"scores":true}"#))
        #expect(db.value("/leaf.json?ns=q&shallow=true") == .int(5))
    }

    @Test func shallowLimitToFirstWithoutOrderByPagesByKey() {
        let db = DatabaseTestClient()
        db.put("/m.json?ns=q", #"{"c":{"x":1},"a":{"x":1},"b":{"x":1}}"#)
        #expect(db.value("/m.json?ns=q&shallow=true&limitToFirst=2") == j(#"{"a":true,"b":true}"#))
        #expect(db.value("/m.json?ns=q&shallow=true&limitToFirst=2&startAfter=a") == j(#"{"b":true,"c":true}"#))
        #expect(db.value("/m.json?ns=q&shallow=true&limitToFirst=1&timeout=100ms") == j(#"{"a":true}"#))
    }

    @Test func queryResultsWithIndexKeysRenderAsArrays() {
        let db = DatabaseTestClient()
        db.put("/m.json?ns=q", "[10, 20, 30, 40]")
        #expect(db.value("/m.json?ns=q&orderBy=%22$value%22&limitToFirst=2") == j("[10, 20]"))
        #expect(db.value("/m.json?ns=q&orderBy=%22$value%22&limitToLast=2") == j("[null, null, 30, 40]"))
    }

    @Test func filtersOnALeafGiveNull() {
        let db = DatabaseTestClient()
        db.put("/m.json?ns=q", "5")
        #expect(db.value("/m.json?ns=q&orderBy=%22$key%22&limitToFirst=1") == .null)
        #expect(db.value("/m.json?ns=q&orderBy=%22$key%22") == .int(5))
    }
}
