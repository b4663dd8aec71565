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

    @Test func ownerCredentialOnTheBytesAgreesWithTheToken() {
        let owners = ["Bearer owner", "bearer OWNER", "FIREBASE Owner", "Bearer  owner\t", "Bearer \towner "]
        let others = ["Bearer owner2", "Bearer own er", "Basic owner", "Bearerowner", " Bearer owner", "Bearer", "Bearer ",
                      "Bearer \u{301}owner", "Bearer ownér", "Bearer x.owner"]
        for header in owners {
            #expect(DatabaseRequestAuth.isOwnerCredential(header), "\(header)")
            #expect(DatabaseRequestAuth.bearerToken(header)?.lowercased() == "owner", "\(header)")
        }
        for header in others {
            #expect(!DatabaseRequestAuth.isOwnerCredential(header), "\(header)")
        }
        // Left to `bearerToken`, which still reads it as the owner token.
        #expect(DatabaseRequestAuth.bearerToken(" Bearer owner") == "owner")
    }
}
