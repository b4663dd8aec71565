import EmulatorTestSupport
import Testing

@testable import EmulatorHTTP

/// A head whose field lines repeat the previous head's byte for byte takes that head's parsed
/// fields (``HTTP1RequestParser/RepeatedFields``). Whatever follows whatever, the parser must
/// report what ``ReferenceHTTP1RequestParser`` (which reads every head whole) reports, and take
/// the kept fields exactly when the bytes and the limits repeat.
@Suite struct RepeatedFieldsTests {
    static let fields = "Host: x\r\nAuthorization: Bearer owner\r\nContent-Type: application/json\r\nContent-Length: 3\r\n"

    /// Feeds each input in turn to one parser and returns the events and how many heads took
    /// kept fields.
    static func run(_ inputs: [String], limits: [HTTP1Limits]? = nil) -> (events: [String], repeated: Int) {
        var parser = HTTP1RequestParser()
        var events: [String] = []
        for (i, input) in inputs.enumerated() {
            if let limits { parser.limits = limits[i] }
            parser.append(Array(input.utf8))
            while let event = parser.next() { events.append(HeadParserAgreementTests.describe(event)) }
        }
        return (events, parser.repeatedFieldsCount)
    }

    static func runReference(_ inputs: [String], limits: [HTTP1Limits]? = nil) -> [String] {
        var parser = ReferenceHTTP1RequestParser(limits: HTTP1Limits())
        var events: [String] = []
        for (i, input) in inputs.enumerated() {
            if let limits { parser.limits = limits[i] }
            parser.append(Array(input.utf8))
            while let event = parser.next() { events.append(HeadParserAgreementTests.describe(event)) }
        }
        return events
    }

    @Test func repeatedFieldsAreTakenAndAgree() {
        let inputs = [
            "PATCH /v1/a HTTP/1.1\r\n" + Self.fields + "\r\nabc",
            "GET /v1/b?x=1 HTTP/1.1\r\n" + Self.fields + "\r\nxyz",
            "POST /c HTTP/1.0\r\n" + Self.fields + "\r\nuvw",
        ]
        let (events, repeated) = Self.run(inputs)
        #expect(events == Self.runReference(inputs))
        #expect(events.count == 3)
        #expect(repeated == 2)
    }

    /// Fields that differ in one byte from the kept ones are read again: a hostile byte is refused
    /// as it would be on a first request.
    @Test(arguments: [
        "Host: x\r\nAuthorization: Bearer owner\u{1}\r\nContent-Type: application/json\r\nContent-Length: 3\r\n",
        "Host: x\r\nAuthorization: Bearer owner\r\n Content-Type: application/json\r\nContent-Length: 3\r\n",
        "Host: x\r\nAuthorization: Bearer owner\r\nContent-Type: application/json\r\nContent-Length: 4\r\n",
        "Host: x\r\nAuthorization: Bearer owner\r\nContent-Type: application/json\r\nContent-Length: 3\r\nContent-Length: 4\r\n",
        "Host: x\r\nAuthorization: Bearer owner\r\nContent-Type: application/json\r\nContent-Length: 3\r\nConnection: close\r\n",
        "Host: x\r\nAuthorization: Bearer owner\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
        "Host: x\r\nAuthorization: Bearer owner\r\nContent-Type: application/json\r\nContent-Length: 3\n",
        "Host: x\r\nAuthorization: Bearer owner\r\nContent-Type: application/json\r\nContent-Length : 3\r\n",
        "",
    ])
    func changedFieldsAreReadAgain(_ changed: String) {
        let inputs = [
            "PATCH /a HTTP/1.1\r\n" + Self.fields + "\r\nabc",
            "PATCH /b HTTP/1.1\r\n" + changed + "\r\nabcd\r\n0\r\n\r\n",
        ]
        let (events, repeated) = Self.run(inputs)
        #expect(events == Self.runReference(inputs))
        #expect(repeated == 0)
    }

    /// Kept fields were read under a header-count limit; a lower limit reads them again (and refuses).
    @Test func aChangedLimitReadsTheFieldsAgain() {
        let inputs = ["GET /a HTTP/1.1\r\n" + Self.fields + "\r\nabc", "GET /b HTTP/1.1\r\n" + Self.fields + "\r\nabc"]
        let limits = [HTTP1Limits(), HTTP1Limits(maxHeaderCount: 3)]
        let (events, repeated) = Self.run(inputs, limits: limits)
        #expect(events == Self.runReference(inputs, limits: limits))
        #expect(events.last == "failure 431")
        #expect(repeated == 0)
    }

    /// Heads of the agreement table, each followed by a mutation of itself, fed whole and in pieces.
    @Test func agreesOnMutatedRepeats() {
        var random = SeededGenerator(seed: 29)
        var taken = 0
        for round in 0..<3000 {
            let first = HeadParserAgreementTests.table[round % HeadParserAgreementTests.table.count]
            var second = first
            // A third of the rounds repeat the head exactly.
            if round % 3 != 0 {
                HeadParserAgreementTests.mutate(&second, times: Int.random(in: 1...3, using: &random), using: &random)
            }
            let input = first + second
            let pieces = (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 1...40, using: &random) }
            let ours = HeadParserAgreementTests.run(input, pieces: pieces)
            let reference = HeadParserAgreementTests.runReference(input, pieces: pieces)
            #expect(ours == reference, "input \(String(decoding: input, as: UTF8.self).debugDescription) pieces \(pieces)")
            if ours != reference { return }
            var parser = HTTP1RequestParser(limits: HeadParserAgreementTests.limits)
            parser.append(input)
            while parser.next() != nil {}
            taken += parser.repeatedFieldsCount
        }
        #expect(taken > 100)
    }
}
