import EmulatorModel
import EmulatorStorage
import Testing
@testable import FirestoreEmulator

/// UpdateDocument answers with the document as stored without decoding it again: the answer
/// must be exactly what a read returns afterwards.
@Suite struct UpdateReadBackTests {
    let service = FirestoreService(store: DocumentStore(engine: StorageEngine()))

    func name(_ path: String) throws(EmulatorError) -> DocumentName {
        try DocumentName.document("projects/p/databases/(default)/documents/\(path)")
    }

    @Test func answerIsTheStoredDocument() throws {
        let n = try name("c/d")
        let fields: ValueMap = [
            "s": .string("é\u{1F600}\n"), "z": .double(-0.0), "nan": .double(.nan),
            "t": .timestamp(Timestamp(seconds: 1_700_000_000, nanos: 123_456_789)), "b": .bytes([0, 255]),
            "g": .geoPoint(latitude: 1.5, longitude: -2.5),
            "m": .map(["y": .integer(-7), "x": .array([.null, .boolean(true), .map(["k": .string("v")])])]),
        ]
        let written = try service.updateDocument(n, fields: fields)
        let read = try service.getDocument(n)
        #expect(written == read)
        #expect(written.createTime == written.updateTime)
    }

    @Test func sameBytesKeepTheTimes() throws {
        let n = try name("c/same")
        let first = try service.updateDocument(n, fields: ["n": .integer(1)])
        let again = try service.updateDocument(n, fields: ["n": .integer(1)])
        #expect(again == first)
        #expect(again == (try service.getDocument(n)))
        let changed = try service.updateDocument(n, fields: ["n": .integer(2)])
        #expect(changed.updateTime > first.updateTime)
        #expect(changed.createTime == first.createTime)
        #expect(changed == (try service.getDocument(n)))
    }

    @Test func maskedUpdateAnswersTheMergedDocument() throws {
        let n = try name("c/masked")
        _ = try service.updateDocument(n, fields: ["a": .integer(1), "b": .map(["c": .integer(2), "d": .integer(3)])])
        let merged = try service.updateDocument(
            n, fields: ["b": .map(["c": .integer(20)]), "e": .string("new")],
            updateMask: [FieldPath(["b", "c"]), FieldPath(["b", "d"]), FieldPath(["e"])])
        #expect(merged.fields == ["a": .integer(1), "b": .map(["c": .integer(20)]), "e": .string("new")])
        #expect(merged == (try service.getDocument(n)))
        let projected = try service.updateDocument(n, fields: ["a": .integer(5)], updateMask: [FieldPath(["a"])], mask: [FieldPath(["a"])])
        #expect(projected.fields == ["a": .integer(5)])
    }

    @Test func failedPreconditionStillFails() throws {
        let n = try name("c/missing")
        #expect(throws: EmulatorError.self) { try service.updateDocument(n, fields: [:], precondition: .exists(true)) }
        #expect(throws: EmulatorError.self) { try service.getDocument(n) }
    }
}
