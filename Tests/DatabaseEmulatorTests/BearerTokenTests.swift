import Testing

@testable import DatabaseEmulator

/// The token of an `Authorization` header, whatever its spacing.
@Suite struct BearerTokenTests {
    @Test func readsTheTokenAfterTheScheme() {
        #expect(DatabaseRequestAuth.bearerToken("Bearer owner") == "owner")
        #expect(DatabaseRequestAuth.bearerToken("FIREBASE abc.def") == "abc.def")
        #expect(DatabaseRequestAuth.bearerToken("Bearer  owner ") == "owner")
        #expect(DatabaseRequestAuth.bearerToken("Bearer \t") == "")
    }

    @Test func refusesOtherSchemesAndBareSchemes() {
        #expect(DatabaseRequestAuth.bearerToken("Basic owner") == nil)
        #expect(DatabaseRequestAuth.bearerToken("Bearer") == nil)
        #expect(DatabaseRequestAuth.bearerToken("Bearer ") == nil)
        #expect(DatabaseRequestAuth.bearerToken("Bearerowner") == nil)
    }

    @Test func splitsAsCharactersWhereTheBytesCouldMislead() {
        // A leading space is skipped before the scheme.
        #expect(DatabaseRequestAuth.bearerToken(" Bearer owner") == "owner")
        // A space a combining mark joins is no separator.
        #expect(DatabaseRequestAuth.bearerToken("Bearer \u{301}owner") == nil)
    }
}
