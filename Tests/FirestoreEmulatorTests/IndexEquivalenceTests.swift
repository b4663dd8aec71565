import EmulatorStorage
import EmulatorHTTP
import EmulatorSupport
import Testing
@testable import FirestoreEmulator

/// Queries narrowed through equality indexes answer exactly what a plain scan answers.
@Suite struct IndexEquivalenceTests {
    struct SplitMix {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    static func value(_ rng: inout SplitMix) -> String? {
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
        var rng = SplitMix(state: UInt64(seed))
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
        let snapshot = try? indexed.emulator.service.store.engine.snapshot()
        #expect(snapshot?.hasIndex("firestore/demo/(default)", "firestore-eq|r|city") == true)
        #expect(snapshot?.hasIndex("firestore/demo/(default)", "firestore-ord|r|city|score") == true)
        #expect(snapshot?.hasIndex("firestore/demo/(default)", "firestore-ord|r||score") == true)
        // Writes after the index exists keep it current.
        indexed.set([("r/d0", #"{"city":{"integerValue":"77"},"score":{"integerValue":"1"}}"#)])
        let moved = indexed.query(#"{"from":[{"collectionId":"r"}],"where":{"fieldFilter":{"field":{"fieldPath":"city"},"op":"EQUAL","value":{"integerValue":"77"}}}}"#)
        #expect(moved.ids == ["r/d0"])
    }
}
