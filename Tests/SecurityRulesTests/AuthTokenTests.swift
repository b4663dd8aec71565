import EmulatorSupport
import Testing

@testable import SecurityRules

private func segment(_ json: String) -> String {
    var text = RulesEncoding.base64(Array(json.utf8), urlSafe: true)
    while text.hasSuffix("=") { text.removeLast() }
    return text
}

private let header = segment(#"{"alg":"none","typ":"JWT"}"#)

@Test("An unsigned token becomes request.auth / auth with all its claims")
func authTokenUnsigned() throws {
    let payload = segment(#"{"sub":"alice","email":"a@example.com","admin":true,"firebase":{"sign_in_provider":"password"}}"#)
    let auth = try #require(try AuthToken.parse(bearer: "Bearer \(header).\(payload).").get())
    #expect(auth.uid == "alice")
    #expect(auth.token[member: "admin"] == .bool(true))
    #expect(auth.provider == "password")
    guard case .map(let token) = FirestoreRuleset.requestValue(
        FirestoreRulesRequest(method: .get, path: "databases/(default)/documents/a/b", auth: auth, time: RulesTimestamp(seconds: 0, nanos: 0)))
        .mapValue?["auth"]?.mapValue?["token"] ?? .null
    else {
        Issue.record("request.auth.token is not a map")
        return
    }
    #expect(token["email"]?.displayText == "a@example.com")
}

@Test("user_id wins over sub; signed tokens are accepted without verification")
func authTokenUserID() throws {
    let payload = segment(#"{"sub":"s","user_id":"u"}"#)
    let auth = try AuthToken.parse(bearer: "\(header).\(payload).c2lnbmF0dXJl").get()
    #expect(auth?.uid == "u")
}

private let malformed: [String] = ["Bearer nonsense", "Bearer a.b.c", "Bearer \(header).", "Bearer \(header).\(segment("[1]")).", "Bearer \(header).\(segment("{}"))."]

@Test("Malformed tokens get the official error", arguments: malformed)
func authTokenMalformed(_ bearer: String) {
    guard case .failure(let error) = AuthToken.parse(bearer: bearer) else {
        Issue.record("accepted \(bearer)")
        return
    }
    #expect(error.code == .invalidToken)
    #expect(error.message == "Could not parse auth token.")
}

@Test("No token means signed out")
func authTokenEmpty() throws {
    #expect(try AuthToken.parse(bearer: "").get() == nil)
    #expect(try AuthToken.parse(bearer: "Bearer ").get() == nil)
}

extension RulesValue {
    var mapValue: [String: RulesValue]? {
        if case .map(let m) = materialized { return m }
        return nil
    }
}
