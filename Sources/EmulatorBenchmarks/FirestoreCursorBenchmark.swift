import EmulatorHTTP
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import FirestoreEmulator

/// RunQuery through the query cursor against the whole-result path, in the same run, over 100k
/// documents `{city, score, name, active}` (quick: 20k): for a query ordered by name (every
/// document), one with an equality filter (through its index) and one sorted on a field, the
/// time to read every answer and the most decoded documents held at once.
///
/// - whole: `FirestoreService.runQuery`, the result decoded and held whole (not encoded);
/// - cursor: `openQuery(…).collect()`, the same documents made one at a time (not encoded);
/// - REST: the paced runQuery answer taken whole, encoded too.
func runFirestoreCursorBenchmark(quick: Bool) {
    let probe = QueryCursorProbe()
    let service = FirestoreService(store: DocumentStore(engine: StorageEngine()), cursorProbe: probe)
    let emulator = FirestoreEmulator(service: service, configuration: .init(projectID: "bench"))
    let db = DatabaseID(project: "bench", database: "(default)")
    let root = "projects/bench/databases/(default)/documents"
    let count = quick ? 20_000 : 100_000
    var i = 0
    while i < count {
        var writes: [Write] = []
        for j in i..<(i + 500) {
            guard let name = try? DocumentName.document("\(root)/cities/d\(j)") else { return }
            let fields: ValueMap = [
                "city": .string("city\(j % 100)"), "score": .integer(Int64((j &* 7919) % 100_000)),
                "name": .string("user \(j)"), "active": .boolean(j % 3 == 0),
            ]
            writes.append(Write(.update(name, fields: fields, mask: nil)))
        }
        do { _ = try service.commit(db, writes: writes) } catch {
            print("load failed: \(error)")
            return
        }
        i += 500
    }
    let queries = [
        ("by name", #"{"from":[{"collectionId":"cities"}]}"#),
        ("city == x", #"{"from":[{"collectionId":"cities"}],"where":{"fieldFilter":{"field":{"fieldPath":"city"},"op":"EQUAL","value":{"stringValue":"city7"}}}}"#),
        ("orderBy score", #"{"from":[{"collectionId":"cities"}],"orderBy":[{"field":{"fieldPath":"score"}}]}"#),
    ]
    for (label, json) in queries {
        guard let query = try? FirestoreREST.structuredQuery(json: json) else {
            print("bad query \(json)")
            return
        }
        var whole: [Double] = []
        var cursor: [Double] = []
        var rest: [Double] = []
        var n = (0, 0)
        var peak = (whole: 0, cursor: 0)
        for _ in 0..<3 {
            var t0 = MonotonicClock.nanoseconds()
            let result = try? service.runQuery(db, parent: ResourcePath(), query: query)
            whole.append(Double(MonotonicClock.nanoseconds() - t0) / 1e6)
            n.0 = result?.documents.count ?? -1
            peak.whole = n.0
            t0 = MonotonicClock.nanoseconds()
            let documents = (try? service.openQuery(db, parent: ResourcePath(), query: query))?.collect()
            cursor.append(Double(MonotonicClock.nanoseconds() - t0) / 1e6)
            n.1 = documents?.count ?? -1
            t0 = MonotonicClock.nanoseconds()
            let body = Array(#"{"structuredQuery":\#(json)}"#.utf8)
            let r = emulator.router.respond(to: HTTPRequest(method: .post, target: "/v1/\(root):runQuery", body: body)).resolved()
            rest.append(Double(MonotonicClock.nanoseconds() - t0) / 1e6)
            if r.status.code != 200 { print("runQuery failed: \(r.status.code)") }
        }
        peak.cursor = probe.peakHeld
        whole.sort()
        cursor.sort()
        rest.sort()
        print(
            "firestore cursor \(label) over \(count): \(n.0)/\(n.1) documents; whole \(fmt(whole[1])) ms holding \(peak.whole), "
                + "cursor \(fmt(cursor[1])) ms holding at most \(peak.cursor) (all runs so far), REST answer \(fmt(rest[1])) ms")
    }
}

private func fmt(_ x: Double) -> String {
    let r = (x * 10).rounded() / 10
    return String(r)
}
