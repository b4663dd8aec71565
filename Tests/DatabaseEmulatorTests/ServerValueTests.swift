import DatabaseEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

/// Server values, priorities, the export format and the array rule.
@Suite struct ServerValueTests {
    @Test func timestampResolvesToServerTime() {
        let db = DatabaseTestClient(now: 1_234_567)
        let r = db.put("/t.json?ns=s", #"{"at":{".sv":"timestamp"},"n":{"deep":{".sv":"timestamp"}}}"#)
        #expect(json(r) == j(#"{"at":1234567,"n":{"deep":1234567}}"#))
        #expect(db.value("/t.json?ns=s") == j(#"{"at":1234567,"n":{"deep":1234567}}"#))
    }

    @Test func incrementAddsToTheCurrentValue() {
        let db = DatabaseTestClient()
        db.put("/c.json?ns=s", #"{".sv":{"increment":5}}"#)
        #expect(db.value("/c.json?ns=s") == .int(5))
        db.put("/c.json?ns=s", #"{".sv":{"increment":2}}"#)
        #expect(db.value("/c.json?ns=s") == .int(7))
        db.put("/c.json?ns=s", #"{".sv":{"increment":0.5}}"#)
        #expect(db.value("/c.json?ns=s") == .double(7.5))
        db.put("/s.json?ns=s", #""text""#)
        db.put("/s.json?ns=s", #"{".sv":{"increment":3}}"#)
        #expect(db.value("/s.json?ns=s") == .int(3))
        db.put("/big.json?ns=s", "9223372036854775807")
        db.put("/big.json?ns=s", #"{".sv":{"increment":1}}"#)
        #expect(db.value("/big.json?ns=s") == .double(9_223_372_036_854_775_808.0))
    }

    @Test func serverValuesInsideMultiPathPatch() {
        let db = DatabaseTestClient(now: 99)
        db.put("/p.json?ns=s", #"{"a":{"n":1},"b":10}"#)
        let r = db.patch("/p.json?ns=s", #"{"a/n":{".sv":{"increment":1}},"b":{".sv":{"increment":-4}},"t":{".sv":"timestamp"}}"#)
        #expect(json(r) == j(#"{"a/n":2,"b":6,"t":99}"#))
        #expect(db.value("/p.json?ns=s") == j(#"{"a":{"n":2},"b":6,"t":99}"#))
    }

    @Test func prioritiesAndExportFormat() {
        let db = DatabaseTestClient()
        db.put("/p.json?ns=s", #"{"a":{".value":"Tom",".priority":1.5},"b":{"x":1,".priority":"hi"},"c":3}"#)
        #expect(db.value("/p.json?ns=s") == j(#"{"a":"Tom","b":{"x":1},"c":3}"#))
        #expect(
            db.value("/p.json?ns=s&format=export")
                == j(#"{"a":{".value":"Tom",".priority":1.5},"b":{"x":1,".priority":"hi"},"c":3}"#))
        #expect(db.value("/p/a/.priority.json?ns=s") == .double(1.5))
        db.put("/p/c/.priority.json?ns=s", "7")
        #expect(db.value("/p/c.json?ns=s&format=export") == j(#"{".value":3,".priority":7}"#))
        db.put("/nothing/.priority.json?ns=s", "7")
        #expect(db.value("/nothing.json?ns=s&format=export") == .null)
    }

    @Test func arraysAreStoredAsObjectsAndRenderedByTheDensityRule() {
        let db = DatabaseTestClient()
        db.put("/a.json?ns=s", #"[1,null,3]"#)
        #expect(db.value("/a.json?ns=s") == j("[1,null,3]"))
        #expect(db.value("/a.json?ns=s&format=export") == j(#"{"0":1,"2":3}"#))
        #expect(db.value("/a/2.json?ns=s") == .int(3))
        db.put("/b.json?ns=s", #"["a","b","c","d","e"]"#)
        db.delete("/b/0.json?ns=s")
        db.delete("/b/1.json?ns=s")
        db.delete("/b/3.json?ns=s")
        #expect(db.value("/b.json?ns=s") == j(#"{"2":"c","4":"e"}"#))
        db.put("/c.json?ns=s", #"{"0":"x","01":"y"}"#)
        #expect(db.value("/c.json?ns=s") == j(#"{"0":"x","01":"y"}"#))
    }
}

@Suite struct PatchPriorityTests {
    @Test func patchCanSetAChildPriority() {
        let db = DatabaseTestClient()
        db.put("/p.json?ns=s", #"{"a":1,"b":{"c":2}}"#)
        #expect(db.patch("/p.json?ns=s", #"{"a/.priority":5,"b/.priority":"x"}"#).status.code == 200)
        #expect(db.value("/p.json?ns=s&format=export") == j(#"{"a":{".value":1,".priority":5},"b":{"c":2,".priority":"x"}}"#))
        #expect(db.patch("/p.json?ns=s", #"{"a/.priority":{"x":1}}"#).status.code == 400)
    }
}
