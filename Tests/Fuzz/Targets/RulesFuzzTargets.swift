import SecurityRules

extension FuzzTargets {
    static let rulesTargets: [FuzzTarget] = [
        FuzzTarget("rules-firestore", "Firestore rules lexer, parser and checks") { input in
            _ = FirestoreRuleset.parse(String(decoding: input, as: UTF8.self), fileName: "fuzz.rules")
        },
        FuzzTarget("rules-database", "Realtime Database rules JSON, expression lexer and parser") { input in
            _ = DatabaseRuleset.parse(String(decoding: input, as: UTF8.self), fileName: "fuzz.rules.json")
        },
        FuzzTarget("auth-token", "bearer tokens (mock and signed-looking JWTs)") { input in
            _ = AuthToken.parse(bearer: String(decoding: input, as: UTF8.self))
        },
    ]
}
