import DatabaseEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

/// Rules see priorities: `getPriority()` on `data`, `newData` and `root` snapshots.
@Suite struct PriorityRulesTests {
    static let rules = #"""
        {"rules": {
          "ranked": {"$id": {
            ".read": "data.getPriority() != null && data.getPriority() < 10",
            ".write": "newData.getPriority() == null || newData.getPriority() > data.getPriority() || !data.exists()"
          }},
          "gate": {".write": "root.child('ranked/a').getPriority() == 5"}
        }}
        """#

    func client() -> DatabaseTestClient {
        let db = DatabaseTestClient()
        db.put("/.settings/rules.json?ns=p", Self.rules, headers: DatabaseTestClient.owner)
        db.put("/ranked.json?ns=p", #"{"a":{".value":"x",".priority":5},"b":{"n":1,".priority":50}}"#, headers: DatabaseTestClient.owner)
        return db
    }

    @Test func dataGetPriorityDecidesReads() {
        let db = client()
        #expect(db.get("/ranked/a.json?ns=p").status.code == 200)
        #expect(db.get("/ranked/b.json?ns=p").status.code == 401)
    }

    @Test func newDataGetPrioritySeesTheWrittenPriority() {
        let db = client()
        #expect(db.put("/ranked/a.json?ns=p", #"{".value":"y",".priority":4}"#).status.code == 401)
        #expect(db.put("/ranked/a.json?ns=p", #"{".value":"y",".priority":6}"#).status.code == 200)
        // The priority URL and a PATCH `.priority` key are checked as writes of their node.
        #expect(db.put("/ranked/a/.priority.json?ns=p", "3").status.code == 401)
        #expect(db.put("/ranked/a/.priority.json?ns=p", "7").status.code == 200)
        #expect(db.patch("/ranked.json?ns=p", #"{"a/.priority":1}"#).status.code == 401)
        #expect(db.patch("/ranked.json?ns=p", #"{"a/.priority":8}"#).status.code == 200)
        #expect(db.value("/ranked/a.json?ns=p&format=export&access_token=owner") == j(#"{".value":"y",".priority":8}"#))
    }

    @Test func rootGetPrioritySeesPriorities() {
        let db = client()
        #expect(db.put("/gate.json?ns=p", "1").status.code == 200)
        db.put("/ranked/a/.priority.json?ns=p", "6", headers: DatabaseTestClient.owner)
        #expect(db.put("/gate.json?ns=p", "2").status.code == 401)
    }
}
