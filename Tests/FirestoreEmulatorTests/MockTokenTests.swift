import EmulatorHTTP
import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import EmulatorTestSupport
import Testing

@testable import FirestoreEmulator

/// The test library's token (`iat` 0, `exp` 3600: expired in 1970) is a signed-in user on REST
/// and gRPC alike: emulators do not judge mock tokens' times.
@Suite struct FirestoreMockTokenTests {
    static let rules = FirestoreRulesEngine.compile("""
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /users/{uid} {
              allow read, write: if request.auth.uid == uid && request.auth.token.firebase.sign_in_provider == 'custom';
            }
          }
        }
        """).gate ?? .denyAll
    static let alice = MockUserToken.make(uid: "alice")
    static let body = #"{"fields":{"n":{"integerValue":"1"}}}"#

    @Test func restAcceptsTheLibraryToken() {
        let c = FirestoreTestClient(rules: Self.rules)
        let bearer = [("Authorization", "Bearer \(Self.alice)")]
        #expect(c.send(.patch, "/v1/\(c.name("users/alice"))", Self.body, headers: bearer).status == 200)
        #expect(c.send(.get, "/v1/\(c.name("users/alice"))", headers: bearer).status == 200)
        #expect(c.send(.patch, "/v1/\(c.name("users/bob"))", Self.body, headers: bearer).status == 403)
        #expect(c.send(.get, "/v1/\(c.name("users/alice"))").status == 403)
    }

    @Test func grpcAcceptsTheLibraryToken() throws {
        let c = FirestoreTestClient(rules: Self.rules)
        let alice = GRPCTestClient(service: c.emulator.service, token: Self.alice)
        _ = try alice.set([("users/alice", ["n": .integer(1)])]).get()
        let got = try alice.unary("GetDocument") { $0.string(1, alice.root + "/users/alice") }.get()
        #expect(try ProtoDocument(ProtoReader(got)).fields == ["n": .integer(1)])
        guard case .failure(let denied) = alice.set([("users/bob", ["n": .integer(1)])]) else {
            Issue.record("a write to another user's document was allowed")
            return
        }
        #expect(denied.code == 7)
    }
}
