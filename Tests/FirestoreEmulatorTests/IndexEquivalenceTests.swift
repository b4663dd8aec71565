import EmulatorStorage
import EmulatorHTTP
import EmulatorSupport
import EmulatorTestSupport
import Testing
@testable import FirestoreEmulator

/// Queries narrowed through equality indexes answer exactly what a plain scan answers.
@Suite struct IndexEquivalenceTests {
    static func value(_ rng: inout SeededGenerator) -> String? {
        switch rng.next(6) {
        case 0: return nil
        case 1: return #"{"integerValue":"\#(rng.next(5))"}"#
        case 2: return #"{"doubleValue":\#(Double(rng.next(5)))}"#
        case 3: return #"{"stringValue":"s\#(rng.next(3))"}"#
        case 4: return #"{"nullValue":null}"#
        default: return #"{"doubleValue":"NaN"}"#
        }
    }

    @Test(arguments: [1, 2, 3])
    func randomQueriesAgree(seed: Int) {
        var rng = SeededGenerator(seed: UInt64(seed))
        let indexed = FirestoreTestClient(useIndexes: true)
        let scanned = FirestoreTestClient(useIndexes: false)
        var docs: [(String, String)] = []
        for i in 0..<120 {
            var fields: [String] = []
            if let v = Self.value(&rng) { fields.append(#""city":\#(v)"#) }
            if let v = Self.value(&rng) { fields.append(#""score":\#(v)"#) }
            docs.append(("r/d\(i)", "{" + fields.joined(separator: ",") + "}"))
        }
        indexed.set(docs)
        scanned.set(docs)
        for _ in 0..<90 {
            guard let v = Self.value(&rng) else { continue }
            let direction = rng.next(2) == 0 ? "ASCENDING" : "DESCENDING"
            var parts = [#""from":[{"collectionId":"r"}]"#]
            if rng.next(4) != 0 {
                parts.append(#""where":{"fieldFilter":{"field":{"fieldPath":"city"},"op":"EQUAL","value":\#(v)}}"#)
            }
            if rng.next(4) != 0 {
                parts.append(#""orderBy":[{"field":{"fieldPath":"score"},"direction":"\#(direction)"}]"#)
                if rng.next(2) == 0, let c = Self.value(&rng) {
                    parts.append(#""startAt":{"values":[\#(c)],"before":\#(rng.next(2) == 0)}"#)
                }
            }
            if rng.next(4) != 0 { parts.append(#""limit":\#(1 + rng.next(10))"#) }
            if rng.next(3) == 0 { parts.append(#""offset":\#(rng.next(4))"#) }
            let q = "{" + parts.joined(separator: ",") + "}"
            let a = indexed.query(q)
            let b = scanned.query(q)
            #expect(a.status == 200)
            #expect(a.ids == b.ids, "\(q)")
        }
        // A second database gets its own indexes.
        let other = #"{"structuredQuery":{"from":[{"collectionId":"r"}],"where":{"fieldFilter":{"field":{"fieldPath":"city"},"op":"EQUAL","value":{"integerValue":"1"}}}}}"#
        #expect(indexed.send(.post, "/v1/projects/demo/databases/second/documents:runQuery", other).status == 200)
        let snapshot = try? indexed.emulator.service.store.engine.snapshot()
        #expect(snapshot?.hasIndex("firestore/demo/second", "firestore-eq|r|city") == true)
        #expect(snapshot?.hasIndex("firestore/demo/(default)", "firestore-eq|r|city") == true)
        #expect(snapshot?.hasIndex("firestore/demo/(default)", "firestore-ord|r|city|score") == true)
        #expect(snapshot?.hasIndex("firestore/demo/(default)", "firestore-ord|r||score") == true)
        // Writes after the index exists keep it current.
        indexed.set([("r/d0", #"{"city":{"integerValue":"77"},"score":{"integerValue":"1"}}"#)])
        let moved = indexed.query(#"{"from":[{"collectionId":"r"}],"where":{"fieldFilter":{"field":{"fieldPath":"city"},"op":"EQUAL","value":{"integerValue":"77"}}}}"#)
        #expect(moved.ids == ["r/d0"])
    }

    @Test(arguments: [4, 5])
    func collectionGroupsAgree(seed: Int) {
        var rng = SeededGenerator(seed: UInt64(seed))
        let indexed = FirestoreTestClient(useIndexes: true)
        let scanned = FirestoreTestClient(useIndexes: false)
        let ids = ["g", "h", "gg", "g_x"]
        func randomPath() -> String {
            var segments: [String] = []
            for _ in 0..<(1 + rng.next(3)) {
                segments.append(ids[rng.next(ids.count)])
                segments.append("d\(rng.next(4))")
            }
            return segments.joined(separator: "/")
        }
        for round in 0..<3 {
            var docs: [(String, String)] = []
            for _ in 0..<60 { docs.append((randomPath(), #"{"r":{"integerValue":"\#(round)"}}"#)) }
            indexed.set(docs)
            scanned.set(docs)
            let deletes = (0..<10).map { _ in #"{"delete":"\#(indexed.name(randomPath()))"}"# }.joined(separator: ",")
            #expect(indexed.post(":commit", #"{"writes":[\#(deletes)]}"#).status == 200)
            #expect(scanned.post(":commit", #"{"writes":[\#(deletes)]}"#).status == 200)
            for group in ["g", "h", "gg", "none"] {
                for parent in ["", "/g/d1", "/h/d2/g/d0"] {
                    let q = #"{"from":[{"collectionId":"\#(group)","allDescendants":true}]}"#
                    let a = indexed.query(q, parent: parent)
                    let b = scanned.query(q, parent: parent)
                    #expect(a.status == 200)
                    #expect(a.ids == b.ids, "group \(group) under \(parent)")
                }
            }
        }
        let snapshot = try? indexed.emulator.service.store.engine.snapshot()
        #expect(snapshot?.hasIndex("firestore/demo/(default)", "firestore-group|g") == true)
    }
}

extension SeededGenerator {
    /// A draw below `bound` (modulo: the small bias does not matter here).
    fileprivate mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
