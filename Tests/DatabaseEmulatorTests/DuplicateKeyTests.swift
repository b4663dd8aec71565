import DatabaseEmulator
import EmulatorHTTP
import Testing

/// A JSON body that names a key twice is refused (400) rather than one value dropped silently.
@Suite struct DuplicateKeyTests {
    @Test func putPostAndPatchRefuseRepeatedKeys() {
        let db = DatabaseTestClient()
        db.put("/x.json?ns=d", #"{"keep":1}"#)
        let put = db.put("/x.json?ns=d", #"{"a":1,"a":2}"#)
        #expect(put.status.code == 400)
        #expect(errorText(put) == "Invalid data; couldn't parse JSON object, array, or value.")
        #expect(db.post("/x.json?ns=d", #"{"n":{"b":1,"b":1}}"#).status.code == 400)
        let patch = db.patch("/x.json?ns=d", #"{"a":1,"a":2}"#)
        #expect(patch.status.code == 400)
        #expect(errorText(patch) == "Invalid data; couldn't parse JSON object. Are you sending a JSON object with valid key names?")
        #expect(db.value("/x.json?ns=d") == j(#"{"keep":1}"#))
    }
}
