import EmulatorHTTP
import EmulatorModel
import EmulatorSupport
import Testing

@testable import FirestoreEmulator

/// A PATCH body that spells its fields exactly as the answer writes them (in any order) lends the
/// answer its bytes (`FastWriteDecoder.documentFieldsAndSpans`). The answer must read exactly as the general
/// encoding of the stored document, and the copy must be taken only for bodies so spelt.
@Suite struct PatchAnswerCopyTests {
    /// Bodies the answer may copy: every value spelt as the encoder spells it.
    static let copied: [String] = [
        #"{"fields":{"n":{"integerValue":"7"},"payload":{"stringValue":"xxxx"}}}"#,
        #"{"fields":{"payload":{"stringValue":"xxxx"},"n":{"integerValue":"7"}}}"#,  // as request_path.py sends it
        #"{"fields":{"c":{"nullValue":null},"b":{"mapValue":{"fields":{"x":{"booleanValue":true},"y":{"integerValue":"-1"}}}},"a":{"stringValue":""}}}"#,
        #"{"fields":{"A":{"integerValue":"-9223372036854775808"},"a":{"integerValue":"0"},"b":{"booleanValue":true},"c":{"booleanValue":false},"z":{"nullValue":null}}}"#,
        #"{"fields":{"m":{"mapValue":{"fields":{"x":{"arrayValue":{"values":[{"integerValue":"1"},{"mapValue":{}}]}}}}},"s":{"stringValue":"h\#u{E9}llo \#u{2713}"}}}"#,
        #"{"fields":{"a b":{"stringValue":"</script>\#u{7F}"},"ab":{"stringValue":""}}}"#,
    ]

    /// Bodies decoded by the fast decoder whose spelling differs from the answer's.
    static let rewritten: [String] = [
        #"{"fields": {"n":{"integerValue":"7"}}}"#, #"{"fields":{"n" :{"integerValue":"7"}}}"#,
        #" {"fields":{"n":{"integerValue":"7"}}}"#, #"{"fields":{"n":{"integerValue":"7"}} }"#,
        #"{"fields":{"n":{"integerValue":"007"}}}"#, #"{"fields":{"n":{"integerValue":"-0"}}}"#,
        #"{"fields":{"n":{"integerValue":7}}}"#, #"{"fields":{"d":{"doubleValue":1.5}}}"#,
        #"{"fields":{"t":{"timestampValue":"2024-01-02T03:04:05.100Z"}}}"#,
        #"{"fields":{"m":{"mapValue":{"fields":{}}}}}"#, #"{"fields":{"a":{"arrayValue":{"values":[]}}}}"#,
        #"{"fields":{"m":{"mapValue":{"fields":{"b":{"nullValue":null},"a":{"nullValue":null}}}}}}"#,
        #"{"fields":{}}"#,
    ]

    @Test(arguments: copied + rewritten)
    func copyAgreesWithTheEncoder(_ body: String) throws {
        let decoded = try #require(FastWriteDecoder.documentFieldsAndSpans(Array(body.utf8)))
        var w = JSONWriter()
        decoded.fields.appendFirestoreFieldsJSON(to: &w)
        if let spans = decoded.spans {
            var copy = JSONWriter()
            RESTEncoding.SpelledFields(body: Array(body.utf8), spans: spans).write(to: &copy)
            #expect(copy.bytes == w.bytes)
        }
        #expect((decoded.spans != nil) == Self.copied.contains(body), "\(body)")
    }

    /// The PATCH answer (copied or not) reads exactly as the answer of a GET of the document, and
    /// as a PATCH with a mask, which never copies.
    @Test(arguments: copied + rewritten)
    func patchAnswerAgreesWithGet(_ body: String) {
        let client = FirestoreTestClient()
        let path = "/v1/\(client.root)/c/d"
        let patched = client.send(.patch, path, body)
        #expect(patched.status == 200, "\(patched.text)")
        let got = client.send(.get, path)
        #expect(patched.text == got.text)
        let masked = client.send(.patch, path + "?mask.fieldPaths=zz", body)
        #expect(masked.status == 200)
    }

    /// With `updateMask` the stored document keeps fields the body does not name: the answer
    /// must show them, so it is encoded from the stored document.
    @Test func updateMaskAnswersTheWholeDocument() {
        let client = FirestoreTestClient()
        let path = "/v1/\(client.root)/c/d"
        _ = client.send(.patch, path, #"{"fields":{"a":{"integerValue":"1"},"b":{"integerValue":"2"}}}"#)
        let patched = client.send(.patch, path + "?updateMask.fieldPaths=b", #"{"fields":{"b":{"integerValue":"3"}}}"#)
        #expect(patched.status == 200)
        #expect(patched.json[member: "fields"]?[member: "a"]?[member: "integerValue"]?.string == "1")
        #expect(patched.text == client.send(.get, path).text)
    }
}
