import EmulatorSupport

/// The unsigned token `@firebase/rules-unit-testing` makes for `authenticatedContext(uid)`
/// (`createMockUserToken` in packages/util of firebase-js-sdk): header `{"alg":"none","type":"JWT"}`,
/// `iat` 0 and `exp` 3600 unless the test sets them, an empty signature.
package enum MockUserToken {
    package static func make(uid: String, project: String = "demo-project", extraClaims: String = "") -> String {
        let header = #"{"alg":"none","type":"JWT"}"#
        let payload =
            #"{"iss":"https://securetoken.google.com/\#(project)","aud":"\#(project)","iat":0,"exp":3600,"auth_time":0,"#
            + #""sub":"\#(uid)","user_id":"\#(uid)","firebase":{"sign_in_provider":"custom","identities":{}}\#(extraClaims)}"#
        return Base64.encode(Array(header.utf8), alphabet: .urlSafe, padding: false) + "."
            + Base64.encode(Array(payload.utf8), alphabet: .urlSafe, padding: false) + "."
    }
}
