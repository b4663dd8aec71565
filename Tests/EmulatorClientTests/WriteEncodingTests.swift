@testable import EmulatorClient
import EmulatorSupport
import Foundation
import Testing

@Suite struct WriteEncodingTests {
    let db = Firestore(projectID: "p")

    private func json(_ w: WriteOperation) -> String { JSONWriter.encodeToString(w.json) }

    @Test func updateWithOnlyATransformSendsAPresentButEmptyMask() throws {
        let w = try WriteOperation.update(db.document("C/d"), ["b": FieldValue.serverTimestamp()])
        let text = json(w)
        #expect(text.contains(#""updateMask":{"fieldPaths":[]}"#))
        #expect(text.contains(#""currentDocument":{"exists":true}"#))
        #expect(text.contains(#""setToServerValue":"REQUEST_TIME""#))
    }

    @Test func updateKeysAreDottedPathsAndMaskPathsAreEscaped() throws {
        let w = try WriteOperation.update(db.document("C/d"), ["a.b": 1, "x-y": 2])
        let text = json(w)
        #expect(text.contains(#""a.b""#) && text.contains("`x-y`"))
        #expect(text.contains(#""fields":{"a":{"mapValue":{"fields":{"b":{"integerValue":"1"}}}}"#))
    }

    @Test func setWithoutMergeRejectsDelete() {
        #expect(throws: FirestoreError.self) {
            try WriteOperation.set(db.document("C/d"), try FieldData.fields(["a": FieldValue.delete()]), merge: false)
        }
    }

    @Test func mergeMaskListsLeavesAndDeletesButNotTransforms() throws {
        let w = try WriteOperation.set(
            db.document("C/d"),
            try FieldData.fields(["a": ["b": 1, "c": FieldValue.delete()], "n": FieldValue.increment(Int64(1))]), merge: true)
        let text = json(w)
        #expect(text.contains(#""fieldPaths":["#))
        #expect(text.contains(#""a.b""#) && text.contains(#""a.c""#) && !text.contains(#""fieldPaths":["n"#))
        #expect(text.contains(#""increment":{"integerValue":"1"}"#))
    }

    @Test func sentinelsInsideArraysAreRejected() {
        #expect(throws: FirestoreError.self) {
            try WriteOperation.set(db.document("C/d"), try FieldData.fields(["a": [FieldValue.serverTimestamp()]]), merge: false)
        }
    }
}
