import EmulatorModel
import Testing

@testable import SecurityRules

@Test("Stored Firestore values convert to their rules types")
func modelValuesConvert() {
    let fields: ValueMap = [
        "n": .integer(3), "f": .double(1.5), "t": .timestamp(Timestamp(seconds: 86_400, nanos: 0)),
        "g": .geoPoint(latitude: 1, longitude: 2), "r": .reference("projects/p/databases/(default)/documents/a/b"),
        "l": .array([.boolean(true), .null]), "m": .map(["s": .string("x")]), "b": .bytes([1, 2]),
    ]
    let document = RulesDocument(name: "projects/p/databases/(default)/documents/c/d", fields: fields)
    var data = MemoryFirestoreData()
    data.before["c/d"] = document.data
    let rules = try? FirestoreRuleset.parse("""
        service cloud.firestore { match /databases/{database}/documents { match /c/{id} {
          allow get: if resource.data.n is int && resource.data.f is float && resource.data.t.day() == 2
            && resource.data.g.longitude() == 2 && resource.data.r == /databases/(default)/documents/a/b
            && resource.data.l == [true, null] && resource.data.m.s == 'x' && resource.data.b.size() == 2;
        } } }
        """, fileName: "m.rules").get()
    let request = FirestoreRulesRequest(method: .get, path: document.name, time: RulesTimestamp(seconds: 0, nanos: 0), resource: document)
    #expect(rules?.evaluate(request, data: data).isAllowed == true)
}
