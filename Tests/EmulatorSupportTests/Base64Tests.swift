import Testing
@testable import EmulatorSupport

@Suite struct Base64Tests {
    /// RFC 4648 §10 test vectors.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: vectors)
    func encodesAndDecodesRFCVectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
        let unpadded = String(encoded.filter { $0 != "=" })
        #expect(Base64.decode(unpadded) == Array(plain.utf8))
        #expect(Base64.encode(Array(plain.utf8), padding: false) == unpadded)
    }

    @Test func alphabetsDiffer() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
        #expect(Base64.encode(bytes) == "+/+/")
        #expect(Base64.encode(bytes, alphabet: .urlSafe) == "-_-_")
        #expect(Base64.decode("-_-_", alphabet: .urlSafe) == bytes)
        #expect(Base64.decode("-_-_") == nil)
        #expect(Base64.decode("+/+/", alphabet: .urlSafe) == nil)
        #expect(Base64.decode("-_+/", alphabet: nil) == bytes)
        #expect(Base64.decode("3q2-7w", alphabet: nil) == [0xDE, 0xAD, 0xBE, 0xEF])
    }

    static let invalid: [String] = [
        "Z", "Zg=", "Zg===", "Z===", "Zm9v!", "Zm 9v", "Zh==", "Zm9=", "=Zg=", "Zg==Zg==", "\u{E9}",
    ]

    @Test(arguments: invalid)
    func rejectsInvalidInput(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test func roundTripsEveryByte() {
        let bytes = (0...255).map { UInt8($0) }
        for length in [0, 1, 2, 3, 100, 256] {
            let slice = Array(bytes.prefix(length))
            #expect(Base64.decode(Base64.encode(slice)) == slice)
            #expect(Base64.decode(Base64.encode(slice, alphabet: .urlSafe, padding: false), alphabet: .urlSafe) == slice)
        }
    }

    @Test func randomTokensAreSixteenFreshBytesInTheURLSafeAlphabet() {
        let tokens = (0..<64).map { _ in Base64.randomToken() }
        #expect(Set(tokens).count == tokens.count)
        for token in tokens {
            #expect(token.utf8.count == 22)
            #expect(Base64.decode(token, alphabet: .urlSafe)?.count == 16)
        }
        // Every byte position varies: a token built from fewer random bytes would repeat some.
        let decoded = tokens.compactMap { Base64.decode($0, alphabet: .urlSafe) }
        for position in 0..<16 {
            #expect(Set(decoded.map { $0[position] }).count > 1)
        }
    }
}
