import EmulatorSupport

/// JSON codec throughput on ~50 MB of small documents shaped
/// `{"name", "age", "city", "score", "tags": [2]}`: five fields and a two-string array, a typical
/// small document.
///
/// Prints parse and serialise MB/s for one large array document and for per-document calls
/// (the request-body case). Foundation-free.
func runJSONBenchmark() {
    let cities = ["Paris", "Tokyo", "São Paulo", "Zürich", "New York", "Lagos", "Montréal", "Oslo"]
    let tagPool = ["alpha", "beta", "gamma", "delta", "x\"quoted\"", "naïve", "line\nbreak", "emoji 😀"]
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    // Build documents until the array's JSON reaches ~50 MB.
    var documents: [JSONValue] = []
    var approximateBytes = 0
    let targetBytes = 50_000_000
    while approximateBytes < targetBytes {
        let id = documents.count
        let document: JSONValue = .object([
            JSONMember("name", .string("user\(id)")),
            JSONMember("age", .int(Int64(next() % 90 + 10))),
            JSONMember("city", .string(cities[Int(next() % UInt64(cities.count))])),
            JSONMember("score", .double(Double(next() % 1_000_000) / 100)),
            JSONMember("tags", .array([
                .string(tagPool[Int(next() % UInt64(tagPool.count))]),
                .string(tagPool[Int(next() % UInt64(tagPool.count))]),
            ])),
        ])
        documents.append(document)
        approximateBytes += 85
    }
    let whole: JSONValue = .array(documents)
    let perDocument = documents.map { JSONWriter.encode($0) }
    let wholeBytes = JSONWriter.encode(whole)
    let megabytes = Double(wholeBytes.count) / 1_000_000
    print("json: \(documents.count) documents, \(formatted(megabytes)) MB")

    func measure(_ name: String, repetitions: Int = 3, _ body: () -> Int) {
        var best = UInt64.max
        var check = 0
        for _ in 0..<repetitions {
            let start = MonotonicClock.nanoseconds()
            check &+= body()
            best = min(best, MonotonicClock.nanoseconds() - start)
        }
        let seconds = Double(best) / 1e9
        print("json: \(name): \(formatted(megabytes / seconds)) MB/s (\(formatted(seconds * 1000)) ms, check \(check % 10))")
    }

    measure("parse whole array") {
        switch try? JSONReader.parse(wholeBytes) {
        case .array(let elements)?: return elements.count
        default: return -1
        }
    }
    measure("parse per document") {
        var count = 0
        for bytes in perDocument {
            if case .object(let members)? = try? JSONReader.parse(bytes) { count &+= members.count }
        }
        return count
    }
    measure("serialize whole array") {
        JSONWriter.encode(whole).count
    }
    measure("serialize per document") {
        var count = 0
        for document in documents { count &+= JSONWriter.encode(document).count }
        return count
    }
    measure("serialize streaming (no tree)") {
        var writer = JSONWriter()
        writer.bytes.reserveCapacity(wholeBytes.count)
        writer.beginArray()
        for index in 0..<documents.count {
            writer.beginObject()
            writer.appendKey("name"); writer.appendString("user\(index)")
            writer.appendKey("age"); writer.appendInt(Int64(index % 90))
            writer.appendKey("city"); writer.appendString(cities[index % cities.count])
            writer.appendKey("score"); writer.appendDouble(Double(index % 100_000) / 100)
            writer.appendKey("tags"); writer.beginArray()
            writer.appendString(tagPool[index % tagPool.count]); writer.appendString(tagPool[(index + 3) % tagPool.count])
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        return writer.bytes.count
    }
}

private func formatted(_ value: Double) -> String {
    let scaled = Int64((value * 10).rounded())
    return "\(scaled / 10).\(scaled % 10)"
}
